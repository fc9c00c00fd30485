using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;
using OpenTelemetry.Metrics;

namespace LogFlushMonitor.Core.Tests.Metrics;

/// <summary>Every provider here listens to the meter name "LogFlushMonitor": run one at a time.</summary>
[CollectionDefinition("metrics", DisableParallelization = true)]
public sealed class MetricsCollection;

[Collection("metrics")]
public class MetricsTests
{
    private static readonly DateTime T0 = new(2026, 11, 22, 12, 0, 0, DateTimeKind.Utc);

    private static ExportedPoint Point(IReadOnlyList<ExportedPoint> points, string name, params (string Key, string Value)[] tags) =>
        Assert.Single(points, p => p.Name == name && tags.All(t => Equals(p.Tags.GetValueOrDefault(t.Key), t.Value)));

    [Fact]
    public void Write_size_histogram_has_sector_aligned_buckets_counts_and_sum()
    {
        using var h = new MetricsHarness();
        foreach (var size in new uint[] { 512, 512, 512, 1024, 3000, 61440, 61440 })
        {
            h.Aggregator.OnLogFlush(new LogFlushEvent("sql1", 5, "shop", size, 1, T0));
        }

        var p = Point(h.Collect(), "sqlserver.log.flush.write_size", ("sqlserver.instance.name", "sql1"), ("sqlserver.database.name", "shop"));
        Assert.Equal("By", p.Unit);
        Assert.Equal(MetricType.Histogram, p.Type);
        Assert.Equal(2, p.Tags.Count);
        Assert.Equal(7, p.Count);
        Assert.Equal(512 * 3 + 1024 + 3000 + 61440 * 2, p.Sum);
        Assert.Equal(
            [(512, 3), (1024, 1), (2048, 0), (4096, 1), (8192, 0), (16384, 0), (32768, 0), (49152, 0), (61440, 2), (double.PositiveInfinity, 0)],
            p.Buckets.Select(b => (b.Bound, b.Count)).ToArray());
    }

    [Fact]
    public void A_histogram_mode_bucket_is_exported_exactly_as_that_many_flushes_through_the_real_SDK()
    {
        using var h = new MetricsHarness();
        h.Aggregator.OnLogFlush(new LogFlushEvent("sql1", 5, "shop", 1024, 1, T0)); // a streamed flush first: one series
        h.Aggregator.OnBatch(SignalRegistry.FlushBuckets.Row("sql1", T0, new FlushBucketRow(5, "shop", 512, 250_000)));
        h.Aggregator.OnBatch(SignalRegistry.FlushBuckets.Row("sql1", T0, new FlushBucketRow(5, "shop", 61440, 3)));
        h.Aggregator.OnBatch(SignalRegistry.FlushBuckets.Row("sql1", T0, new FlushBucketRow(5, "shop", 4096, 0))); // nothing new: nothing recorded

        var p = Point(h.Collect(), "sqlserver.log.flush.write_size", ("sqlserver.database.name", "shop"));
        Assert.Equal(250_004, p.Count);
        Assert.Equal((250_000.0 * 512) + 1024 + (3 * 61440), p.Sum);
        Assert.Equal(
            [(512, 250_000), (1024, 1), (2048, 0), (4096, 0), (8192, 0), (16384, 0), (32768, 0), (49152, 0), (61440, 3), (double.PositiveInfinity, 0)],
            p.Buckets.Select(b => (b.Bound, b.Count)).ToArray());

        var exact = Assert.Single(h.Aggregator.Snapshot()).WriteSizes;
        Assert.Equal(250_004, exact.Count);
        Assert.Equal(250_000, exact.CountAtMost(512));
        Assert.Equal(250_004, Point(h.Collect(), "sqlserver.monitor.events").Value);
    }

