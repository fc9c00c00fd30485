namespace LogFlushMonitor.Analysis;

/// <summary>
/// Sums of counts and durations that stop at <see cref="long.MaxValue"/> instead of wrapping: no figure of a report is
/// ever negative, whatever a damaged input holds. Every term is non-negative (a negative one counts as 0), so the result
/// is the same in any order (the workers' tallies merge in any order).
/// </summary>
internal static class Saturating
{
    /// <summary><paramref name="a"/> + <paramref name="b"/>, at most <see cref="long.MaxValue"/>; negative terms count as 0.</summary>
    public static long Add(long a, long b)
    {
        a = Math.Max(0, a);
        b = Math.Max(0, b);
        return a > long.MaxValue - b ? long.MaxValue : a + b;
    }

    /// <summary>The saturating sum of <paramref name="values"/>.</summary>
    public static long Sum(IEnumerable<long> values)
    {
        long total = 0;
        foreach (var v in values)
        {
            total = Add(total, v);
        }

        return total;
    }
}
