using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Pipeline;

namespace LogFlushMonitor.Core.Tests.Aggregation;

public class CumulativeTrackerTests
{
    private static readonly DateTime T0 = new(2026, 11, 22, 0, 0, 0, DateTimeKind.Utc);

    [Fact]
    public void First_reading_is_only_a_baseline()
    {
        var t = new CumulativeTracker();
        Assert.Equal(0, t.Update(123_456, T0, 0));
        Assert.Equal(0, t.Total);
        Assert.Null(t.LastRate);
    }

    [Fact]
    public void Increase_is_never_negative_over_random_resets()
    {
        var rng = new Random(42);
        var t = new CumulativeTracker();
        long server = 0, expected = 0;
        var epochCounter = 0;
        var first = true;
        for (var i = 0; i < 10_000; i++)
        {
            var epoch = 0;
            if (rng.Next(50) == 0)
            {
                server = 0; // reset (restart, DBCC SQLPERF CLEAR, database re-created)
                epoch = rng.Next(2) == 0 ? 0 : 1; // seen as a restart, or only as a lower value
            }

            var step = rng.Next(0, 1000);
            server += step;
            var inc = t.Update(server, T0.AddSeconds(i), epochCounter += epoch);
            Assert.True(inc >= 0);
            Assert.True(t.LastRate is null or >= 0);
            if (!first)
            {
                expected += inc;
            }

            first = false;
        }

        Assert.Equal(expected, t.Total);
    }

    [Fact]
    public void Sequence_gaps_count_missing_events_and_a_restart_is_a_new_baseline()
    {
        var g = new SequenceGapTracker();
        foreach (var s in new long[] { 1, 2, 3, 7, 8, 10 })
        {
            g.Observe(s);
        }

        Assert.Equal(3 + 1, g.Lost);
        g.Reset();
        g.Observe(1);
        g.Observe(2);
        Assert.Equal(4, g.Lost);
        Assert.Equal(0, g.Observe(0)); // no sequence action
    }

    [Fact]
    public void An_event_arriving_out_of_order_fills_its_hole_instead_of_counting_as_lost()
    {
        var g = new SequenceGapTracker();
        foreach (var s in new long[] { 144, 145, 147, 146, 148 })
        {
            g.Observe(s);
        }

        Assert.Equal(1, g.Lost); // reported when 147 arrived; 146 then filled it, so nothing more is reported
        Assert.Equal(0, g.Missing);
        foreach (var s in new long[] { 150, 151 })
        {
            g.Observe(s);
        }

        Assert.Equal(1, g.Lost); // 149 is missing: the total missing is 1, already reported
        g.Observe(155);
        Assert.Equal(4, g.Lost); // 149, 152, 153, 154
        Assert.Equal(4, g.Missing);
        g.Reset();
        g.Observe(1);
        g.Observe(3);
        Assert.Equal(5, g.Missing);
    }
}
