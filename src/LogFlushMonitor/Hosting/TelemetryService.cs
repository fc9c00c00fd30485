using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Prometheus;
using LogFlushMonitor.Prometheus.Http;
using Microsoft.Extensions.Options;
using OpenTelemetry;
using OpenTelemetry.Exporter;
using OpenTelemetry.Metrics;
using OpenTelemetry.Resources;

namespace LogFlushMonitor.Hosting;

/// <summary>
/// Owns the OpenTelemetry MeterProvider (OpenTelemetry.Extensions.Hosting is not served here) and the HTTP
/// listener. Registered before the sources so it starts first and stops last: its stop exports the last
/// values over OTLP after the pipeline has drained.
/// </summary>
internal sealed partial class TelemetryService(
    IOptions<MonitorOptions> options,
    LogFlushMetrics metrics,
    ExportHealth exportHealth,
    TimeProvider time,
    Readiness readiness,
    ILoggerFactory loggerFactory,
    ILogger<TelemetryService> logger,
    OtlpEnvironment otlpEnvironment,
    LogFileFailures? logFailures = null) : IHostedService, IAsyncDisposable
{
    private MeterProvider? _provider;
    private PrometheusScrapeHandler? _scrapeHandler;
    private PrometheusHttpServer? _http;
    private bool _pushes;

    // OTLP exports the collector accepted (OtlpFailureHandler counts them): how the last push at shutdown is judged.
    private long _otlpAccepted;
    private readonly RuntimeGauges _runtimeGauges = new(logFailures);

    /// <summary>The addresses the HTTP listener bound (port 0 resolved), for tests and the start-up log.</summary>
    public IReadOnlyList<Uri> HttpAddresses => _http?.BoundAddresses ?? [];

    public async Task StartAsync(CancellationToken cancellationToken)
    {
        var o = options.Value;
        // The Meter exists before the provider subscribes to it; it counts what the view's limit folds away.
        metrics.SeriesLimit = o.Exporters.CardinalityLimit;
        metrics.Overflowed += overflow => LogSeriesOverflow(logger, overflow.Metric, overflow.Series, overflow.Limit, overflow.Folded);
        var builder = Sdk.CreateMeterProviderBuilder()
            .SetResourceBuilder(Resource(o))
            .AddMeter(LogFlushMetrics.MeterName)
            // The monitor's own health: GC heap, allocations, pauses, thread pool, process memory and CPU (on .NET 9+
            // the runtime's "System.Runtime" meter; docs/metrics.md lists each series).
            .AddRuntimeInstrumentation()
            .AddMeter(RuntimeGauges.MeterName)
            .AddView(instrument => StreamConfiguration(instrument, o.Exporters.CardinalityLimit, o.Exporters.Otlp.Enabled && o.Exporters.Otlp.HistogramAggregation == OtlpOptions.Exponential));

        if (o.Exporters.Prometheus.Enabled)
        {
            builder.AddPrometheusPullExporter(out var handler, p => p.ScopeLabelsEnabled = o.Exporters.Prometheus.ScopeLabels);
            _scrapeHandler = handler;
        }

        if (o.Exporters.Otlp.Enabled)
        {
            var otlp = o.Exporters.Otlp;
            foreach (var warning in OtlpEnvironmentCheck.Inspect(otlp, otlpEnvironment.Read).Warnings)
            {
                LogOtlpVariable(logger, warning);
            }

            // Checked at start by MonitorOptionsValidator: here the files load.
            var tls = OtlpTls.Load(otlpEnvironment.Read, out _);
            Uri? endpoint = null;
            var protocol = "";
            builder.AddOtlpExporter((exporter, reader) =>
            {
                // The exporter options arrive with OTEL_EXPORTER_OTLP_ENDPOINT, _HEADERS and _PROTOCOL applied (the
                // OpenTelemetry specification's variables); our own settings win only where they are given.
                if (!string.IsNullOrWhiteSpace(otlp.Protocol))
                {
                    exporter.Protocol = otlp.Protocol == "grpc" ? OtlpExportProtocol.Grpc : OtlpExportProtocol.HttpProtobuf;
                }

                if (!string.IsNullOrWhiteSpace(otlp.Endpoint))
                {
                    exporter.Endpoint = OtlpEndpoint(otlp.Endpoint, exporter.Protocol);
                }

                if (!string.IsNullOrWhiteSpace(otlp.Headers))
                {
                    exporter.Headers = otlp.Headers;
                }

                // Ours when given, else OTEL_EXPORTER_OTLP_TIMEOUT as the exporter read it (10 s by default).
                var timeout = otlp.Timeout ?? TimeSpan.FromMilliseconds(exporter.TimeoutMilliseconds);
                exporter.TimeoutMilliseconds = (int)timeout.TotalMilliseconds;
                endpoint = exporter.Endpoint;
                protocol = exporter.Protocol == OtlpExportProtocol.Grpc ? "grpc" : "http/protobuf";
                var target = exporter.Endpoint;
                exporter.HttpClientFactory = () => new HttpClient(new OtlpFailureHandler(exportHealth, target, time, logger, tls.CreateHandler(), () => Interlocked.Increment(ref _otlpAccepted)))
                {
                    Timeout = timeout,
                };
                reader.TemporalityPreference = MetricReaderTemporalityPreference.Cumulative;
                reader.PeriodicExportingMetricReaderOptions.ExportIntervalMilliseconds = (int)otlp.Interval.TotalMilliseconds;
                reader.PeriodicExportingMetricReaderOptions.ExportTimeoutMilliseconds = (int)timeout.TotalMilliseconds;
            });
            _pushes = true;
            _provider = builder.Build();
            LogOtlp(logger, endpoint!, protocol, otlp.Interval);
        }

        _provider ??= builder.Build();

        if (o.Http.Enabled)
        {
            // With Prometheus off (metrics pushed over OTLP only) the listener serves /healthz and /readyz alone.
            _http = new PrometheusHttpServer(
                _scrapeHandler,
                new PrometheusHttpServerOptions { Urls = o.Http.Urls, ScrapePath = o.Exporters.Prometheus.Path },
                readiness.Check,
                loggerFactory);
            await _http.StartAsync(cancellationToken).ConfigureAwait(false);
            foreach (var address in _http.BoundAddresses)
            {
                if (_scrapeHandler is not null)
                {
                    LogListening(logger, new Uri(address, o.Exporters.Prometheus.Path));
                }
                else
                {
                    LogHealthOnly(logger, new Uri(address, "/healthz"), new Uri(address, "/readyz"));
                }
            }
        }
    }

    public async Task StopAsync(CancellationToken cancellationToken)
    {
        // Last export first (the sources and the pipeline have stopped by now), then stop serving. Only a push
        // exporter has anything to flush. The provider's ForceFlush answers for every reader, and the pull reader's
        // always answers false (it has no exporter to call): with Prometheus on too, that false said nothing about
        // the push, which is judged by what its HTTP client saw instead: an export the collector accepted.
        if (_pushes && _provider is { } provider)
        {
            var accepted = Interlocked.Read(ref _otlpAccepted);
            var flushed = provider.ForceFlush((int)TimeSpan.FromSeconds(5).TotalMilliseconds);
            if (_scrapeHandler is not null ? Interlocked.Read(ref _otlpAccepted) == accepted : !flushed)
            {
                LogFlushFailed(logger);
            }
        }

        if (_http is not null)
        {
            await _http.StopAsync(cancellationToken).ConfigureAwait(false);
        }
    }

    public async ValueTask DisposeAsync()
    {
        if (_http is not null)
        {
            await _http.DisposeAsync().ConfigureAwait(false);
        }

        _scrapeHandler?.Dispose();
        _provider?.Dispose();
        _runtimeGauges.Dispose();
    }

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

    [LoggerMessage(EventId = 100, Level = LogLevel.Information, Message = "Serving metrics at {Url}")]
    private static partial void LogListening(ILogger logger, Uri url);

    [LoggerMessage(EventId = 101, Level = LogLevel.Information, Message = "Exporting metrics over OTLP to {Endpoint} ({Protocol}) every {Interval}")]
    private static partial void LogOtlp(ILogger logger, Uri endpoint, string protocol, TimeSpan interval);

    [LoggerMessage(EventId = 104, Level = LogLevel.Information, Message = "Serving health at {Health} and readiness at {Ready} (no /metrics: Exporters:Prometheus:Enabled is false)")]
    private static partial void LogHealthOnly(ILogger logger, Uri health, Uri ready);

    [LoggerMessage(EventId = 105, Level = LogLevel.Warning, Message = "{Problem}")]
    private static partial void LogOtlpVariable(ILogger logger, string problem);

    [LoggerMessage(EventId = 106, Level = LogLevel.Warning, Message = "{Metric} has {Series} series, more than the {Limit} that Exporters:CardinalityLimit keeps: {Folded} of them are folded into one series labelled otel_metric_overflow=\"true\" (counted in sqlserver.monitor.series.overflow). Set Exporters:CardinalityLimit to at least {Series} plus headroom, or watch fewer databases or counters per replica (--shard)")]
    private static partial void LogSeriesOverflow(ILogger logger, string metric, int series, int limit, int folded);

    [LoggerMessage(EventId = 102, Level = LogLevel.Warning, Message = "The last metric export did not finish within 5 s at shutdown, or the collector refused it (failures are counted in sqlserver.monitor.export.failures)")]
    private static partial void LogFlushFailed(ILogger logger);
}
