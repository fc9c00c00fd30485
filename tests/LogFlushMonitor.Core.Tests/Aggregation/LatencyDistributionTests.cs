using LogFlushMonitor.Core.Aggregation;

namespace LogFlushMonitor.Core.Tests.Aggregation;

public sealed class LatencyDistributionTests
{
    /// <summary>
    /// The bucket a value lands in shows as the 50th percentile of that value and a much larger one: the upper bound
    /// of the smaller value's bucket.
    /// </summary>
    private static double BucketBoundOf(Action<LatencyDistribution> addValue, Action<LatencyDistribution> addLarge)
    {
        var d = new LatencyDistribution();
        addValue(d);
        addLarge(d);
        return d.Quantile(0.5);
    }

    private static IEnumerable<long> TickCounts()
    {
        for (long t = 0; t < 20_000; t++)
        {
            yield return t;
        }

        // Around every bucket bound (1 µs x 1.1^b, in ticks) and every power of two, up to the last bucket.
        for (var b = 0; b < 200; b++)
        {
            var bound = (long)(10 * Math.Pow(1.1, b));
            for (var d = -3; d <= 3; d++)
            {
                yield return Math.Max(0, bound + d);
            }
        }

        for (var k = 0; k < 63; k++)
        {
            yield return (1L << k) - 1;
            yield return 1L << k;
            yield return (1L << k) + 1;
        }

        var random = new Random(7);
        for (var i = 0; i < 20_000; i++)
        {
            yield return (long)Math.Exp(random.NextDouble() * Math.Log(5e10));
        }
    }

    [Fact]
    public void A_duration_in_ticks_lands_in_the_same_bucket_as_the_same_duration_in_seconds()
    {
        var mismatches = new List<long>();
        foreach (var t in TickCounts())
        {
            var seconds = t / (double)TimeSpan.TicksPerSecond;
            var byTicks = BucketBoundOf(d => d.AddTicks(t), d => d.AddTicks(long.MaxValue / 4));
            var bySeconds = BucketBoundOf(d => d.Add(seconds), d => d.Add(long.MaxValue / 4 / (double)TimeSpan.TicksPerSecond));
            if (byTicks != bySeconds)
            {
                mismatches.Add(t);
            }
        }

        Assert.Empty(mismatches);
    }

    [Fact]
    public void Sums_in_ticks_stay_exact_past_the_range_of_a_long()
    {
        var d = new LatencyDistribution();
        d.AddTicks(long.MaxValue);
        d.AddTicks(long.MaxValue);
        d.AddTicks(3);
        var expectedSeconds = (double)(((Int128)long.MaxValue * 2 + 3) * 100) / 1e9;
        Assert.Equal(expectedSeconds, d.SumSeconds);
        Assert.Equal(long.MaxValue / (double)TimeSpan.TicksPerSecond, d.MaxSeconds);
        Assert.Equal(3, d.Count);
    }

    [Fact]
    public void Ticks_and_seconds_mix_and_merge_in_any_order()
    {
        var a = new LatencyDistribution();
        var b = new LatencyDistribution();
        a.AddTicks(12_345);
        a.Add(0.5);
        b.AddTicks(50_000_000); // 5 s: the largest
        b.Add(0.25);
        b.AddTicks(-7); // counts as zero

        var ab = a.Copy();
        ab.AddFrom(b);
        var ba = b.Copy();
        ba.AddFrom(a);

        Assert.Equal(5, ab.Count);
        Assert.Equal(5.0, ab.MaxSeconds);
        Assert.Equal(0.0012345 + 0.5 + 5 + 0.25, ab.SumSeconds, 12);
        Assert.Equal(ab.SumSeconds, ba.SumSeconds);
        Assert.Equal(ab.MaxSeconds, ba.MaxSeconds);
        foreach (var q in new[] { 0.0, 0.2, 0.5, 0.8, 0.99, 1 })
        {
            Assert.Equal(ab.Quantile(q), ba.Quantile(q));
        }

        Assert.Equal(5.0, ab.Quantile(1));
        Assert.Equal(1e-6, ab.Quantile(0)); // the zero, reported as the first bucket's bound (1 µs)
    }
}
