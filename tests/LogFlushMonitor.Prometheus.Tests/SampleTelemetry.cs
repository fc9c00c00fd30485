using System.Diagnostics.Metrics;
using OpenTelemetry;
using OpenTelemetry.Metrics;
using OpenTelemetry.Resources;

namespace LogFlushMonitor.Prometheus.Tests;

/// <summary>
/// A real MeterProvider with one of each instrument kind and known values, shared by the HTTP,
/// promtool and Prometheus tests. Write sizes: five of 512 bytes and five of 1000, so the median is 512.
/// </summary>
internal sealed class SampleTelemetry : IDisposable
{
    public static readonly double[] WriteSizeBounds = [512, 1024, 2048, 4096, 8192, 16384, 32768, 49152, 61440];

    private readonly Meter _meter;
    private readonly MeterProvider _provider;

    public SampleTelemetry()
    {
        _meter = new Meter("LogFlushMonitor.Sample." + Guid.NewGuid().ToString("N"), "0.1.0");
        _provider = Sdk.CreateMeterProviderBuilder()
            .SetResourceBuilder(ResourceBuilder.CreateEmpty()
                .AddService("logflushmonitor", serviceInstanceId: "test-1", autoGenerateServiceInstanceId: false))
            .AddMeter(_meter.Name)
            .AddPrometheusPullExporter(out var handler)
            .Build();
        Handler = handler;

        KeyValuePair<string, object?>[] sales = [new("sqlserver.instance.name", "SQL01"), new("sqlserver.database.name", "sales")];
        _meter.CreateCounter<long>("sqlserver.log.flushes", "{flush}", "Log flushes seen.").Add(10, sales);
        _meter.CreateObservableCounter(
            "sqlserver.log.bytes_flushed",
            () => new Measurement<long>(7680, new KeyValuePair<string, object?>("sqlserver.database.name", "odd \"name\"\\x\ny")),
            "By",
            "Bytes hardened to the log.");
        _meter.CreateUpDownCounter<int>("sqlserver.sessions.active", "{session}", "Sessions open.").Add(3);
        _meter.CreateGauge<double>("sqlserver.log.space.used", "1", "Fraction of the log in use.").Record(0.25, sales);
        var writeSize = _meter.CreateHistogram<double>(
            "sqlserver.log.flush.write_size", "By", "Size of each log flush.", null,
            new InstrumentAdvice<double> { HistogramBucketBoundaries = WriteSizeBounds });
        for (var i = 0; i < 5; i++)
        {
            writeSize.Record(512, sales);
            writeSize.Record(1000, sales);
        }
    }

    public PrometheusScrapeHandler Handler { get; }

    public string MeterName => _meter.Name;

    public void Dispose()
    {
        _provider.Dispose();
        _meter.Dispose();
        Handler.Dispose();
    }
}
