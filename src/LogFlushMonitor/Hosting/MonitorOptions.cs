namespace LogFlushMonitor.Hosting;

/// <summary>
/// The service's configuration, bound from the configuration root: appsettings.json, then environment
/// variables <c>LOGFLUSHMONITOR__Section__Key</c>, then the command line (<c>--Section:Key=value</c>).
/// docs/configuration.md lists every key.
/// </summary>
public sealed class MonitorOptions
{
    /// <summary>Where samples come from.</summary>
    public SourcesOptions Sources { get; set; } = new();

    /// <summary>Where metrics go.</summary>
    public ExportersOptions Exporters { get; set; } = new();

    /// <summary>The HTTP listener for /metrics, /healthz and /readyz.</summary>
    public HttpOptions Http { get; set; } = new();

    /// <summary>Logging.</summary>
    public LogOptions Log { get; set; } = new();

    /// <summary>The event pipeline.</summary>
    public PipelineOptions Pipeline { get; set; } = new();

    /// <summary>The service.name used when neither ServiceName nor OTEL_SERVICE_NAME / OTEL_RESOURCE_ATTRIBUTES gives one.</summary>
    public const string DefaultServiceName = "logflushmonitor";

    /// <summary>service.name resource attribute (in target_info); when empty, OTEL_SERVICE_NAME, then service.name in OTEL_RESOURCE_ATTRIBUTES, then logflushmonitor.</summary>
    public string? ServiceName { get; set; }

    /// <summary>service.instance.id resource attribute; the host name when empty.</summary>
    public string? ServiceInstanceId { get; set; }
}

/// <summary>The sources to run; at least one must be configured.</summary>
public sealed class SourcesOptions
{
    /// <summary>A simulated workload.</summary>
    public SimulateSourceOptions Simulate { get; set; } = new();

    /// <summary>Replay of a recorded or simulated NDJSON file.</summary>
    public ReplaySourceOptions Replay { get; set; } = new();

    /// <summary>Live SQL Server instances (validated by the SQL Server source itself).</summary>
    public SqlServer.SqlServerSourceOptions SqlServer { get; set; } = new();
}

/// <summary>Sources:Simulate.</summary>
public sealed class SimulateSourceOptions
{
    /// <summary>Scenario name (see <c>logflushmonitor simulate --help</c>); empty means off.</summary>
    public string? Scenario { get; set; }

    /// <summary>Speed factor: 1 is real time.</summary>
    public double Speed { get; set; } = 1;

    /// <summary>Seed of the simulation's random numbers.</summary>
    public int Seed { get; set; } = 1;

    /// <summary>How long to simulate; empty means until stopped.</summary>
    public TimeSpan? Duration { get; set; }
}

/// <summary>Sources:Replay.</summary>
public sealed class ReplaySourceOptions
{
    /// <summary>NDJSON file to replay; empty means off.</summary>
    public string? Path { get; set; }

    /// <summary>Speed factor: 1 replays at recorded pace, 0 as fast as possible.</summary>
    public double Speed { get; set; } = 1;

    /// <summary>Shift recorded timestamps so the replay starts now.</summary>
    public bool RebaseToNow { get; set; } = true;
}

/// <summary>Exporters.</summary>
public sealed class ExportersOptions
{
    /// <summary>The Prometheus scrape endpoint.</summary>
    public PrometheusOptions Prometheus { get; set; } = new();

    /// <summary>OTLP push export.</summary>
    public OtlpOptions Otlp { get; set; } = new();

    /// <summary>
    /// Series kept per metric (the SDK's cardinality limit; beyond it new series are folded into an overflow
    /// series, counted in sqlserver.monitor.series.overflow and logged). Needs at least the watched databases of all
    /// instances plus one per instance (times the opted-in counters of one type for sqlserver.performance.*).
    /// </summary>
    public int CardinalityLimit { get; set; } = 2000;
}

