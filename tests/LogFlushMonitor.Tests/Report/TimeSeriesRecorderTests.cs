using LogFlushMonitor.Analysis;
using LogFlushMonitor.Core.Samples;

namespace LogFlushMonitor.Tests.Report;

public class TimeSeriesRecorderTests
{
    private static readonly DateTime T0 = new(2026, 11, 22, 8, 0, 0, DateTimeKind.Utc);

    [Fact]
    public void Flushes_land_in_one_second_buckets_from_the_first_event()
    {
        var r = new TimeSeriesRecorder();
        r.Flush("i", 5, T0.AddSeconds(0.1));
        r.Flush("i", 5, T0.AddSeconds(0.9));
        r.Flush("i", 5, T0.AddSeconds(3.5));
        r.Flush("i", 6, T0.AddSeconds(1.2));

        var s = r.Get("i", 5, TimeSpan.FromSeconds(1))!;

        Assert.Equal(T0, s.Start);
        Assert.Equal([2L, 0, 0, 1], s.Flushes);
        Assert.Equal([1L], r.Get("i", 6, TimeSpan.FromSeconds(1))!.Flushes.Where(n => n > 0));
        Assert.Null(r.Get("i", 7, TimeSpan.FromSeconds(1)));
        Assert.Null(r.Get("other", 5, TimeSpan.FromSeconds(1)));
    }

    [Fact]
    public void A_long_range_widens_the_buckets_and_keeps_every_count()
    {
        var r = new TimeSeriesRecorder();
        var n = 0L;
        // Two hours, one flush every half second, written out of order in two halves.
        for (var t = 3600.0; t < 7200; t += 0.5, n++)
        {
            r.Flush("i", 5, T0.AddSeconds(t));
        }

        for (var t = 0.0; t < 3600; t += 0.5, n++)
        {
            r.Flush("i", 5, T0.AddSeconds(t));
        }

        Assert.Equal(TimeSpan.FromSeconds(10), r.Width); // 7,200 s in at most 1,024 buckets: 1 s, 2 s, then 10 s
        var display = r.DisplayWidth(120);
        Assert.Equal(TimeSpan.FromMinutes(1), display); // 120 one-minute buckets
        var s = r.Get("i", 5, display)!;
        Assert.Equal(120, s.Count);
        Assert.Equal(n, s.Flushes.Sum());
        // The last bucket ends at the last event, half a second before its next flush would have come.
        Assert.All(Enumerable.Range(0, s.Count), i => Assert.InRange(s.FlushesPerSecond(i), 2.0, 2.02));
        Assert.Equal((T0, T0.AddSeconds(7199.5)), r.Range);
    }

    [Fact]
    public void Rates_of_the_edge_buckets_are_per_second_actually_covered()
    {
        var r = new TimeSeriesRecorder();
        // 10 flushes per second from 08:00:03 to 08:00:25.
        for (var tenths = 30; tenths <= 250; tenths++)
        {
            r.Flush("i", 5, T0.AddSeconds(tenths / 10.0));
        }

        var s = r.Get("i", 5, TimeSpan.FromSeconds(10))!;

        Assert.Equal([70L, 100, 51], s.Flushes);
        Assert.Equal([7.0, 10.0, 5.0], s.Seconds.Select(x => Math.Round(x, 3)));
        Assert.All(Enumerable.Range(0, 3), i => Assert.InRange(s.FlushesPerSecond(i), 9.9, 10.3)); // not 7, 10 and 5
    }

    [Fact]
    public void An_edge_bucket_covering_a_sliver_joins_its_neighbour()
    {
        var r = new TimeSeriesRecorder();
        for (var t = 0.0; t < 20; t += 0.5)
        {
            r.Flush("i", 5, T0.AddSeconds(t));
        }

        r.Flush("i", 5, T0.AddSeconds(20)); // the only event of the third 10 s bucket, at its very start

        var s = r.Get("i", 5, TimeSpan.FromSeconds(10))!;

        Assert.Equal([20L, 21], s.Flushes);
        Assert.Equal(41, s.Flushes.Sum());
    }

    [Fact]
    public void Writelog_time_waited_is_seconds_per_second_and_average_wait_is_per_wait()
    {
        var r = new TimeSeriesRecorder();
        r.Flush("i", 5, T0);
        r.WriteLog("i", 5, T0.AddSeconds(0.2), TimeSpan.FromMilliseconds(500));
        r.WriteLog("i", 5, T0.AddSeconds(0.7), TimeSpan.FromMilliseconds(700));
        r.WriteLog("i", 5, T0.AddSeconds(1.5), TimeSpan.FromMilliseconds(100));
        r.Flush("i", 5, T0.AddSeconds(1.999));

        var s = r.Get("i", 5, TimeSpan.FromSeconds(1))!;

        Assert.Equal([2L, 1], s.WriteLogWaits);
        Assert.Equal(1.2, s.WaitSecondsPerSecond(0), 6); // two sessions' waits overlap: more than one second per second is possible
        Assert.Equal(600, s.AverageWaitMs(0), 6);
        Assert.Equal(100, s.AverageWaitMs(1), 6);
    }

