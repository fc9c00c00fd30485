using LogFlushMonitor.Prometheus.Exposition;
using OpenTelemetry;
using OpenTelemetry.Metrics;
using OpenTelemetry.Resources;

namespace LogFlushMonitor.Prometheus;

/// <summary>
/// A pull-only OpenTelemetry metric exporter that renders each collected batch as Prometheus text
/// format 0.0.4. It exports only when a scrape asks (<see cref="PrometheusScrapeHandler"/>): the SDK
/// refuses periodic or flush-driven collects for pull exporters.
/// </summary>
[ExportModes(ExportModes.Pull)]
public sealed class PrometheusExporter : BaseExporter<Metric>, IPullMetricExporter
{
    private readonly PrometheusRenderer _renderer;
    private Utf8TextBuffer? _target;
    private bool _exported;

    /// <summary>Creates the exporter; register it through <see cref="PrometheusMeterProviderBuilderExtensions.AddPrometheusPullExporter"/>.</summary>
    public PrometheusExporter(PrometheusExporterOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        Options = options;
        _renderer = new PrometheusRenderer(options);
    }

    /// <summary>The options this exporter renders with.</summary>
    public PrometheusExporterOptions Options { get; }

    /// <summary>Set by the SDK's reader: runs one collect, which calls <see cref="Export"/> on this thread.</summary>
    public Func<int, bool>? Collect { get; set; }

    /// <summary>Metric streams dropped because another stream already used their Prometheus name.</summary>
    public long DroppedDuplicateMetrics => _renderer.DroppedDuplicateMetrics;

    /// <inheritdoc />
    public override ExportResult Export(in Batch<Metric> batch)
    {
        var target = _target;
        if (target is null)
        {
            // A collect no scrape asked for (the provider's ForceFlush at shutdown): a pull exporter has nothing
            // to send, and the cumulative state it would render stays in the SDK for the next scrape.
            return ExportResult.Success;
        }

        _renderer.Render(in batch, Resource, target);
        _exported = true;
        return ExportResult.Success;
    }

    private Resource Resource => ParentProvider?.GetResource() ?? Resource.Empty;

    /// <summary>Collects synchronously into <paramref name="output"/>. Callers serialise calls.</summary>
    internal bool CollectInto(Utf8TextBuffer output, int timeoutMilliseconds)
    {
        var collect = Collect ?? throw new InvalidOperationException("The exporter is not registered with a MeterProvider, or the provider was disposed.");
        _target = output;
        _exported = false;
        try
        {
            if (!collect(timeoutMilliseconds))
            {
                return false;
            }

            if (!_exported)
            {
                // No metric streams at all: still expose target_info.
                _renderer.Render(new Batch<Metric>([], 0), Resource, output);
            }

            return true;
        }
        finally
        {
            _target = null;
        }
    }
}
