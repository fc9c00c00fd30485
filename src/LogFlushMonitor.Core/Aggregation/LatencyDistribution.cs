using System.Runtime.CompilerServices;

namespace LogFlushMonitor.Core.Aggregation;

/// <summary>
/// A log-scale distribution of durations for percentiles in reports and advice: 1 µs to about 160 s in
/// buckets 10 % wide, so a percentile is within 10 % of the true value. Adding allocates nothing.
/// </summary>
/// <remarks>
/// Not thread-safe; owned by one aggregation state. Durations in ticks (<see cref="AddTicks"/>, the per-event path of
/// <c>analyze</c>) find their bucket in a table of each bucket's last tick count, derived at start from the same
/// logarithm <see cref="Add"/> uses: the same bucket for every tick count, without a logarithm per event.
/// </remarks>
public sealed class LatencyDistribution
{
    private const double MinSeconds = 1e-6;
    private const double Growth = 1.1;
    private const int BucketCount = 200;
    private static readonly double LogGrowth = Math.Log(Growth);

    /// <summary>The largest tick count of each bucket but the last (by <see cref="BucketOf"/> of ticks / 10^7).</summary>
    private static readonly long[] LastTicksOf = BuildLastTicks();

    /// <summary>
    /// Where <see cref="BucketOfTicks"/> starts: the bucket of the smallest tick count of each sixteenth of each
    /// doubling (index 16 k + the 4 bits after the leading one of a count of 2^k to 2^(k+1) - 1; counts under 16 by
    /// themselves). A sixteenth spans at most 6.25 %, under one bucket's 10 %, so at most one bound lies inside.
    /// </summary>
    private static readonly byte[] StartBucketOf = BuildStartBuckets();

    // Only the span of buckets used so far is held (BucketCounts): a database's durations hit few of the 200.
    private BucketCounts _buckets;

    // The sum in whole nanoseconds: integer addition is exact and associative, so partial distributions merged
    // in any order (analyze's workers) give the same sum, mean included, as adding every value in one place.
    // Ticks are summed in a long first (a tick count is never negative, so an overflow shows as a smaller sum and
    // is carried into the 128-bit sum), keeping 128-bit arithmetic off the per-event path.
    private Int128 _sumNanoseconds;
    private long _sumTicks;

    // The largest duration: in ticks from AddTicks, in seconds from Add. Ticks / 10^7 is monotonic, so the
    // maximum of the two equals the maximum of every value converted one by one.
    private long _maxTicks;
    private double _maxSeconds;

    /// <summary>Buckets this distribution holds memory for (tests and benchmarks).</summary>
    internal int BucketsHeld => _buckets.Held;

    /// <summary>Number of durations added.</summary>
    public long Count { get; private set; }

    /// <summary>Sum of durations in seconds (kept in whole nanoseconds).</summary>
    public double SumSeconds => (double)SumNanoseconds / 1e9;

    /// <summary>Largest duration added, in seconds.</summary>
    public double MaxSeconds => Math.Max(_maxSeconds, _maxTicks / (double)TimeSpan.TicksPerSecond);

    private Int128 SumNanoseconds => _sumNanoseconds + (Int128)_sumTicks * 100;

    /// <summary>Adds one duration in seconds (negative values count as zero).</summary>
    public void Add(double seconds)
    {
        if (!(seconds > 0))
        {
            seconds = 0;
        }

        _buckets.Increment(BucketOf(seconds), BucketCount);
        Count++;
        _sumNanoseconds += (Int128)Math.Round(seconds * 1e9);
        if (seconds > _maxSeconds)
        {
            _maxSeconds = seconds;
        }
    }

    /// <summary>Adds one duration of <paramref name="ticks"/> (100 ns; negative values count as zero): the exact integer path.</summary>
    public void AddTicks(long ticks)
    {
        if (ticks < 0)
        {
            ticks = 0;
        }

        _buckets.Increment(BucketOfTicks(ticks), BucketCount);
        Count++;
        var sum = _sumTicks + ticks;
        if (sum < _sumTicks)
        {
            // Past long.MaxValue: carry what was summed into the 128-bit sum.
            _sumNanoseconds += (Int128)_sumTicks * 100;
            sum = ticks;
        }

        _sumTicks = sum;
        if (ticks > _maxTicks)
        {
            _maxTicks = ticks;
        }
    }

    /// <summary>Adds every value of <paramref name="other"/> (merging partial distributions; the result does not depend on the order).</summary>
    public void AddFrom(LatencyDistribution other)
    {
        ArgumentNullException.ThrowIfNull(other);
        _buckets.AddFrom(other._buckets, BucketCount);
        Count += other.Count;
        _sumNanoseconds += other.SumNanoseconds;
        _maxTicks = Math.Max(_maxTicks, other._maxTicks);
        _maxSeconds = Math.Max(_maxSeconds, other._maxSeconds);
    }

    /// <summary>A copy of this distribution.</summary>
    public LatencyDistribution Copy()
    {
        return new LatencyDistribution
        {
            Count = Count, _buckets = _buckets.Copy(), _sumNanoseconds = _sumNanoseconds, _sumTicks = _sumTicks, _maxTicks = _maxTicks, _maxSeconds = _maxSeconds,
        };
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

        var bucket = _buckets.BucketOfRank(rank);
        return bucket < 0 ? MaxSeconds : Math.Min(UpperBoundOf(bucket), MaxSeconds);
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

    /// <summary>
    /// <see cref="BucketOf"/>(<paramref name="ticks"/> / 10^7) without the logarithm: the start bucket of the count's
    /// sixteenth of a doubling, then one step if the count is past that bucket's last one.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static int BucketOfTicks(long ticks)
    {
        if (ticks <= 0)
        {
            return 0;
        }

        var b = (int)StartBucketOf[SixteenthOf((ulong)ticks)];
        var last = LastTicksOf;
        while ((uint)b < (uint)last.Length && ticks > last[b])
        {
            b++;
        }

        return b;
    }

    /// <summary>The table index of a positive count: itself under 16, else 16 x (bit length - 1) + the next 4 bits.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static int SixteenthOf(ulong ticks)
    {
        if (ticks < 16)
        {
            return (int)ticks;
        }

        var k = 63 - (int)ulong.LeadingZeroCount(ticks);
        return (k * 16) + (int)((ticks >> (k - 4)) & 15);
    }

    private static int BucketOfTickCount(long ticks) => BucketOf(ticks / (double)TimeSpan.TicksPerSecond);

    private static long[] BuildLastTicks()
    {
        var last = new long[BucketCount - 1];
        long low = 0;
        for (var b = 0; b < last.Length; b++)
        {
            // The largest tick count whose bucket is at most b (bucket of ticks never decreases as ticks grow).
            long lo = low, hi = long.MaxValue / 2;
            while (lo < hi)
            {
                var mid = lo + ((hi - lo + 1) / 2);
                if (BucketOfTickCount(mid) <= b)
                {
                    lo = mid;
                }
                else
                {
                    hi = mid - 1;
                }
            }

            last[b] = lo;
            low = lo;
        }

        return last;
    }

    private static byte[] BuildStartBuckets()
    {
        var start = new byte[64 * 16];
        for (var i = 0; i < start.Length; i++)
        {
            // The smallest count with this index: i itself under 16, else 2^k + j x 2^(k-4).
            int k = i / 16, j = i % 16;
            var first = i < 16 ? i : k < 4 ? -1 : (1L << k) + ((long)j << (k - 4));
            start[i] = first < 0 ? (byte)0 : (byte)BucketOfTickCount(first);
        }

        return start;
    }
}