/// <summary>Exporters:Prometheus.</summary>
public sealed class PrometheusOptions
{
    /// <summary>Serve /metrics.</summary>
    public bool Enabled { get; set; } = true;

    /// <summary>Path of the scrape endpoint.</summary>
    public string Path { get; set; } = "/metrics";

    /// <summary>
    /// Adds the otel_scope_name and otel_scope_version labels to every sample, as the OpenTelemetry specification
    /// asks by default; false leaves them out (a third of the text at 10 instances x 100 databases).
    /// </summary>
    public bool ScopeLabels { get; set; } = true;
}

/// <summary>Exporters:Otlp.</summary>
public sealed class OtlpOptions
{
    /// <summary>Push metrics over OTLP.</summary>
    public bool Enabled { get; set; }

    /// <summary>Collector endpoint, e.g. http://otel-collector:4317 (grpc) or http://otel-collector:4318 (http/protobuf); when empty, OTEL_EXPORTER_OTLP_ENDPOINT, then the exporter's default (localhost).</summary>
    public string? Endpoint { get; set; }

    /// <summary><c>grpc</c> or <c>http/protobuf</c>; when empty, OTEL_EXPORTER_OTLP_PROTOCOL, then grpc.</summary>
    public string? Protocol { get; set; }

    /// <summary>Export interval.</summary>
    public TimeSpan Interval { get; set; } = TimeSpan.FromSeconds(15);

    /// <summary>Export timeout; when empty, OTEL_EXPORTER_OTLP_TIMEOUT (milliseconds), then 10 s.</summary>
    public TimeSpan? Timeout { get; set; }

    /// <summary>Extra headers, <c>key=value</c> pairs separated by commas (e.g. an API key); when empty, OTEL_EXPORTER_OTLP_HEADERS.</summary>
    public string? Headers { get; set; }

    /// <summary>
    /// <c>explicit</c> (the catalog's bucket bounds) or <c>exponential</c> (base-2 exponential histograms, the scale of each
    /// histogram in its catalog entry); exponential needs Exporters:Prometheus:Enabled=false, whose text serves classic
    /// histograms only.
    /// </summary>
    public string HistogramAggregation { get; set; } = Explicit;

    /// <summary>The default <see cref="HistogramAggregation"/>.</summary>
    public const string Explicit = "explicit";

    /// <summary>Base-2 exponential histograms over OTLP.</summary>
    public const string Exponential = "exponential";
}

/// <summary>Http.</summary>
public sealed class HttpOptions
{
    /// <summary>Serve /metrics (when enabled), /healthz and /readyz.</summary>
    public bool Enabled { get; set; } = true;

    /// <summary>Kestrel URLs separated by ';'. Use http://0.0.0.0:9464 in a container.</summary>
    public string Urls { get; set; } = "http://127.0.0.1:9464";

    /// <summary>How long a source instance may be down before /readyz answers 503 (docs/operations.md).</summary>
    public TimeSpan ReadinessGracePeriod { get; set; } = TimeSpan.FromMinutes(2);
}

/// <summary>Log.</summary>
public sealed class LogOptions
{
    /// <summary>Minimum level: Verbose, Debug, Information, Warning, Error, Fatal.</summary>
    public string Level { get; set; } = "Information";

    /// <summary><c>text</c> or <c>json</c> (one JSON object per line, for log shippers).</summary>
    public string Format { get; set; } = "text";

    /// <summary>Also write to this file, rolled daily; empty means console only.</summary>
    public string? File { get; set; }

    /// <summary>Daily files kept.</summary>
    public int RetainedFiles { get; set; } = 7;

    /// <summary>How often a per-database summary is logged; 0 turns it off.</summary>
    public TimeSpan SummaryInterval { get; set; } = TimeSpan.FromSeconds(60);
}

/// <summary>Pipeline.</summary>
public sealed class PipelineOptions
{
    /// <summary>Events the bounded channel holds before dropping (and counting) new ones.</summary>
    public int ChannelCapacity { get; set; } = 65536;
}
