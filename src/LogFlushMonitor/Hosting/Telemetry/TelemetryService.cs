using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Prometheus;
using OpenTelemetry.Exporter;
using OpenTelemetry.Metrics;
using OpenTelemetry.Resources;

namespace LogFlushMonitor.Hosting;

/// <summary>
/// The service's telemetry: <see cref="AddTelemetry"/> registers the MeterProvider in the host's container
/// (<c>AddOpenTelemetry()</c>: our meter, the runtime's, the Prometheus pull exporter and the OTLP push exporter as
/// configured); this hosted service, registered before the sources, starts before them and stops after them and the
/// pipeline: its stop pushes the last values over OTLP and says whether the collector took them.
/// </summary>
internal sealed partial class TelemetryService(
    IServiceProvider services,
    LogFlushMetrics metrics,
    OtlpPush push,
    ILogger<TelemetryService> logger,
    LogFileFailures? logFailures = null) : IHostedService, IDisposable
{
    private readonly RuntimeGauges _runtimeGauges = new(logFailures);
    private MeterProvider? _provider;

    /// <summary>
    /// Registers the MeterProvider and its readers in <paramref name="services"/>; returns the scrape handler to map
    /// when Prometheus is enabled.
    /// </summary>
    public static PrometheusScrapeHandler? AddTelemetry(IServiceCollection services, MonitorOptions o)
    {
        PrometheusScrapeHandler? handler = null;
        var push = new OtlpPush();
        services.AddSingleton(push);
        services.AddOpenTelemetry().WithMetrics(metrics =>
        {
            metrics
                .SetResourceBuilder(Resource(o))
                .AddMeter(LogFlushMetrics.MeterName)
                // The monitor's own health: GC heap, allocations, pauses, thread pool, process memory and CPU (on .NET 9+
                // the runtime's "System.Runtime" meter; docs/metrics.md lists each series).
                .AddRuntimeInstrumentation()
                .AddMeter(RuntimeGauges.MeterName)
                .AddView(instrument => StreamConfiguration(instrument, o.Exporters.CardinalityLimit, o.Exporters.Otlp.Enabled && o.Exporters.Otlp.HistogramAggregation == OtlpOptions.Exponential));

            if (o.Exporters.Prometheus.Enabled && o.Exporters.Prometheus.NativeHistograms)
            {
                // The exponential twins of our histograms (their classic streams come from the view above).
                metrics.AddPrometheusNativeHistogramView(instrument => NativeTwin(instrument, o.Exporters), addClassicStream: false);
            }

            if (o.Exporters.Prometheus.Enabled)
            {
                metrics.AddPrometheusPullExporter(out var scrape, p => p.ScopeLabelsEnabled = o.Exporters.Prometheus.ScopeLabels);
                handler = scrape;
            }

            if (o.Exporters.Otlp.Enabled)
            {
                // The exporter's HttpClient reports to services of the container: the provider's build (at start) runs
                // the callbacks below in order, so the first one hands the container to the second.
                IServiceProvider? container = null;
                ((IDeferredMeterProviderBuilder)metrics).Configure((sp, _) => container = sp);
                metrics.AddOtlpExporter((exporter, reader) => push.Configure(exporter, reader, o.Exporters.Otlp, container!));
            }
        });

        if (handler is { } h)
        {
            // Disposed with the container (after the provider, whose exporter it reads).
            services.AddSingleton(_ => h);
        }

        return handler;
    }

    public Task StartAsync(CancellationToken cancellationToken)
    {
        // Our instruments exist from here on (the host constructs every hosted service, this one with its LogFlushMetrics,
        // before it starts any); the MeterProvider is built by now (its hosted service started first), resolving it here
        // makes sure. The series limit and its log are set before the first collect: the HTTP server starts last and
        // the first OTLP export comes an interval after the provider's build.
        var o = services.GetRequiredService<Microsoft.Extensions.Options.IOptions<MonitorOptions>>().Value;
        metrics.SeriesLimit = o.Exporters.CardinalityLimit;
        metrics.Overflowed += overflow => LogSeriesOverflow(logger, overflow.Metric, overflow.Series, overflow.Limit, overflow.Folded);
        _provider = services.GetRequiredService<MeterProvider>();
        if (push.Endpoint is { } endpoint)
        {
            LogOtlp(logger, endpoint, push.Protocol, push.Interval);
        }

        return Task.CompletedTask;
    }

    public Task StopAsync(CancellationToken cancellationToken)
    {
        // Last export (the sources and the pipeline have stopped by now). Only a push exporter has anything to flush.
        // The provider's ForceFlush answers for every reader, and the pull reader's always answers false (it has no
        // exporter to call): with Prometheus on too, that false said nothing about the push, which is judged by what its
        // HTTP client saw instead: an export the collector accepted.
        if (push.Endpoint is not null && _provider is { } provider)
        {
            var accepted = push.Accepted;
            var flushed = provider.ForceFlush((int)TimeSpan.FromSeconds(5).TotalMilliseconds);
            var prometheus = services.GetService<PrometheusScrapeHandler>() is not null;
            if (prometheus ? push.Accepted == accepted : !flushed)
            {
                LogFlushFailed(logger);
            }
        }

        return Task.CompletedTask;
    }

    public void Dispose() => _runtimeGauges.Dispose();

    /// <summary>
    /// Series kept per runtime instrument. The SDK allocates every stream's table of series at its full limit up front
    /// (about 2000 x 250 bytes at the default), and the runtime's instruments have a handful of series each (GC
    /// generations, CPU modes, exception types), so the runtime meters get a small limit of their own.
    /// </summary>
    internal const int RuntimeCardinalityLimit = 100;

    /// <summary>
    /// One view for every instrument (the SDK makes a stream per matching view, so there is only one): our instruments
    /// get the configured cardinality limit (a view replaces the instrument's advice, so histograms carry their
    /// advised bucket bounds over explicitly); the runtime's get <see cref="RuntimeCardinalityLimit"/>, minus the ones
    /// <see cref="RuntimeGauges"/> replaces. With <paramref name="exponential"/> our histograms are base-2 exponential ones
    /// at their catalog scale (Exporters:Otlp:HistogramAggregation).
    /// </summary>
    internal static MetricStreamConfiguration? StreamConfiguration(System.Diagnostics.Metrics.Instrument instrument, int cardinalityLimit, bool exponential = false)
    {
        if (instrument.Meter.Name != LogFlushMetrics.MeterName)
        {
            return RuntimeGauges.DropRuntimeInstruments(instrument)
                ?? (instrument.Meter.Name is "System.Runtime" or RuntimeGauges.MeterName
                    ? new MetricStreamConfiguration { CardinalityLimit = RuntimeCardinalityLimit }
                    : null);
        }

        if (exponential && MetricCatalog.All.FirstOrDefault(f => f.Name == instrument.Name) is { ExponentialMaxScale: { } scale })
        {
            return new Base2ExponentialBucketHistogramConfiguration { MaxScale = scale, CardinalityLimit = cardinalityLimit };
        }

        double[]? bounds = instrument switch
        {
            System.Diagnostics.Metrics.Histogram<long> h => h.Advice?.HistogramBucketBoundaries?.Select(b => (double)b).ToArray(),
            System.Diagnostics.Metrics.Histogram<double> h => h.Advice?.HistogramBucketBoundaries?.ToArray(),
            _ => null,
        };
        return bounds is null
            ? new MetricStreamConfiguration { CardinalityLimit = cardinalityLimit }
            : new ExplicitBucketHistogramConfiguration { Boundaries = bounds, CardinalityLimit = cardinalityLimit };
    }

    /// <summary>
    /// The exponential twin of one of our histograms for the Prometheus protobuf exposition
    /// (Exporters:Prometheus:NativeHistograms): the catalog's scale unless NativeHistogramMaxScale is set, at most
    /// NativeHistogramMaxBuckets buckets, the same cardinality limit as the classic stream. Null for other instruments.
    /// </summary>
    internal static Base2ExponentialBucketHistogramConfiguration? NativeTwin(System.Diagnostics.Metrics.Instrument instrument, ExportersOptions exporters)
    {
        if (instrument.Meter.Name != LogFlushMetrics.MeterName
            || MetricCatalog.All.FirstOrDefault(f => f.Name == instrument.Name) is not { ExponentialMaxScale: { } scale })
        {
            return null;
        }

        return new Base2ExponentialBucketHistogramConfiguration
        {
            MaxScale = exporters.Prometheus.NativeHistogramMaxScale ?? scale,
            MaxSize = exporters.Prometheus.NativeHistogramMaxBuckets,
            CardinalityLimit = exporters.CardinalityLimit,
        };
    }

    /// <summary>For http/protobuf a bare collector address gets the metrics path the protocol defines.</summary>
    internal static Uri OtlpEndpoint(string endpoint, OtlpExportProtocol protocol)
    {
        var uri = new Uri(endpoint, UriKind.Absolute);
        return protocol != OtlpExportProtocol.Grpc && uri.AbsolutePath is "/" or "" ? new Uri(uri, "/v1/metrics") : uri;
    }

    /// <summary>
    /// The resource, lowest precedence first: our defaults (service.name logflushmonitor, the host name as
    /// service.instance.id), then OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME as the OpenTelemetry specification
    /// defines them, then ServiceName and ServiceInstanceId when they are configured.
    /// </summary>
    internal static ResourceBuilder Resource(MonitorOptions o)
    {
        var builder = ResourceBuilder.CreateEmpty()
            .AddService(
                serviceName: MonitorOptions.DefaultServiceName,
                serviceVersion: typeof(TelemetryService).Assembly.GetName().Version?.ToString(3),
                autoGenerateServiceInstanceId: false,
                serviceInstanceId: Environment.MachineName)
            .AddEnvironmentVariableDetector();
        var configured = new Dictionary<string, object>(StringComparer.Ordinal);
        if (!string.IsNullOrWhiteSpace(o.ServiceName))
        {
            configured["service.name"] = o.ServiceName;
        }

        if (!string.IsNullOrWhiteSpace(o.ServiceInstanceId))
        {
            configured["service.instance.id"] = o.ServiceInstanceId;
        }

        return builder.AddAttributes(configured);
    }

    [LoggerMessage(EventId = 101, Level = LogLevel.Information, Message = "Exporting metrics over OTLP to {Endpoint} ({Protocol}) every {Interval}")]
    private static partial void LogOtlp(ILogger logger, Uri endpoint, string protocol, TimeSpan interval);

    [LoggerMessage(EventId = 106, Level = LogLevel.Warning, Message = "{Metric} has {Series} series, more than the {Limit} that Exporters:CardinalityLimit keeps: {Folded} of them are folded into one series labelled otel_metric_overflow=\"true\" (counted in sqlserver.monitor.series.overflow). Set Exporters:CardinalityLimit to at least {Series} plus headroom, or watch fewer databases or counters per replica (--shard)")]
    private static partial void LogSeriesOverflow(ILogger logger, string metric, int series, int limit, int folded);

    [LoggerMessage(EventId = 102, Level = LogLevel.Warning, Message = "The last metric export did not finish within 5 s at shutdown, or the collector refused it (failures are counted in sqlserver.monitor.export.failures)")]
    private static partial void LogFlushFailed(ILogger logger);
}

