using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Metrics;
using OpenTelemetry;
using OpenTelemetry.Metrics;

namespace LogFlushMonitor.Core.Tests.Metrics;

/// <summary>A real MeterProvider listening to a fresh LogFlushMetrics, collected on demand.</summary>
public sealed class MetricsHarness : IDisposable
{
    private readonly MeterProvider _provider;
    private readonly CapturingExporter _exporter = new();

    public MetricsHarness()
    {
        Metrics = new LogFlushMetrics();
        Aggregator = new LogFlushAggregator(Metrics);
        _provider = Sdk.CreateMeterProviderBuilder()
            .AddMeter(LogFlushMetrics.MeterName)
            .AddReader(new BaseExportingMetricReader(_exporter) { TemporalityPreference = MetricReaderTemporalityPreference.Cumulative })
            .Build()!;
    }

    public LogFlushMetrics Metrics { get; }

    public LogFlushAggregator Aggregator { get; }

    public IReadOnlyList<ExportedPoint> Collect()
    {
        _exporter.Clear();
        Assert.True(_provider.ForceFlush(5000));
        return _exporter.Points;
    }

    public void Dispose()
    {
        _provider.Dispose();
        Metrics.Dispose();
    }
}
