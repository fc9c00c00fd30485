namespace LogFlushMonitor.Prometheus.Http;

/// <summary>Where and how <see cref="PrometheusHttpServer"/> listens.</summary>
public sealed class PrometheusHttpServerOptions
{
    /// <summary>Kestrel URLs, separated by <c>;</c>. Port 0 binds a free port (read it from <see cref="PrometheusHttpServer.Port"/>).</summary>
    public string Urls { get; set; } = "http://127.0.0.1:9464";

    /// <summary>Path of the scrape endpoint.</summary>
    public string ScrapePath { get; set; } = "/metrics";

    /// <summary>Path of the liveness endpoint.</summary>
    public string HealthPath { get; set; } = "/healthz";

    /// <summary>Path of the readiness endpoint.</summary>
    public string ReadyPath { get; set; } = "/readyz";

    /// <summary>Compresses the scrape response when the scraper sends <c>Accept-Encoding: gzip</c>.</summary>
    public bool EnableGzip { get; set; } = true;

    /// <summary>How fast a scraper must take the scrape's text; see <see cref="ScrapeSendLimits"/>.</summary>
    public ScrapeSendLimits SendLimits { get; set; } = new();
}
