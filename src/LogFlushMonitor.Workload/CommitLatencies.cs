namespace LogFlushMonitor.Workload;

/// <summary>What one scenario's commits took, as the client timed them.</summary>
/// <param name="Commits">Commits timed.</param>
/// <param name="MeanMs">Their mean, milliseconds (exact).</param>
/// <param name="P50Ms">The median, milliseconds (within about 3 %: the middle of a bucket 1/16 of a power of two wide).</param>
/// <param name="P99Ms">The 99th percentile, milliseconds (as the median).</param>
public sealed record CommitLatency(long Commits, double MeanMs, double P50Ms, double P99Ms);

/// <summary>
/// Commit latencies of one scenario's sessions: each commit's round trip (an autocommit INSERT, or the COMMIT of an
/// explicit transaction) from the client's side, the WRITELOG wait included. Log-linear buckets (16 per power of two of
/// microseconds, 1 µs to 35 minutes) so percentiles cost no memory per commit; the sum is kept exactly for the mean.
/// Thread-safe: the sessions of a scenario add to one.
/// </summary>
internal sealed class CommitLatencies
{
    private const int SubBuckets = 16;
    private const int Powers = 32;
    private readonly long[] _buckets = new long[Powers * SubBuckets];
    private long _count;
    private long _sumTicks;

    /// <summary>Adds one commit that took <paramref name="elapsed"/>.</summary>
    public void Add(TimeSpan elapsed)
    {
        var ticks = Math.Max(0, elapsed.Ticks);
        Interlocked.Increment(ref _count);
        Interlocked.Add(ref _sumTicks, ticks);
        Interlocked.Increment(ref _buckets[BucketOf(ticks / 10)]);
    }

    /// <summary>The figures so far, or null when nothing was timed.</summary>
    public CommitLatency? Summary()
    {
        var count = Interlocked.Read(ref _count);
        if (count == 0)
        {
            return null;
        }

        var counts = new long[_buckets.Length];
        for (var i = 0; i < counts.Length; i++)
        {
            counts[i] = Interlocked.Read(ref _buckets[i]);
        }

        return new CommitLatency(count, Interlocked.Read(ref _sumTicks) / 10_000.0 / count, Quantile(counts, 0.5), Quantile(counts, 0.99));
    }

    /// <summary>The bucket of <paramref name="micros"/>: under 16 µs one a microsecond, then 16 a power of two.</summary>
    internal static int BucketOf(long micros)
    {
        if (micros < SubBuckets)
        {
            return (int)Math.Max(0, micros);
        }

        var power = 63 - (int)long.LeadingZeroCount(micros); // >= 4
        var sub = (int)((micros >> (power - 4)) & (SubBuckets - 1));
        return Math.Min(((power - 3) * SubBuckets) + sub, (Powers * SubBuckets) - 1);
    }

    /// <summary>The lower bound of bucket <paramref name="bucket"/>, microseconds.</summary>
    internal static double LowerOf(int bucket)
    {
        if (bucket < SubBuckets)
        {
            return bucket;
        }

        var power = (bucket / SubBuckets) + 3;
        var sub = bucket % SubBuckets;
        return (1L << power) + ((long)sub << (power - 4));
    }

    /// <summary>The middle of the bucket holding the rank ceil(q x n), milliseconds.</summary>
    private static double Quantile(long[] counts, double q)
    {
        var total = counts.Sum();
        var rank = (long)Math.Ceiling(q * total);
        long seen = 0;
        for (var i = 0; i < counts.Length; i++)
        {
            seen += counts[i];
            if (seen >= rank && counts[i] > 0)
            {
                var upper = i + 1 < counts.Length ? LowerOf(i + 1) : LowerOf(i) * 1.0625;
                return (LowerOf(i) + upper) / 2 / 1000.0;
            }
        }

        return 0;
    }
}
