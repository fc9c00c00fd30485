using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Core.Tests.Metrics;
using LogFlushMonitor.Core.XEvents;
using LogFlushMonitor.XEvent.Binary;
using LogFlushMonitor.XEvent.TestSupport;

namespace LogFlushMonitor.Core.Tests.Aggregation;

/// <summary>
/// WRITELOG time by client application (issue 22 item 3): read from the wait events' client_app_name action by the real
/// XE reader and mapper, aggregated as the top 5 per database plus "other", exported through the real SDK.
/// </summary>
[Collection("metrics")]
public class ApplicationWaitsTests
{
    private const string Time = "sqlserver.database.writelog.application.time";
    private const string Waits = "sqlserver.database.writelog.application.waits";
    private static readonly DateTime T0 = new(2026, 11, 25, 12, 0, 0, DateTimeKind.Utc);

    private static XEventSampleMapper Feed(MetricsHarness h, Action<XelWriter> write)
    {
        var ms = new MemoryStream();
        using (var w = new XelWriter(ms, T0))
        {
            write(w);
        }

        ms.Position = 0;
        var mapper = new XEventSampleMapper("sql1", h.Aggregator);
        using var reader = new XelReader(ms, "apps.xel");
        reader.ReadAll(ref mapper);
        return mapper;
    }

    private static Dictionary<string, double> ByApp(IReadOnlyList<ExportedPoint> points, string name, string database = "shop") =>
        points.Where(p => p.Name == name && (string?)p.Tags[MetricAttributes.Database] == database)
            .ToDictionary(p => (string)p.Tags[MetricAttributes.Application]!, p => p.Value);

    [Fact]
    public void Eight_applications_show_as_the_five_that_waited_first_and_other_with_every_second_accounted()
    {
        using var h = new MetricsHarness();
        Feed(h, w =>
        {
            for (var app = 0; app < 8; app++)
            {
                for (var i = 0; i <= app; i++)
                {
                    // app k waits k + 1 times, 10 ms each: 360 ms in all.
                    w.WaitCompleted(T0.AddMilliseconds((app * 10) + i), XelWriter.WriteLogKey, 10, 5, databaseName: "shop", clientApp: "app" + app);
                }
            }
        });

        var points = h.Collect();
        var time = ByApp(points, Time);
        Assert.Equal(["app0", "app1", "app2", "app3", "app4", "other"], time.Keys.Order(StringComparer.Ordinal));
        Assert.Equal(0.360, time.Values.Sum(), 9);
        Assert.Equal(0.010 * (6 + 7 + 8), time["other"], 9);
        Assert.Equal(36, ByApp(points, Waits).Values.Sum());
    }

    [Fact]
    public void After_a_window_the_top_is_chosen_again_by_the_time_waited_and_cardinality_stays_six()
    {
        using var h = new MetricsHarness();
        Feed(h, w =>
        {
            for (var app = 0; app < 5; app++)
            {
                w.WaitCompleted(T0.AddSeconds(app), XelWriter.WriteLogKey, 1, 5, databaseName: "shop", clientApp: "early" + app);
            }

            // Later applications wait far longer, in the first window and the next.
            for (var minute = 1; minute < 12; minute++)
            {
                for (var app = 0; app < 3; app++)
                {
                    w.WaitCompleted(T0.AddMinutes(minute).AddSeconds(app), XelWriter.WriteLogKey, 500, 5, databaseName: "shop", clientApp: "busy" + app);
                }
            }
        });

        var time = ByApp(h.Collect(), Time);
        Assert.Equal(6, time.Count);
        Assert.Contains("busy0", time.Keys);
        Assert.Contains("busy1", time.Keys);
        Assert.Contains("busy2", time.Keys);
        Assert.Contains("other", time.Keys);
        // early2..4 left the top at the first window's end (1 ms each, no longer reported); every wait is counted once,
        // under its application while chosen, else under other.
        Assert.Equal((2 * 0.001) + (11 * 3 * 0.5), time.Values.Sum(), 9);
    }

