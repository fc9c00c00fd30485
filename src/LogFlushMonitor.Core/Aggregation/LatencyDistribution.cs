namespace LogFlushMonitor.Core.Aggregation;

/// <summary>
/// A log-scale distribution of durations for percentiles in reports and advice: 1 µs to about 160 s in
/// buckets 10 % wide, so a percentile is within 10 % of the true value. Adding allocates nothing.
/// </summary>
/// <remarks>Not thread-safe; owned by one aggregation state.</remarks>
public sealed class LatencyDistribution
{
    private const double MinSeconds = 1e-6;
    private const double Growth = 1.1;
    private const int BucketCount = 200;
    private static readonly double LogGrowth = Math.Log(Growth);

    private readonly long[] _buckets = new long[BucketCount];

    // The sum in whole nanoseconds: integer addition is exact and associative, so partial distributions merged
    // in any order (analyze's workers) give the same sum, mean included, as adding every value in one place.
    private Int128 _sumNanoseconds;

    /// <summary>Number of durations added.</summary>
    public long Count { get; private set; }

    /// <summary>Sum of durations in seconds (kept in whole nanoseconds).</summary>
    public double SumSeconds => (double)_sumNanoseconds / 1e9;

    /// <summary>Largest duration added, in seconds.</summary>
    public double MaxSeconds { get; private set; }

    /// <summary>Adds one duration in seconds (negative values count as zero).</summary>
    public void Add(double seconds)
    {
        if (!(seconds > 0))
        {
            seconds = 0;
        }

        _buckets[BucketOf(seconds)]++;
        Count++;
        _sumNanoseconds += (Int128)Math.Round(seconds * 1e9);
        if (seconds > MaxSeconds)
        {
            MaxSeconds = seconds;
        }
    }

    /// <summary>Adds one duration of <paramref name="ticks"/> (100 ns; negative values count as zero): the exact integer path.</summary>
    public void AddTicks(long ticks)
    {
        if (ticks < 0)
        {
            ticks = 0;
        }

        var seconds = ticks / (double)TimeSpan.TicksPerSecond;
        _buckets[BucketOf(seconds)]++;
        Count++;
        _sumNanoseconds += (Int128)ticks * 100;
        if (seconds > MaxSeconds)
        {
            MaxSeconds = seconds;
        }
    }

    /// <summary>Adds every value of <paramref name="other"/> (merging partial distributions; the result does not depend on the order).</summary>
    public void AddFrom(LatencyDistribution other)
    {
        ArgumentNullException.ThrowIfNull(other);
        for (var i = 0; i < BucketCount; i++)
        {
            _buckets[i] += other._buckets[i];
        }

        Count += other.Count;
        _sumNanoseconds += other._sumNanoseconds;
        MaxSeconds = Math.Max(MaxSeconds, other.MaxSeconds);
    }

    /// <summary>A copy of this distribution.</summary>
    public LatencyDistribution Copy()
    {
        var c = new LatencyDistribution { Count = Count, _sumNanoseconds = _sumNanoseconds, MaxSeconds = MaxSeconds };
        _buckets.CopyTo(c._buckets, 0);
        return c;
    }

    /// <summary>Mean in seconds, 0 when empty.</summary>
    public double MeanSeconds => Count == 0 ? 0 : SumSeconds / Count;

    /// <summary>The duration below which a fraction <paramref name="q"/> (0..1) of the values fall, 0 when empty.</summary>
    public double Quantile(double q)
    {
        if (Count == 0)
        {
            return 0;
        }

        var rank = (long)Math.Ceiling(Math.Clamp(q, 0, 1) * Count);
        if (rank < 1)
        {
            rank = 1;
        }

        long seen = 0;
        for (var i = 0; i < BucketCount; i++)
        {
            seen += _buckets[i];
            if (seen >= rank)
            {
                return Math.Min(UpperBoundOf(i), MaxSeconds);
            }
        }

        return MaxSeconds;
    }

    private static int BucketOf(double seconds)
    {
        if (seconds <= MinSeconds)
        {
            return 0;
        }

        var b = (int)Math.Ceiling(Math.Log(seconds / MinSeconds) / LogGrowth);
        return Math.Min(b, BucketCount - 1);
    }

    private static double UpperBoundOf(int bucket) => MinSeconds * Math.Pow(Growth, bucket);
}
