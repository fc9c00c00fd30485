using System.Diagnostics.Metrics;
using OpenTelemetry;
using OpenTelemetry.Metrics;
using OpenTelemetry.Resources;

namespace LogFlushMonitor.Prometheus.Tests;

/// <summary>
/// A real MeterProvider whose scrape is many render buffers long (about 1 MB): counters with 1,500 series each and a
/// histogram, values fixed after construction, so every scrape gives the same text. <see cref="Break"/> adds a
/// series the renderer cannot print, after all the others.
/// </summary>
internal sealed class LargeTelemetry : IDisposable
{
    private readonly Meter _meter;
    private readonly MeterProvider _provider;

    public LargeTelemetry(int counters = 12, int seriesEach = 1_500)
    {
        _meter = new Meter("LogFlushMonitor.Large." + Guid.NewGuid().ToString("N"), "2.0.0");
        _provider = Sdk.CreateMeterProviderBuilder()
            .SetResourceBuilder(ResourceBuilder.CreateEmpty().AddService("large", serviceInstanceId: "large-1", autoGenerateServiceInstanceId: false))
            .AddMeter(_meter.Name)
            .AddPrometheusPullExporter(out var handler)
            .Build();
        Handler = handler;
        for (var c = 0; c < counters; c++)
        {
            var counter = _meter.CreateCounter<long>($"sqlserver.large.counter{c}", "{flush}", "A counter with many series.");
            for (var i = 0; i < seriesEach; i++)
            {
                counter.Add(i + 1, new("sqlserver.instance.name", "SQL" + (i % 10)), new("sqlserver.database.name", $"database_{i:0000}"));
            }
        }

        var histogram = _meter.CreateHistogram<double>("sqlserver.large.size", "By", "A histogram.", null,
            new InstrumentAdvice<double> { HistogramBucketBoundaries = [512, 4096, 61440] });
        for (var i = 0; i < 500; i++)
        {
            histogram.Record(i * 100, new KeyValuePair<string, object?>("sqlserver.database.name", $"database_{i:0000}"));
        }
    }

    public PrometheusScrapeHandler Handler { get; }

    /// <summary>Adds, after everything else, a series whose attribute value throws when printed.</summary>
    public void Break() =>
        _meter.CreateCounter<long>("sqlserver.large.broken").Add(1, new KeyValuePair<string, object?>("value", new Unprintable()));

    public void Dispose()
    {
        _provider.Dispose();
        _meter.Dispose();
        Handler.Dispose();
    }

    private sealed class Unprintable
    {
        public override string ToString() => throw new FormatException("this value has no text");
    }
}
