using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;
using Microsoft.Extensions.DependencyInjection;
using OpenTelemetry;
using OpenTelemetry.Metrics;

namespace LogFlushMonitor.Core.Tests.Metrics;

/// <summary>
/// Series beyond the cardinality limit are folded by the SDK into one otel_metric_overflow series: that must be counted
/// per metric and announced once, checked against what the real SDK folded under the same limit.
/// </summary>
[Collection("metrics")]
public sealed class SeriesOverflowTests
{
    private const int Limit = 100;
    private static readonly DateTime T0 = new(2026, 11, 22, 12, 0, 0, DateTimeKind.Utc);

    private sealed class Rig : IDisposable
    {
        private readonly ServiceProvider _services;
        private readonly MeterProvider _provider;
        private readonly CapturingExporter _exporter = new();

        public Rig()
        {
            _services = MetricsHarness.Register(new ServiceCollection()).BuildServiceProvider();
            Metrics = _services.GetRequiredService<LogFlushMetrics>();
            Metrics.SeriesLimit = Limit;
            Metrics.Overflowed += o => Announced.Add(o);
            Aggregator = _services.GetRequiredService<LogFlushAggregator>();
            // The host's view (TelemetryService.StreamConfiguration) with the same limit.
            _provider = Sdk.CreateMeterProviderBuilder()
                .AddMeter(LogFlushMetrics.MeterName)
                .AddView(_ => new MetricStreamConfiguration { CardinalityLimit = Limit })
                .AddReader(new BaseExportingMetricReader(_exporter) { TemporalityPreference = MetricReaderTemporalityPreference.Cumulative })
                .Build()!;
        }

        public LogFlushMetrics Metrics { get; }

        public LogFlushAggregator Aggregator { get; }

        public List<SeriesOverflow> Announced { get; } = [];

        public IReadOnlyList<ExportedPoint> Collect()
        {
            _exporter.Clear();
            Assert.True(_provider.ForceFlush(5000));
            return _exporter.Points;
        }

        public void Dispose()
        {
            _provider.Dispose();
            _services.Dispose();
        }
    }

    private static void Populate(LogFlushAggregator a, int databases)
    {
        for (var d = 0; d < databases; d++)
        {
            var db = "db" + d;
            a.OnBatch(SignalRegistry.Counters.Row("sql1", T0, new CounterRow("Databases", "Log Flushes/sec", db, 100, PerfCounterType.BulkCount)));
            a.Apply([
                EventSample.Of(new LogFlushEvent("sql1", 5 + d, db, 4096, 1, T0)),
                EventSample.Of(new WaitEvent("sql1", "WRITELOG", TimeSpan.FromMilliseconds(2), 5 + d, db, T0)),
            ]);
        }
    }

    private static bool IsOverflowSeries(ExportedPoint p) => p.Tags.ContainsKey("otel.metric.overflow");

    [Fact]
    public void Series_beyond_the_limit_are_counted_per_metric_as_the_sdk_folds_them()
    {
        using var rig = new Rig();
        Populate(rig.Aggregator, 150);

        var points = rig.Collect();

        foreach (var name in new[] { "sqlserver.log.flushes", "sqlserver.log.flush.write_size", "sqlserver.database.wait.duration" })
        {
            var ofMetric = points.Where(p => p.Name == name).ToList();
            Assert.Contains(ofMetric, IsOverflowSeries); // the SDK did fold
            var keptBySdk = ofMetric.Count(p => !IsOverflowSeries(p));
            Assert.Equal(LogFlushMetrics.SeriesKept(Limit), keptBySdk);
            var overflow = Assert.Single(points, p => p.Name == "sqlserver.monitor.series.overflow" && Equals(p.Tags["metric.name"], name));
            Assert.Equal(150 - keptBySdk, overflow.Value);
        }

        // Families with a series per instance did not overflow and are not reported.
        Assert.DoesNotContain(points, p => p.Name == "sqlserver.monitor.series.overflow" && Equals(p.Tags["metric.name"], "sqlserver.monitor.events"));
        var flushes = Assert.Single(rig.Announced, o => o.Metric == "sqlserver.log.flushes");
        Assert.Equal(new SeriesOverflow("sqlserver.log.flushes", 150, Limit, 150 - LogFlushMetrics.SeriesKept(Limit)), flushes);
    }

    [Fact]
    public void An_overflow_is_announced_once_per_metric_and_stays_counted()
    {
        using var rig = new Rig();
        Populate(rig.Aggregator, 150);
        rig.Collect();
        var announced = rig.Announced.Count;
        Assert.True(announced >= 3, $"{announced} metrics announced");

        Populate(rig.Aggregator, 160);
        var points = rig.Collect();
        rig.Collect();

        Assert.Equal(announced, rig.Announced.Count);
        var overflow = Assert.Single(points, p => p.Name == "sqlserver.monitor.series.overflow" && Equals(p.Tags["metric.name"], "sqlserver.log.flushes"));
        Assert.Equal(160 - LogFlushMetrics.SeriesKept(Limit), overflow.Value);
    }

    [Fact]
    public void Nothing_is_reported_while_every_series_fits()
    {
        using var rig = new Rig();
        Populate(rig.Aggregator, LogFlushMetrics.SeriesKept(Limit));

        var points = rig.Collect();

        Assert.DoesNotContain(points, IsOverflowSeries);
        Assert.DoesNotContain(points, p => p.Name == "sqlserver.monitor.series.overflow");
        Assert.Empty(rig.Announced);
    }
}
