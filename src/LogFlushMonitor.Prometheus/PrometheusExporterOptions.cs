namespace LogFlushMonitor.Prometheus;

/// <summary>How the Prometheus pull exporter collects and renders.</summary>
public sealed class PrometheusExporterOptions
{
    /// <summary>How long one collect of the SDK may take before the scrape fails (passed to the SDK's collect). Default 10 s.</summary>
    public TimeSpan CollectTimeout { get; set; } = TimeSpan.FromSeconds(10);

    /// <summary>
    /// Adds <c>otel_scope_name</c> and <c>otel_scope_version</c> labels to every sample. The specification
    /// requires them by default; turn off only when no two meters can emit the same metric name.
    /// </summary>
    public bool ScopeLabelsEnabled { get; set; } = true;

    /// <summary>Emits the resource attributes as one <c>target_info</c> gauge. Default on.</summary>
    public bool TargetInfoEnabled { get; set; } = true;

    /// <summary>Appends <c>_total</c> to counter names (specification default). Default on.</summary>
    public bool TotalSuffixEnabled { get; set; } = true;

    /// <summary>Writes the collect time (ms since the epoch) after each sample. Off by default: Prometheus then stamps the scrape time.</summary>
    public bool TimestampsEnabled { get; set; }
}
