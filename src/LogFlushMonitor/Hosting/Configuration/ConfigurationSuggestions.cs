namespace LogFlushMonitor.Hosting;

/// <summary>"Did you mean ...?" for a mistyped configuration key or command: the nearest known name by edit distance.</summary>
internal static class ConfigurationSuggestions
{
    /// <summary>
    /// The candidate nearest to <paramref name="name"/> (case-insensitive Levenshtein distance), or null when none
    /// is close enough to be a typo: at most a third of the name's length, and at least 1 and at most 3 edits. Ties go
    /// to the candidate sharing the longer prefix (Sped: Speed, not Seed). Failing that, the one candidate the name
    /// abbreviates word by word (<see cref="Abbreviates"/>: ConnectionStringEnvVariable for
    /// ConnectionStringEnvironmentVariable, ConnStringFile for ConnectionStringFile).
    /// </summary>
    public static string? Nearest(string name, IEnumerable<string> candidates)
    {
        var all = candidates as IReadOnlyCollection<string> ?? [.. candidates];
        var limit = Math.Clamp(name.Length / 3, 1, 3);
        return all
            .Select(c => (Candidate: c, Distance: Distance(name, c), Prefix: CommonPrefix(name, c)))
            .Where(c => c.Distance <= limit)
            .OrderBy(c => c.Distance)
            .ThenByDescending(c => c.Prefix)
            .Select(c => c.Candidate)
            .FirstOrDefault()
            ?? (all.Where(c => Abbreviates(name, c)).ToList() is [var only] ? only : null);
    }

    /// <summary>
    /// Whether <paramref name="name"/> shortens <paramref name="candidate"/> word by word: both have the same words (split
    /// where a capital letter starts one), each of the name's a start of the candidate's, case aside, and at least one
    /// shorter (Env for Environment, Conn for Connection).
    /// </summary>
    public static bool Abbreviates(string name, string candidate)
    {
        var abbreviated = Words(name);
        var full = Words(candidate);
        return abbreviated.Count == full.Count && abbreviated.Count > 1
            && abbreviated.Zip(full).All(p => p.Second.StartsWith(p.First, StringComparison.OrdinalIgnoreCase))
            && abbreviated.Zip(full).Any(p => p.First.Length < p.Second.Length);
    }

    private static List<string> Words(string name)
    {
        var words = new List<string>();
        var start = 0;
        for (var i = 1; i <= name.Length; i++)
        {
            if (i == name.Length || (char.IsUpper(name[i]) && !char.IsUpper(name[i - 1])))
            {
                words.Add(name[start..i]);
                start = i;
            }
        }

        return words;
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