    [Fact]
    public void A_hostile_application_name_is_cut_counted_and_exported_as_it_came_with_quotes_and_control_characters()
    {
        using var h = new MetricsHarness();
        var hostile = "evil\"app\n\\\u0001\t" + new string('x', 10_000);
        var truncated = MetricAttributes.Truncated;
        Feed(h, w =>
        {
            for (var i = 0; i < 3; i++)
            {
                w.WaitCompleted(T0.AddSeconds(i), XelWriter.WriteLogKey, 20, 5, databaseName: "shop", clientApp: hostile);
            }
        });

        var time = ByApp(h.Collect(), Time);
        var name = Assert.Single(time.Keys, k => k != "other");
        Assert.Equal(MetricAttributes.MaxValueLength, name.Length);
        Assert.Equal(hostile[..MetricAttributes.MaxValueLength], name);
        Assert.Equal(0.060, time[name], 9); // three waits of one application, not three applications
        Assert.True(MetricAttributes.Truncated > truncated);
    }

    [Fact]
    public void Waits_without_the_action_make_no_application_series_and_an_empty_name_counts_as_other()
    {
        using var h = new MetricsHarness();
        Feed(h, w =>
        {
            w.WaitCompleted(T0, XelWriter.WriteLogKey, 10, 5, databaseName: "shop");
            w.WaitCompleted(T0, XelWriter.WriteLogKey, 10, 6, databaseName: "hr", clientApp: "");
        });

        var points = h.Collect();
        Assert.Empty(ByApp(points, Time));
        Assert.Equal(["other"], ByApp(points, Time, "hr").Keys);
    }

    [Fact]
    public void Interning_application_names_allocates_nothing_per_event_and_refuses_names_past_its_capacity()
    {
        static byte[] Make(int events, int apps)
        {
            var ms = new MemoryStream();
            using (var w = new XelWriter(ms, T0, new XelWriterOptions { BufferSize = 64 * 1024 }))
            {
                for (var i = 0; i < events; i++)
                {
                    w.WaitCompleted(T0.AddTicks(i * 100L), XelWriter.WriteLogKey, 1, 5, (ulong)i + 1, databaseName: "shop", clientApp: "app" + (i % apps));
                }
            }

            return ms.ToArray();
        }

        static long Allocated(byte[] file)
        {
            var before = GC.GetAllocatedBytesForCurrentThread();
            var mapper = new XEventSampleMapper("sql1", new NullSink());
            using (var reader = new XelReader(new MemoryStream(file), "f.xel"))
            {
                reader.ReadAll(ref mapper);
            }

            return GC.GetAllocatedBytesForCurrentThread() - before;
        }

        var small = Make(10_000, 20);
        var large = Make(40_000, 20);
        Allocated(small);
        var smallBytes = Allocated(small);
        var largeBytes = Allocated(large);
        Assert.True(largeBytes - smallBytes < 16 * 1024, $"small run {smallBytes:N0} B, large run {largeBytes:N0} B");

        // Capacity: distinct names past it map to the shared "unlisted" name (folded into other), counted.
        var mapper2 = new XEventSampleMapper("sql1", new NullSink());
        using (var reader = new XelReader(new MemoryStream(Make(ClientAppNames.Capacity + 10, ClientAppNames.Capacity + 10)), "f.xel"))
        {
            reader.ReadAll(ref mapper2);
        }

        Assert.Equal(ClientAppNames.Capacity, mapper2.Applications.Count);
        Assert.Equal(10, mapper2.Applications.Refused);
    }

    private sealed class NullSink : LogFlushMonitor.Core.Samples.IEventSink
    {
        public void OnLogFlush(in LogFlushMonitor.Core.Samples.LogFlushEvent flush)
        {
        }

        public void OnWait(in LogFlushMonitor.Core.Samples.WaitEvent wait)
        {
        }

        public void OnSourceLoss(string instance, LogFlushMonitor.Core.Samples.LossKind kind, long count)
        {
        }
    }
}
