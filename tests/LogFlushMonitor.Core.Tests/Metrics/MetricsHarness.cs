using System.Diagnostics.Metrics;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Metrics;
using Microsoft.Extensions.DependencyInjection;
using OpenTelemetry;
using OpenTelemetry.Metrics;

namespace LogFlushMonitor.Core.Tests.Metrics;

/// <summary>
/// The metric stack wired as the host wires it (IMeterFactory from DI, the aggregation recording the histograms,
/// the observable instruments reading its view and the health registry) under a real MeterProvider, collected on demand.
/// </summary>
public sealed class MetricsHarness : IDisposable
{
    private readonly ServiceProvider _services;
    private readonly MeterProvider _provider;
    private readonly CapturingExporter _exporter = new();

    public MetricsHarness(CounterSelection? counters = null)
    {
        _services = Register(new ServiceCollection(), counters).BuildServiceProvider();
        Aggregator = _services.GetRequiredService<LogFlushAggregator>(); // the instruments exist before the first collection
        Health = _services.GetRequiredService<SourceHealth>();
        MeterFactory = _services.GetRequiredService<IMeterFactory>();
        _provider = Sdk.CreateMeterProviderBuilder()
            .AddMeter(LogFlushMetrics.MeterName)
            .AddReader(new BaseExportingMetricReader(_exporter) { TemporalityPreference = MetricReaderTemporalityPreference.Cumulative })
            .Build()!;
    }

    public LogFlushAggregator Aggregator { get; }

    public SourceHealth Health { get; }

    public IMeterFactory MeterFactory { get; }

    /// <summary>The registrations of the host (src/LogFlushMonitor/Hosting/MonitorHost.cs), minus everything else.</summary>
    public static IServiceCollection Register(IServiceCollection services, CounterSelection? counters = null)
    {
        services.AddMetrics();
        services.AddSingleton(_ => new SourceHealth(TimeProvider.System));
        services.AddSingleton<LogFlushMetrics>();
        services.AddSingleton(sp => new LogFlushAggregator(sp.GetRequiredService<LogFlushMetrics>(), counters));
        return services;
    }

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
