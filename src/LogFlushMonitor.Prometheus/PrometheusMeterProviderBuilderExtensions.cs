using OpenTelemetry.Metrics;

namespace LogFlushMonitor.Prometheus;

/// <summary>Registers the Prometheus pull exporter on a <see cref="MeterProviderBuilder"/>.</summary>
public static class PrometheusMeterProviderBuilderExtensions
{
    /// <summary>
    /// Adds a cumulative pull reader with a <see cref="PrometheusExporter"/> and returns the handler
    /// that scrapes it (serve it with <c>MapPrometheusScrapingEndpoint</c> on the app's own server).
    /// </summary>
    public static MeterProviderBuilder AddPrometheusPullExporter(
        this MeterProviderBuilder builder,
        out PrometheusScrapeHandler handler,
        Action<PrometheusExporterOptions>? configure = null)
    {
        ArgumentNullException.ThrowIfNull(builder);
        var options = new PrometheusExporterOptions();
        configure?.Invoke(options);

        var exporter = new PrometheusExporter(options);
        var reader = new BaseExportingMetricReader(exporter)
        {
            // Prometheus counters and histograms are cumulative by definition.
            TemporalityPreference = MetricReaderTemporalityPreference.Cumulative,
        };
        handler = new PrometheusScrapeHandler(exporter);
        return builder.AddReader(reader);
    }
}