    [Fact]
    public void Display_width_is_a_round_multiple_of_the_recorded_width()
    {
        var r = new TimeSeriesRecorder();
        r.Flush("i", 5, T0);
        r.Flush("i", 5, T0.AddMinutes(5));

        Assert.Equal(TimeSpan.FromSeconds(5), r.DisplayWidth(120)); // 61 buckets; 2 s would take 151
        Assert.Equal(TimeSpan.FromSeconds(1), r.DisplayWidth(1000));
        Assert.Throws<ArgumentException>(() => r.Get("i", 5, TimeSpan.FromMilliseconds(1500)));
    }

    [Fact]
    public void Counting_time_series_in_the_analyze_sink_allocates_nothing_per_event()
    {
        var recorder = new TimeSeriesRecorder();
        var sink = new AnalyzeSink(new LogFlushTally(), recorder);
        const string Instance = "analyze";
        var flushes = Enumerable.Range(0, 4096).Select(i => new LogFlushEvent(Instance, 5 + (i % 3), "db", 512, (ulong)i, T0.AddMilliseconds(i * 3))).ToArray();
        // Applications interleaved (as interned names from a reader): each database's series scans its few names.
        string[] apps = ["OrderService", "Billing", "", "sqlcmd"];
        var waits = Enumerable.Range(0, 4096).Select(i => new WaitEvent(Instance, AnalyzeSink.WriteLog, TimeSpan.FromMilliseconds(1), 5 + (i % 3), "db", T0.AddMilliseconds(i * 3), 0, apps[i / 3 % apps.Length])).ToArray();
        void Feed()
        {
            for (var i = 0; i < flushes.Length; i++)
            {
                sink.OnLogFlush(flushes[i]);
                sink.OnWait(waits[i]);
            }
        }

        Feed(); // the databases' series and the aggregation's state are created once
        var before = GC.GetAllocatedBytesForCurrentThread();
        Feed();
        var allocated = GC.GetAllocatedBytesForCurrentThread() - before;

        Assert.Equal(0, allocated);
        Assert.Equal(2 * flushes.Count(f => f.DatabaseId == 5), recorder.Get(Instance, 5, TimeSpan.FromSeconds(1))!.Flushes.Sum());
        // The nameless application ("") counts as other, as the metric labels it.
        Assert.Equal(["Billing", "OrderService", TimeSeriesRecorder.OtherApplication, "sqlcmd"], recorder.Get(Instance, 5, TimeSpan.FromSeconds(1))!.Applications.Select(a => a.Application).Order(StringComparer.Ordinal));
    }

    [Fact]
    public void Writelog_time_by_application_survives_widening_and_merging_and_keeps_the_top_5_and_other()
    {
        // 40 applications (past MaxApplications), application k waits k ms per wait, one wait a second for two hours,
        // split over two recorders (two reading threads) that are merged.
        var names = Enumerable.Range(1, 40).Select(k => $"app{k:00}").ToArray();
        var a = new TimeSeriesRecorder();
        var b = new TimeSeriesRecorder();
        var expected = new Dictionary<string, long>();
        for (var t = 0; t < 7200; t++)
        {
            var k = (t % 40) + 1;
            var name = names[k - 1];
            (t < 3600 ? b : a).WriteLog("i", 5, T0.AddSeconds(t), TimeSpan.FromMilliseconds(k), name);
            expected[name] = expected.GetValueOrDefault(name) + TimeSpan.FromMilliseconds(k).Ticks;
        }

        a.AddFrom(b);
        var s = a.Get("i", 5, a.DisplayWidth(120))!;

        Assert.Equal(7200, s.WaitsWithApplication);
        var top = expected.Where(e => Array.IndexOf(names, e.Key) < TimeSeriesRecorder.MaxApplications)
            .OrderByDescending(e => e.Value).Take(TimeSeriesRecorder.TopApplicationCount).ToList();
        Assert.Equal([.. top.Select(e => e.Key), TimeSeriesRecorder.OtherApplication], s.Applications.Select(x => x.Application));
        Assert.Equal(top.Select(e => e.Value), s.Applications.Take(5).Select(x => x.WriteLogTicks.Sum()));
        Assert.Equal(expected.Values.Sum(), s.Applications.Sum(x => x.WriteLogTicks.Sum()));
        Assert.Equal(s.WriteLogTicks.Sum(), s.Applications.Sum(x => x.WriteLogTicks.Sum()));
    }

    [Fact]
    public void Waits_without_the_action_are_counted_apart_and_give_no_applications()
    {
        var r = new TimeSeriesRecorder();
        r.WriteLog("i", 5, T0, TimeSpan.FromMilliseconds(3));
        var s = r.Get("i", 5, TimeSpan.FromSeconds(1))!;
        Assert.Equal(0, s.WaitsWithApplication);
        Assert.Empty(s.Applications);
    }
}
