namespace LogFlushMonitor.Hosting;

/// <summary>"Did you mean ...?" for a mistyped configuration key or command: the nearest known name by edit distance.</summary>
internal static class ConfigurationSuggestions
{
    /// <summary>
    /// The candidate nearest to <paramref name="name"/> (case-insensitive Levenshtein distance), or null when none
    /// is close enough to be a typo: at most a third of the name's length, and at least 1 and at most 3 edits. Ties go
    /// to the candidate sharing the longer prefix (Sped: Speed, not Seed).
    /// </summary>
    public static string? Nearest(string name, IEnumerable<string> candidates)
    {
        var limit = Math.Clamp(name.Length / 3, 1, 3);
        return candidates
            .Select(c => (Candidate: c, Distance: Distance(name, c), Prefix: CommonPrefix(name, c)))
            .Where(c => c.Distance <= limit)
            .OrderBy(c => c.Distance)
            .ThenByDescending(c => c.Prefix)
            .Select(c => c.Candidate)
            .FirstOrDefault();
    }

    /// <summary>Levenshtein distance, ignoring case.</summary>
    public static int Distance(string a, string b)
    {
        var previous = new int[b.Length + 1];
        var current = new int[b.Length + 1];
        for (var j = 0; j <= b.Length; j++)
        {
            previous[j] = j;
        }

        for (var i = 1; i <= a.Length; i++)
        {
            current[0] = i;
            for (var j = 1; j <= b.Length; j++)
            {
                var same = char.ToUpperInvariant(a[i - 1]) == char.ToUpperInvariant(b[j - 1]);
                current[j] = Math.Min(Math.Min(current[j - 1] + 1, previous[j] + 1), previous[j - 1] + (same ? 0 : 1));
            }

            (previous, current) = (current, previous);
        }

        return previous[b.Length];
    }

    private static int CommonPrefix(string a, string b)
    {
        var n = 0;
        while (n < a.Length && n < b.Length && char.ToUpperInvariant(a[n]) == char.ToUpperInvariant(b[n]))
        {
            n++;
        }

        return n;
    }
}