    [Fact]
    public void Flush_and_wait_durations_are_histograms_in_seconds_with_the_wait_type()
    {
        using var h = new MetricsHarness();
        h.Aggregator.OnLogFlush(new LogFlushEvent("sql1", 5, "shop", 0, 1, T0, TimeSpan.FromMilliseconds(0.3)));
        h.Aggregator.OnWait(new WaitEvent("sql1", "WRITELOG", TimeSpan.FromMilliseconds(12), 5, "shop", T0));
        h.Aggregator.OnWait(new WaitEvent("sql1", "WRITELOG", TimeSpan.FromMilliseconds(30), 5, "shop", T0));

        var points = h.Collect();
        var flush = Point(points, "sqlserver.log.flush.duration");
        Assert.Equal("s", flush.Unit);
        Assert.Equal(1, flush.Count);
        Assert.Equal(0.0003, flush.Sum, 9);
        Assert.Equal(1, flush.Buckets.Single(b => b.Bound == 0.0005).Count);

        var wait = Point(points, "sqlserver.database.wait.duration", ("wait.type", "WRITELOG"), ("sqlserver.database.name", "shop"));
        Assert.Equal("s", wait.Unit);
        Assert.Equal(2, wait.Count);
        Assert.Equal(0.042, wait.Sum, 9);
        Assert.Equal(1, wait.Buckets.Single(b => b.Bound == 0.025).Count);
        Assert.Equal(1, wait.Buckets.Single(b => b.Bound == 0.1).Count);
    }

    [Fact]
    public void Cumulative_counters_export_the_restart_safe_increase_and_point_values_as_gauges()
    {
        using var h = new MetricsHarness(CounterSelection.Create(["Log Cache Hit Ratio"]));
        var a = h.Aggregator;
        a.OnBatch(SignalRegistry.ServerStart.Row("sql1", T0, new ServerStartRow(T0.AddDays(-2))));
        a.OnBatch(SignalRegistry.Counters.Row("sql1", T0, new CounterRow("Databases", "Log Flushes/sec", "shop", 1_000, PerfCounterType.BulkCount)));
        a.OnBatch(SignalRegistry.Counters.Row("sql1", T0, new CounterRow("Databases", "Log Flush Wait Time", "shop", 70_000, PerfCounterType.BulkCount)));
        a.OnBatch(SignalRegistry.Counters.Row("sql1", T0, new CounterRow("Databases", "Percent Log Used", "shop", 42, PerfCounterType.LargeRawCount)));
        a.OnBatch(SignalRegistry.Counters.Row("sql1", T0, new CounterRow("Databases", "Log File(s) Size (KB)", "shop", 1024, PerfCounterType.LargeRawCount)));
        a.OnBatch(SignalRegistry.Counters.Row("sql1", T0, new CounterRow("Databases", "Log Cache Hit Ratio", "shop", 90, PerfCounterType.LargeRawFraction, 120)));
        a.OnBatch(SignalRegistry.Counters.Row("sql1", T0.AddSeconds(15), new CounterRow("Databases", "Log Flushes/sec", "shop", 4_000, PerfCounterType.BulkCount)));
        a.OnBatch(SignalRegistry.Counters.Row("sql1", T0.AddSeconds(15), new CounterRow("Databases", "Log Flush Wait Time", "shop", 72_500, PerfCounterType.BulkCount)));
        // Restart: the counter restarts at zero.
        a.OnBatch(SignalRegistry.ServerStart.Row("sql1", T0.AddSeconds(30), new ServerStartRow(T0.AddSeconds(25))));
        a.OnBatch(SignalRegistry.Counters.Row("sql1", T0.AddSeconds(30), new CounterRow("Databases", "Log Flushes/sec", "shop", 250, PerfCounterType.BulkCount)));

        var points = h.Collect();
        var flushes = Point(points, "sqlserver.log.flushes");
        Assert.Equal(MetricType.LongSum, flushes.Type);
        Assert.Equal("{flush}", flushes.Unit);
        Assert.Equal(3_000 + 250, flushes.Value);
        Assert.Equal("shop", flushes.Tags["sqlserver.database.name"]);

        var waitTime = Point(points, "sqlserver.log.flush.wait.time");
        Assert.Equal(MetricType.DoubleSum, waitTime.Type);
        Assert.Equal(2.5, waitTime.Value, 9);

        var used = Point(points, "sqlserver.log.usage");
        Assert.Equal(MetricType.DoubleGauge, used.Type);
        Assert.Equal(0.42, used.Value, 9);
        Assert.Equal(1024 * 1024, Point(points, "sqlserver.log.size").Value);

        var ratio = Point(points, "sqlserver.performance.fraction", ("sqlserver.counter.name", "Log Cache Hit Ratio"));
        Assert.Equal(0.75, ratio.Value, 9);
        Assert.Equal("Databases", ratio.Tags["sqlserver.counter.object"]);

        Assert.Equal(1, Point(points, "sqlserver.instance.restarts").Value);
        Assert.Equal((T0.AddSeconds(25) - DateTime.UnixEpoch).TotalSeconds, Point(points, "sqlserver.instance.start_time").Value);
    }

