using LogFlushMonitor.Prometheus.Exposition;
using OpenTelemetry;
using OpenTelemetry.Metrics;
using OpenTelemetry.Resources;

namespace LogFlushMonitor.Prometheus;

/// <summary>
/// A pull-only OpenTelemetry metric exporter that renders each collected batch as Prometheus text
/// format 0.0.4, or as the protobuf exposition when a scrape asks for it. It exports only when a scrape asks (<see cref="PrometheusScrapeHandler"/>): the SDK
/// refuses periodic or flush-driven collects for pull exporters.
/// </summary>
[ExportModes(ExportModes.Pull)]
public sealed class PrometheusExporter : BaseExporter<Metric>, IPullMetricExporter
{
    private readonly PrometheusRenderer _renderer;
    private readonly ProtobufRenderer _protobuf;

    // Guards the target and the renderer: the SDK runs one collect at a time, but a collect another caller started
    // (the provider's ForceFlush) may still export after this exporter's own one returned.
    private readonly Lock _gate = new();
    private Utf8TextBuffer? _target;
    private PrometheusFormat _format;
    private bool _exported;
    private bool _collecting;
    private bool _disposed;

    /// <summary>Creates the exporter; register it through <see cref="PrometheusMeterProviderBuilderExtensions.AddPrometheusPullExporter"/>.</summary>
    public PrometheusExporter(PrometheusExporterOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        Options = options;
        _renderer = new PrometheusRenderer(options);
        _protobuf = new ProtobufRenderer(options);
    }

    /// <summary>The options this exporter renders with.</summary>
    public PrometheusExporterOptions Options { get; }

    /// <summary>Set by the SDK's reader: runs one collect, which calls <see cref="Export"/> on this thread.</summary>
    public Func<int, bool>? Collect { get; set; }

    /// <summary>Metric streams dropped because another stream already used their Prometheus name.</summary>
    public long DroppedDuplicateMetrics => _renderer.DroppedDuplicateMetrics + _protobuf.DroppedDuplicateMetrics;

    /// <inheritdoc />
    public override ExportResult Export(in Batch<Metric> batch)
    {
        lock (_gate)
        {
            // No target: a collect no scrape asked for (the provider's ForceFlush at shutdown); a pull exporter has
            // nothing to send, and the cumulative state stays in the SDK for the next scrape. Already exported: a
            // second collect ran before this scrape's one was over; its text is complete already.
            if (_target is null || _exported)
            {
                return ExportResult.Success;
            }

            Render(in batch, _target);
            _exported = true;
            return ExportResult.Success;
        }
    }

    private Resource Resource => ParentProvider?.GetResource() ?? Resource.Empty;

    private void Render(in Batch<Metric> batch, Utf8TextBuffer output)
    {
        if (_format == PrometheusFormat.Protobuf)
        {
            _protobuf.Render(in batch, Resource, output);
        }
        else
        {
            _renderer.Render(in batch, Resource, output);
        }
    }

    /// <summary>
    /// Collects synchronously, rendering into <paramref name="output"/> (which may drain as it fills) in
    /// <paramref name="format"/>. Callers serialise calls. False when the SDK's collect failed.
    /// </summary>
    internal bool CollectInto(Utf8TextBuffer output, int timeoutMilliseconds, PrometheusFormat format = PrometheusFormat.Text)
    {
        var collect = Collect ?? throw new InvalidOperationException("The exporter is not registered with a MeterProvider, or the provider was disposed.");
        lock (_gate)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            _target = output;
            _format = format;
            _exported = false;
            _collecting = true;
        }

        try
        {
            if (!collect(timeoutMilliseconds))
            {
                return false;
            }

            // Not exported: either there is no metric stream at all (the SDK then skips Export), or this call joined
            // a collect another caller had started and that had already exported. A second collect tells them apart.
            if (!Volatile.Read(ref _exported) && !collect(timeoutMilliseconds))
            {
                return false;
            }

            lock (_gate)
            {
                if (!_exported)
                {
                    // No metric streams at all: still expose target_info.
                    Render(new Batch<Metric>([], 0), output);
                    _exported = true;
                }
            }

            return true;
        }
        finally
        {
            lock (_gate)
            {
                _target = null;
                _collecting = false;
                if (_disposed)
                {
                    _renderer.Dispose();
                    _protobuf.Dispose();
                }
            }
        }
    }

    /// <inheritdoc />
    protected override void Dispose(bool disposing)
    {
        if (disposing)
        {
            lock (_gate)
            {
                // A collect in progress still renders: it returns the renderer's buffers when it ends.
                if (!_disposed && !_collecting)
                {
                    _renderer.Dispose();
                    _protobuf.Dispose();
                }

                _disposed = true;
            }
        }

        base.Dispose(disposing);
    }
}