/// <summary>
/// The OTLP push exporter as configured at start: where it sends, and how many exports the collector accepted
/// (<see cref="OtlpFailureHandler"/> counts them), which is how the last push at shutdown is judged.
/// </summary>
internal sealed class OtlpPush
{
    private long _accepted;

    /// <summary>The collector's endpoint, once the exporter is built; null without OTLP.</summary>
    public Uri? Endpoint { get; private set; }

    /// <summary><c>grpc</c> or <c>http/protobuf</c>.</summary>
    public string Protocol { get; private set; } = "";

    /// <summary>The export interval.</summary>
    public TimeSpan Interval { get; private set; }

    /// <summary>Exports the collector accepted.</summary>
    public long Accepted => Interlocked.Read(ref _accepted);

    /// <summary>
    /// Applies <paramref name="otlp"/> to the exporter's options, which arrive with OTEL_EXPORTER_OTLP_ENDPOINT, _HEADERS,
    /// _PROTOCOL and _TIMEOUT (and their _METRICS_ forms) applied, as the OpenTelemetry specification defines them: our
    /// own settings win only where they are given. The exporter's HTTP client counts and logs every failed export.
    /// </summary>
    public void Configure(OtlpExporterOptions exporter, MetricReaderOptions reader, OtlpOptions otlp, IServiceProvider services)
    {
        if (!string.IsNullOrWhiteSpace(otlp.Protocol))
        {
            exporter.Protocol = otlp.Protocol == "grpc" ? OtlpExportProtocol.Grpc : OtlpExportProtocol.HttpProtobuf;
        }

        if (!string.IsNullOrWhiteSpace(otlp.Endpoint))
        {
            exporter.Endpoint = TelemetryService.OtlpEndpoint(otlp.Endpoint, exporter.Protocol);
        }

        if (!string.IsNullOrWhiteSpace(otlp.Headers))
        {
            exporter.Headers = otlp.Headers;
        }

        // Ours when given, else OTEL_EXPORTER_OTLP_TIMEOUT as the exporter read it (10 s by default).
        var timeout = otlp.Timeout ?? TimeSpan.FromMilliseconds(exporter.TimeoutMilliseconds);
        exporter.TimeoutMilliseconds = (int)timeout.TotalMilliseconds;

        // Checked at start by MonitorOptionsValidator: here the files load.
        var tls = OtlpTls.Load(services.GetRequiredService<OtlpEnvironment>().Read, out _);
        var health = services.GetRequiredService<ExportHealth>();
        var time = services.GetRequiredService<TimeProvider>();
        var logger = services.GetRequiredService<ILogger<TelemetryService>>();
        var target = exporter.Endpoint;
        exporter.HttpClientFactory = () => new HttpClient(new OtlpFailureHandler(health, target, time, logger, tls.CreateHandler(), () => Interlocked.Increment(ref _accepted)))
        {
            Timeout = timeout,
        };
        reader.TemporalityPreference = MetricReaderTemporalityPreference.Cumulative;
        reader.PeriodicExportingMetricReaderOptions.ExportIntervalMilliseconds = (int)otlp.Interval.TotalMilliseconds;
        reader.PeriodicExportingMetricReaderOptions.ExportTimeoutMilliseconds = (int)timeout.TotalMilliseconds;
        Endpoint = exporter.Endpoint;
        Protocol = exporter.Protocol == OtlpExportProtocol.Grpc ? "grpc" : "http/protobuf";
        Interval = otlp.Interval;
    }
}