    [Fact]
    public void Wait_stats_and_log_file_stats_export_increases_in_seconds()
    {
        using var h = new MetricsHarness();
        var a = h.Aggregator;
        a.OnBatch(SignalRegistry.WaitStats.Row("sql1", T0, new WaitStatsRow("WRITELOG", 100, 1_000, 50, 10)));
        a.OnBatch(SignalRegistry.WaitStats.Row("sql1", T0.AddSeconds(15), new WaitStatsRow("WRITELOG", 400, 7_000, 80, 40)));
        a.OnBatch(SignalRegistry.FileStats.Row("sql1", T0, new FileStatsRow(5, "shop", 2, 10, 5_120, 5)));
        a.OnBatch(SignalRegistry.FileStats.Row("sql1", T0.AddSeconds(15), new FileStatsRow(5, "shop", 2, 110, 56_320, 1_005)));

        var points = h.Collect();
        var tasks = Point(points, "sqlserver.wait.tasks", ("wait.type", "WRITELOG"));
        Assert.Equal(300, tasks.Value);
        Assert.Equal(6.0, Point(points, "sqlserver.wait.time").Value, 9);
        Assert.Equal(0.03, Point(points, "sqlserver.wait.signal.time").Value, 9);
        Assert.Equal(100, Point(points, "sqlserver.log.file.writes", ("sqlserver.database.name", "shop")).Value);
        Assert.Equal(51_200, Point(points, "sqlserver.log.file.written.bytes").Value);
        Assert.Equal(1.0, Point(points, "sqlserver.log.file.write.stall").Value, 9);
    }

    [Fact]
    public void Losses_are_exported_per_kind()
    {
        using var h = new MetricsHarness();
        h.Aggregator.OnSourceLoss("sql1", LossKind.SequenceGap, 7);
        var points = h.Collect();
        Assert.Equal(7, Point(points, "sqlserver.monitor.events.lost", ("loss.kind", "sequence_gap")).Value);
        Assert.Equal(0, Point(points, "sqlserver.monitor.events.lost", ("loss.kind", "channel_full")).Value);
    }

    [Fact]
    public void Every_instrument_is_named_under_sqlserver_with_a_unit()
    {
        using var h = new MetricsHarness();
        var a = h.Aggregator;
        a.OnLogFlush(new LogFlushEvent("sql1", 5, "shop", 512, 1, T0));
        a.OnLogFlush(new LogFlushEvent("sql1", 5, "shop", 0, 1, T0, TimeSpan.FromMilliseconds(1)));
        a.OnWait(new WaitEvent("sql1", "WRITELOG", TimeSpan.FromMilliseconds(1), 5, "shop", T0));
        var points = h.Collect();
        Assert.NotEmpty(points);
        Assert.All(points, p =>
        {
            Assert.StartsWith("sqlserver.", p.Name);
            Assert.Equal(p.Name.ToLowerInvariant(), p.Name);
            Assert.False(string.IsNullOrEmpty(p.Unit));
        });
    }

    [Fact]
    public void Source_health_is_exported_per_instance_and_component()
    {
        using var h = new MetricsHarness();
        var health = h.Health;
        health.Succeeded("sql1", "poller");
        health.Failed("sql1", "stream", "disconnected");
        health.Failed("sql1", "stream", "disconnected");
        health.SetMode("sql1", "stream");

        var points = h.Collect();
        Assert.Equal(1, Assert.Single(points, p => p.Name == "sqlserver.monitor.up" && Equals(p.Tags["component"], "poller")).Value);
        Assert.Equal(0, Assert.Single(points, p => p.Name == "sqlserver.monitor.up" && Equals(p.Tags["component"], "stream")).Value);
        Assert.Equal(2, Assert.Single(points, p => p.Name == "sqlserver.monitor.errors").Value);
        Assert.Equal("disconnected", Assert.Single(points, p => p.Name == "sqlserver.monitor.errors").Tags["error.type"]);
        Assert.Equal("stream", Assert.Single(points, p => p.Name == "sqlserver.monitor.collection.mode").Tags["mode"]);
        Assert.InRange(Assert.Single(points, p => p.Name == "sqlserver.monitor.last_success").Value, 1.7e9, 4e9);
    }
}
