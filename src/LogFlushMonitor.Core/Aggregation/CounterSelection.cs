namespace LogFlushMonitor.Core.Aggregation;

/// <summary>
/// Which counters of the Databases object become series. A real server reports about 47 counters per database
/// (docs/sqlserver.md), and each polled counter costs one series per database: by default only the log counters
/// the metrics, alerts and dashboard use are kept; every other counter is opt-in, by exact name or by a pattern
/// with <c>*</c> (any run of characters), compared without regard to case (<c>Sources:SqlServer:Counters</c>).
/// </summary>
/// <remarks>Immutable; <see cref="Matches"/> is safe from any thread.</remarks>
public sealed class CounterSelection
{
    /// <summary>
    /// The counters always polled: those a metric family reads by name (<see cref="Signals.CountersSignal.NamedCounters"/>,
    /// from which the statement of the counter poll is made).
    /// </summary>
    public static IReadOnlyList<string> DefaultCounters => Signals.CountersSignal.NamedCounters;

    private static readonly HashSet<string> DefaultSet = new(DefaultCounters, StringComparer.OrdinalIgnoreCase);

    private readonly string[] _extra;

    private CounterSelection(string[] extra) => _extra = extra;

    /// <summary>The default: <see cref="DefaultCounters"/> only.</summary>
    public static CounterSelection Default { get; } = new([]);

    /// <summary>Every counter (the pattern <c>*</c>).</summary>
    public static CounterSelection All { get; } = new(["*"]);

    /// <summary>The opt-in entries as configured (names or patterns), trimmed, without duplicates.</summary>
    public IReadOnlyList<string> Extra => _extra;

    /// <summary>Whether only <see cref="DefaultCounters"/> are selected (the poll can then name them in its statement).</summary>
    public bool IsDefaultOnly => _extra.Length == 0;

    /// <summary>The default counters plus <paramref name="extra"/> (names or <c>*</c> patterns); blank entries are ignored.</summary>
    public static CounterSelection Create(IEnumerable<string>? extra)
    {
        var entries = (extra ?? []).Where(e => !string.IsNullOrWhiteSpace(e)).Select(e => e.Trim())
            .Distinct(StringComparer.OrdinalIgnoreCase).ToArray();
        return entries.Length == 0 ? Default : new CounterSelection(entries);
    }

    /// <summary>Whether <paramref name="counterName"/> (trimmed, as polled) is selected.</summary>
    public bool Matches(string counterName)
    {
        ArgumentNullException.ThrowIfNull(counterName);
        if (DefaultSet.Contains(counterName))
        {
            return true;
        }

        foreach (var pattern in _extra)
        {
            if (GlobMatches(pattern, counterName))
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>A pattern where <c>*</c> stands for any run of characters (possibly empty), ignoring case; no other wildcard.</summary>
    internal static bool GlobMatches(string pattern, string text)
    {
        int p = 0, t = 0, star = -1, resume = 0;
        while (t < text.Length)
        {
            if (p < pattern.Length && pattern[p] == '*')
            {
                star = p++;
                resume = t;
            }
            else if (p < pattern.Length && char.ToUpperInvariant(pattern[p]) == char.ToUpperInvariant(text[t]))
            {
                p++;
                t++;
            }
            else if (star >= 0)
            {
                p = star + 1;
                t = ++resume;
            }
            else
            {
                return false;
            }
        }

        while (p < pattern.Length && pattern[p] == '*')
        {
            p++;
        }

        return p == pattern.Length;
    }
}
