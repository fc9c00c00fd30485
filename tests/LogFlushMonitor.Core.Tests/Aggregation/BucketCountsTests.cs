using LogFlushMonitor.Core.Aggregation;

namespace LogFlushMonitor.Core.Tests.Aggregation;

/// <summary>
/// The bucket store of the distributions keeps only the span of buckets used, in 32-bit counters with their carries
/// apart: every count must read back exactly as a plain array of longs would hold it.
/// </summary>
public sealed class BucketCountsTests
{
    private const int Buckets = 200;

    [Fact]
    public void Random_increments_and_weighted_adds_read_back_as_a_plain_array_holds_them()
    {
        var random = new Random(20261126);
        for (var run = 0; run < 50; run++)
        {
            var counts = default(BucketCounts);
            var expected = new long[Buckets];
            for (var i = 0; i < 500; i++)
            {
                var bucket = random.Next(Buckets);
                if (random.Next(4) == 0)
                {
                    var weight = random.NextInt64(0, 1L << 40);
                    counts.Add(bucket, weight, Buckets);
                    expected[bucket] += weight;
                }
                else
                {
                    counts.Increment(bucket, Buckets);
                    expected[bucket]++;
                }
            }

            for (var b = 0; b < Buckets; b++)
            {
                Assert.Equal(expected[b], counts[b]);
            }

            var total = expected.Sum();
            Assert.Equal(expected.Take(60).Sum(), counts.SumTo(59));
            Assert.Equal(total, counts.SumTo(Buckets - 1));
            var rank = random.NextInt64(1, total + 1);
            Assert.Equal(FirstReaching(expected, rank), counts.BucketOfRank(rank));
        }
    }

    [Fact]
    public void A_bucket_past_two_to_the_32_keeps_counting()
    {
        var counts = default(BucketCounts);
        counts.Add(17, uint.MaxValue, Buckets);
        counts.Increment(17, Buckets); // the 32-bit counter wraps here: its carry must be kept
        counts.Increment(17, Buckets);
        counts.Add(18, (1L << 33) + 5, Buckets);
        counts.Increment(3, Buckets); // widens the span after the carries exist

        Assert.Equal((1L << 32) + 1, counts[17]);
        Assert.Equal((1L << 33) + 5, counts[18]);
        Assert.Equal(1, counts[3]);
        Assert.Equal((1L << 32) + 1 + (1L << 33) + 5 + 1, counts.SumTo(Buckets - 1));
    }

    [Fact]
    public void Only_the_span_used_is_held_and_an_unused_store_holds_nothing()
    {
        var counts = default(BucketCounts);
        Assert.Equal(0, counts.Held);
        Assert.Equal(0, counts[5]);
        Assert.Equal(-1, counts.BucketOfRank(1));

        counts.Increment(42, Buckets);
        counts.Increment(45, Buckets);
        Assert.Equal(8, counts.Held); // one step of 8 buckets: 40 to 47

        counts.Increment(150, Buckets);
        counts.Increment(199, Buckets);
        Assert.Equal(160, counts.Held); // 40 to 199
        Assert.Equal(1, counts[42]);
        Assert.Equal(1, counts[199]);
        Assert.Equal(0, counts[10]);
    }

    [Fact]
    public void Merging_and_copying_keep_every_count_and_share_nothing()
    {
        var a = default(BucketCounts);
        var b = default(BucketCounts);
        a.Increment(10, Buckets);
        a.Add(11, uint.MaxValue + 3L, Buckets);
        b.Increment(120, Buckets);
        b.Increment(10, Buckets);

        a.AddFrom(b, Buckets);
        var copy = a.Copy();
        a.Increment(120, Buckets);

        Assert.Equal(2, copy[10]);
        Assert.Equal(uint.MaxValue + 3L, copy[11]);
        Assert.Equal(1, copy[120]);
        Assert.Equal(2, a[120]);
        Assert.Equal(1, b[120]);
    }

    [Fact]
    public void A_bucket_outside_the_range_is_refused()
    {
        var counts = default(BucketCounts);
        Assert.Throws<ArgumentOutOfRangeException>(() => counts.Increment(Buckets, Buckets));
        Assert.Throws<ArgumentOutOfRangeException>(() => counts.Increment(-1, Buckets));
    }

    private static int FirstReaching(long[] counts, long rank)
    {
        long seen = 0;
        for (var i = 0; i < counts.Length; i++)
        {
            seen += counts[i];
            if (seen >= rank)
            {
                return i;
            }
        }

        return -1;
    }
}
