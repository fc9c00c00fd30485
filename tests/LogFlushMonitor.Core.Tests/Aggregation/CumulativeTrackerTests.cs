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
    public void A_reading_of_minus_one_then_two_to_the_63_is_rejected_and_the_total_never_falls()
    {
        var t = new CumulativeTracker();
        var totals = new List<long>();
        var verdicts = new List<ReadingVerdict>();
        var i = 0;
        foreach (var v in new[] { 100L, 200L, -1L, long.MaxValue, 300L, 350L })
        {
            t.Update(v, T0.AddSeconds(15 * i++), 0);
            totals.Add(t.Total);
            verdicts.Add(t.LastVerdict);
        }

        Assert.Equal([0L, 100, 100, 100, 200, 250], totals);
        Assert.Equal(ReadingVerdict.Negative, verdicts[2]);
        Assert.Equal(ReadingVerdict.TooFast, verdicts[3]);
        Assert.All(verdicts.Where((_, k) => k is not 2 and not 3), v => Assert.Equal(ReadingVerdict.Accepted, v));
    }

    [Fact]
    public void A_dip_for_one_poll_that_comes_back_is_not_counted_twice()
    {
        // _Total missing a member for one poll, or a momentary low reading: 1000, 2000, 1500, 2100 is 1,100 of growth.
        var t = new CumulativeTracker();
        var i = 0;
        foreach (var v in new[] { 1000L, 2000L, 1500L, 2100L })
        {
            t.Update(v, T0.AddSeconds(15 * i++), 0);
        }

        Assert.Equal(1100, t.Total);
        Assert.Equal((1, 0), (t.Glitches, t.Resets));
        Assert.Equal(100 / 30.0, t.LastRate!.Value, 9); // over the two intervals since the value counted before the dip
    }

    [Fact]
    public void A_reset_is_confirmed_by_the_next_reading_and_counted_from_the_low_reading()
    {
        // DBCC SQLPERF CLEAR or a restored database: 1000, 2000, then 100, 300 from zero again.
        var t = new CumulativeTracker();
        var i = 0;
        var rates = new List<double?>();
        foreach (var v in new[] { 1000L, 2000L, 100L, 300L, 400L })
        {
            t.Update(v, T0.AddSeconds(15 * i++), 0);
            rates.Add(t.LastRate);
        }

        Assert.Equal(1000 + 200 + 100, t.Total);
        Assert.Equal(1, t.Resets);
        Assert.Null(rates[2]);
        Assert.Equal(200 / 15.0, rates[3]!.Value, 9);
    }

    [Fact]
    public void A_first_reading_the_uptime_cannot_explain_is_rejected()
    {
        var t = new CumulativeTracker();
        t.Update(long.MaxValue, T0, 0, T0.AddHours(-1));
        Assert.Equal(ReadingVerdict.TooFast, t.LastVerdict);
        t.Update(5_000, T0.AddSeconds(15), 0, T0.AddHours(-1));
        t.Update(6_000, T0.AddSeconds(30), 0, T0.AddHours(-1));
        Assert.Equal(1_000, t.Total); // the rejected reading was no baseline
    }

    [Fact]
    public void The_total_never_decreases_and_never_goes_negative_whatever_the_readings()
    {
        var rng = new Random(7);
        var t = new CumulativeTracker();
        var last = 0L;
        long[] hostile = [-1, long.MaxValue, long.MinValue, 0, 1L << 62];
        long server = 1_000;
        for (var i = 0; i < 20_000; i++)
        {
            var value = rng.Next(20) switch
            {
                0 => hostile[rng.Next(hostile.Length)],
                1 => server / 2, // a dip or a reset
                _ => server += rng.Next(0, 5000),
            };
            t.Update(value, T0.AddSeconds(i * 15), rng.Next(500) == 0 ? i : 0);
            Assert.InRange(t.Total, last, long.MaxValue);
            Assert.True(t.LastRate is null or >= 0);
            last = t.Total;
        }
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

    [Fact]
    public void The_service_and_analyze_count_missing_and_repeated_numbers_alike()
    {
        // One rule (issue 29): the live tracker and the .xel reader's tracker agree on every sequence, including repeats,
        // inversions, restarts and numbers of 0. Expected values are counted here by hand for a fixed case first.
        var fixedCase = new long[] { 50_000, 50_001, 50_001, 50_003, 50_002, 50_002, 50_010, 1, 2, 0, 4 };
        var (live, file) = Both(fixedCase);
        Assert.Equal(6 + 1, live.Missing); // 50,004..50,009, then 3 after the numbering restarted at 1 (more than 10,000 below)
        Assert.Equal(2, live.Duplicates); // the second 11 and the second 12
        Assert.Equal((live.Missing, live.Duplicates), (file.Missing, file.Duplicates));

        var rng = new Random(7);
        for (var trial = 0; trial < 1000; trial++)
        {
            var numbers = new long[rng.Next(1, 40)];
            var next = (long)rng.Next(1, 100_000);
            for (var i = 0; i < numbers.Length; i++)
            {
                next += rng.Next(8) switch { 0 => -rng.Next(1, 30_000), 1 => 0, 2 => rng.Next(2, 6), 3 => -1, _ => 1 };
                numbers[i] = rng.Next(12) == 0 ? 0 : Math.Max(1, next);
            }

            (live, file) = Both(numbers);
            Assert.Equal((live.Missing, live.Duplicates), (file.Missing, file.Duplicates));
        }
    }

    private static (SequenceGapTracker Live, LogFlushMonitor.XEvent.Binary.XEventSequenceTracker File) Both(long[] numbers)
    {
        var live = new SequenceGapTracker();
        var file = new LogFlushMonitor.XEvent.Binary.XEventSequenceTracker();
        foreach (var n in numbers)
        {
            live.Observe(n);
            file.Observe(n);
        }

        return (live, file);
    }
}
