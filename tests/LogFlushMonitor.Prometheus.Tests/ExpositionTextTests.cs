using System.Diagnostics.Metrics;
using OpenTelemetry;
using OpenTelemetry.Metrics;
using OpenTelemetry.Resources;

namespace LogFlushMonitor.Prometheus.Tests;

public sealed class ExpositionTextTests
{
    private static readonly double[] WriteSizeBounds = [512, 1024, 2048, 4096, 8192, 16384, 32768, 49152, 61440];

    private static MeterProvider BuildProvider(Meter meter, out PrometheusScrapeHandler handler, Action<PrometheusExporterOptions>? configure = null) =>
        Sdk.CreateMeterProviderBuilder()
            .SetResourceBuilder(ResourceBuilder.CreateEmpty()
                .AddService("logflushmonitor", serviceInstanceId: "host-1", autoGenerateServiceInstanceId: false))
            .AddMeter(meter.Name)
            .AddPrometheusPullExporter(out handler, configure)
            .Build();

    [Fact]
    public async Task Every_instrument_kind_renders_exactly_per_the_compatibility_rules()
    {
        using var meter = new Meter("LogFlushMonitor.Test", "1.2.3");
        using var provider = BuildProvider(meter, out var handler);

        var flushes = meter.CreateCounter<long>("sqlserver.log.flushes", "{flush}", "Log flushes seen.");
        flushes.Add(3, new KeyValuePair<string, object?>("sqlserver.database.name", "say \"hi\"\\now\nplease"));
        flushes.Add(4, new KeyValuePair<string, object?>("sqlserver.database.name", "tempdb"));

        meter.CreateObservableCounter(
            "sqlserver.log.bytes_flushed",
            () => new Measurement<long>(123456, new KeyValuePair<string, object?>("sqlserver.database.name", "tempdb")),
            "By",
            "Bytes hardened to the log.");

        var sessions = meter.CreateUpDownCounter<int>("sqlserver.sessions.active", "{session}", "Sessions\\open.");
        sessions.Add(5);
        sessions.Add(-2);

        var used = meter.CreateGauge<double>("sqlserver.log.space.used", "1", "Fraction of log in use.");
        used.Record(0.25, new KeyValuePair<string, object?>("primary", true), new KeyValuePair<string, object?>("file.id", 2));

        var writeSize = meter.CreateHistogram<double>(
            "sqlserver.log.flush.write_size",
            "By",
            "Size of each log flush.\nOne line per flush.",
            tags: null,
            advice: new InstrumentAdvice<double> { HistogramBucketBoundaries = WriteSizeBounds });
        foreach (var size in new double[] { 512, 512, 600, 4096, 61440, 70000 })
        {
            writeSize.Record(size, new KeyValuePair<string, object?>("sqlserver.database.name", "sales"));
        }

        var text = await handler.ScrapeTextAsync();

        const string Scope = "otel_scope_name=\"LogFlushMonitor.Test\",otel_scope_version=\"1.2.3\"";
        var expected = string.Join('\n', [
            "# HELP target_info Target metadata",
            "# TYPE target_info gauge",
            "target_info{service_instance_id=\"host-1\",service_name=\"logflushmonitor\"} 1",
            "# HELP sqlserver_log_flushes_total Log flushes seen.",
            "# TYPE sqlserver_log_flushes_total counter",
            $"sqlserver_log_flushes_total{{sqlserver_database_name=\"say \\\"hi\\\"\\\\now\\nplease\",{Scope}}} 3",
            $"sqlserver_log_flushes_total{{sqlserver_database_name=\"tempdb\",{Scope}}} 4",
            "# HELP sqlserver_log_bytes_flushed_total Bytes hardened to the log.",
            "# TYPE sqlserver_log_bytes_flushed_total counter",
            $"sqlserver_log_bytes_flushed_total{{sqlserver_database_name=\"tempdb\",{Scope}}} 123456",
            "# HELP sqlserver_sessions_active Sessions\\\\open.",
            "# TYPE sqlserver_sessions_active gauge",
            $"sqlserver_sessions_active{{{Scope}}} 3",
            "# HELP sqlserver_log_space_used_ratio Fraction of log in use.",
            "# TYPE sqlserver_log_space_used_ratio gauge",
            $"sqlserver_log_space_used_ratio{{file_id=\"2\",primary=\"true\",{Scope}}} 0.25",
            "# HELP sqlserver_log_flush_write_size_bytes Size of each log flush.\\nOne line per flush.",
            "# TYPE sqlserver_log_flush_write_size_bytes histogram",
            $"sqlserver_log_flush_write_size_bytes_bucket{{sqlserver_database_name=\"sales\",{Scope},le=\"512\"}} 2",
            $"sqlserver_log_flush_write_size_bytes_bucket{{sqlserver_database_name=\"sales\",{Scope},le=\"1024\"}} 3",
            $"sqlserver_log_flush_write_size_bytes_bucket{{sqlserver_database_name=\"sales\",{Scope},le=\"2048\"}} 3",
            $"sqlserver_log_flush_write_size_bytes_bucket{{sqlserver_database_name=\"sales\",{Scope},le=\"4096\"}} 4",
            $"sqlserver_log_flush_write_size_bytes_bucket{{sqlserver_database_name=\"sales\",{Scope},le=\"8192\"}} 4",
            $"sqlserver_log_flush_write_size_bytes_bucket{{sqlserver_database_name=\"sales\",{Scope},le=\"16384\"}} 4",
            $"sqlserver_log_flush_write_size_bytes_bucket{{sqlserver_database_name=\"sales\",{Scope},le=\"32768\"}} 4",
            $"sqlserver_log_flush_write_size_bytes_bucket{{sqlserver_database_name=\"sales\",{Scope},le=\"49152\"}} 4",
            $"sqlserver_log_flush_write_size_bytes_bucket{{sqlserver_database_name=\"sales\",{Scope},le=\"61440\"}} 5",
            $"sqlserver_log_flush_write_size_bytes_bucket{{sqlserver_database_name=\"sales\",{Scope},le=\"+Inf\"}} 6",
            $"sqlserver_log_flush_write_size_bytes_sum{{sqlserver_database_name=\"sales\",{Scope}}} 137160",
            $"sqlserver_log_flush_write_size_bytes_count{{sqlserver_database_name=\"sales\",{Scope}}} 6",
            string.Empty,
        ]);
        Assert.Equal(expected, text);
    }
}
