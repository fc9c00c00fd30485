namespace LogFlushMonitor.Prometheus;

/// <summary>The exposition formats the endpoint serves, chosen per scrape by its Accept header.</summary>
public enum PrometheusFormat
{
    /// <summary>Text format 0.0.4 (<see cref="PrometheusScrapeHandler.ContentType"/>): classic histograms only.</summary>
    Text,

    /// <summary>
    /// Length-delimited <c>io.prometheus.client.MetricFamily</c> messages (<see cref="PrometheusScrapeHandler.ProtobufContentType"/>):
    /// histograms carry their classic buckets and, with an exponential twin, native ones.
    /// </summary>
    Protobuf,
}
