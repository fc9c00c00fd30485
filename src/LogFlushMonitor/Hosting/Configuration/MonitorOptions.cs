using LogFlushMonitor.Configuration;
using Microsoft.Extensions.Options;

namespace LogFlushMonitor.Hosting;

/// <summary>
/// The service's configuration, bound from the configuration root: appsettings.json, then environment
/// variables <c>LOGFLUSHMONITOR__Section__Key</c>, then the command line (<c>--Section:Key=value</c>).
/// docs/configuration.md lists every key (a test compares its table with the generated schema). Defaults are written
/// once, here; ranges and choices as attributes (<see cref="SettingRuleAttribute"/>), checked by the generated
/// validator; <see cref="MonitorOptionsValidator"/> adds the rules between settings.
/// </summary>
[SettingsSection]
public sealed partial class MonitorOptions
{
    /// <summary>Where samples come from.</summary>
    [ValidateObjectMembers]
    public SourcesOptions Sources { get; set; } = new();

    /// <summary>Where metrics go.</summary>
    [ValidateObjectMembers]
    public ExportersOptions Exporters { get; set; } = new();

    /// <summary>The HTTP listener for /metrics, /healthz and /readyz.</summary>
    [ValidateObjectMembers]
    public HttpOptions Http { get; set; } = new();

    /// <summary>Logging.</summary>
    [ValidateObjectMembers]
    public LogOptions Log { get; set; } = new();

    /// <summary>The event pipeline.</summary>
    [ValidateObjectMembers]
    public PipelineOptions Pipeline { get; set; } = new();

    /// <summary>How far behind an availability replica may fall before its alert fires (sqlserver.replica.behind.threshold).</summary>
    [ValidateObjectMembers]
    public ReplicasOptions Replicas { get; set; } = new();

    /// <summary>The service.name used when neither ServiceName nor OTEL_SERVICE_NAME / OTEL_RESOURCE_ATTRIBUTES gives one.</summary>
    public const string DefaultServiceName = "logflushmonitor";

    /// <summary>service.name resource attribute (in target_info); when empty, OTEL_SERVICE_NAME, then service.name in OTEL_RESOURCE_ATTRIBUTES, then logflushmonitor.</summary>
    public string? ServiceName { get; set; }

    /// <summary>service.instance.id resource attribute; the host name when empty.</summary>
    public string? ServiceInstanceId { get; set; }
}

/// <summary>The sources to run; at least one must be configured.</summary>
[SettingsSection]
public sealed partial class SourcesOptions
{
    /// <summary>A simulated workload.</summary>
    [ValidateObjectMembers]
    public SimulateSourceOptions Simulate { get; set; } = new();

    /// <summary>Replay of a recorded or simulated NDJSON file.</summary>
    [ValidateObjectMembers]
    public ReplaySourceOptions Replay { get; set; } = new();

    /// <summary>Live SQL Server instances (validated by the SQL Server source's own validator, SqlServerOptionsValidator).</summary>
#pragma warning disable SYSLIB1212 // deliberately not [ValidateObjectMembers]: SqlServerOptionsValidator checks these attributes, with its rules between settings
    public SqlServer.SqlServerSourceOptions SqlServer { get; set; } = new();
#pragma warning restore SYSLIB1212
}

/// <summary>Sources:Simulate.</summary>
[SettingsSection]
public sealed partial class SimulateSourceOptions
{
    /// <summary>Scenario name (see <c>logflushmonitor simulate --help</c>); empty means off.</summary>
    public string? Scenario { get; set; }

    /// <summary>Speed factor: 1 is real time.</summary>
    [SettingRange(0.001, 1000, Hint = "1 = real time")]
    public double Speed { get; set; } = 1;

    /// <summary>Seed of the simulation's random numbers.</summary>
    public int Seed { get; set; } = 1;

    /// <summary>How long to simulate; empty means until stopped.</summary>
    [SettingRange("00:00:00.001", "3650.00:00:00", Hint = "such as 00:05:00, or leave it empty to run until stopped; the simulated clock must stay a date")]
    public TimeSpan? Duration { get; set; }
}

/// <summary>Sources:Replay.</summary>
[SettingsSection]
public sealed partial class ReplaySourceOptions
{
    /// <summary>NDJSON file to replay; empty means off.</summary>
    public string? Path { get; set; }

    /// <summary>Speed factor: 1 replays at recorded pace, 0 as fast as possible.</summary>
    [SettingRange(0.001, 1000000, AllowZero = true, Hint = "0 = as fast as possible, 1 = the recorded pace")]
    public double Speed { get; set; } = 1;

    /// <summary>Shift recorded timestamps so the replay starts now.</summary>
    public bool RebaseToNow { get; set; } = true;
}

/// <summary>Exporters.</summary>
[SettingsSection]
public sealed partial class ExportersOptions
{
    /// <summary>The Prometheus scrape endpoint.</summary>
    [ValidateObjectMembers]
    public PrometheusOptions Prometheus { get; set; } = new();

    /// <summary>OTLP push export.</summary>
    [ValidateObjectMembers]
    public OtlpOptions Otlp { get; set; } = new();

    /// <summary>
    /// Series kept per metric (the SDK's cardinality limit; beyond it new series are folded into an overflow
    /// series, counted in sqlserver.monitor.series.overflow and logged). Needs at least the watched databases of all
    /// instances plus one per instance (times the opted-in counters of one type for sqlserver.performance.*).
    /// </summary>
    [SettingRange(100, 1000000, Hint = "at least the watched databases of all instances plus one per instance, times the opted-in counters of one type")]
    public int CardinalityLimit { get; set; } = 2000;
}

/// <summary>Exporters:Prometheus.</summary>
[SettingsSection]
public sealed partial class PrometheusOptions
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

    /// <summary>
    /// Native histograms in the protobuf exposition (served to a Prometheus started with
    /// --enable-feature=native-histograms): each of the three histograms also gets a base-2 exponential twin, and the
    /// protobuf histograms carry its buckets beside the classic ones. The text exposition is unchanged. Off by default:
    /// the twin costs a second aggregation per measurement and memory per series, and a Prometheus 2.42 to 2.44 with
    /// the feature on then keeps the native histograms only (no _bucket series for the dashboard's classic queries).
    /// </summary>
    public bool NativeHistograms { get; set; }

    /// <summary>
    /// The native histograms' highest schema (buckets per doubling: 2^schema); empty: each histogram's catalog scale
    /// (4 for the write size, 3 for the durations). The SDK lowers it for a series whose values span more than
    /// <see cref="NativeHistogramMaxBuckets"/> buckets.
    /// </summary>
    [SettingRange(-4, 8, Hint = "Prometheus reads schemas -4 to 8; or leave it empty for 4 (write size) and 3 (durations)")]
    public int? NativeHistogramMaxScale { get; set; }

    /// <summary>Most native buckets per series (the SDK's MaxSize); past it the SDK halves the resolution.</summary>
    [SettingRange(2, 16384, Hint = "buckets per series; 160 spans 10 doublings at schema 4")]
    public int NativeHistogramMaxBuckets { get; set; } = 160;
}

/// <summary>Exporters:Otlp.</summary>
[SettingsSection]
public sealed partial class OtlpOptions
{
    /// <summary>Push metrics over OTLP.</summary>
    public bool Enabled { get; set; }

    /// <summary>Collector endpoint, e.g. http://otel-collector:4317 (grpc) or http://otel-collector:4318 (http/protobuf); when empty, OTEL_EXPORTER_OTLP_ENDPOINT, then the exporter's default (localhost).</summary>
    public string? Endpoint { get; set; }

    /// <summary><c>grpc</c> or <c>http/protobuf</c>; when empty, OTEL_EXPORTER_OTLP_PROTOCOL, then grpc.</summary>
    [SettingChoice("grpc", "http/protobuf", AllowEmpty = true, Hint = "or leave it empty for OTEL_EXPORTER_OTLP_PROTOCOL")]
    public string? Protocol { get; set; }

    /// <summary>Export interval.</summary>
    // The exporter takes it in whole milliseconds as an int.
    [SettingRange("00:00:01", "1.00:00:00")]
    public TimeSpan Interval { get; set; } = TimeSpan.FromSeconds(15);

    /// <summary>Export timeout; when empty, OTEL_EXPORTER_OTLP_TIMEOUT (milliseconds), then 10 s.</summary>
    [SettingRange("00:00:00.001", "00:10:00", Hint = "such as 00:00:10, or leave it empty for OTEL_EXPORTER_OTLP_TIMEOUT")]
    public TimeSpan? Timeout { get; set; }

    /// <summary>Extra headers, <c>key=value</c> pairs separated by commas (e.g. an API key); when empty, OTEL_EXPORTER_OTLP_HEADERS.</summary>
    [Secret]
    public string? Headers { get; set; }

    /// <summary>
    /// <c>explicit</c> (the catalog's bucket bounds) or <c>exponential</c> (base-2 exponential histograms, the scale of each
    /// histogram in its catalog entry); exponential needs Exporters:Prometheus:Enabled=false, whose text serves classic
    /// histograms only.
    /// </summary>
    [SettingChoice(Explicit, Exponential)]
    public string HistogramAggregation { get; set; } = Explicit;

    /// <summary>The default <see cref="HistogramAggregation"/>.</summary>
    public const string Explicit = "explicit";

    /// <summary>Base-2 exponential histograms over OTLP.</summary>
    public const string Exponential = "exponential";
}

/// <summary>Http.</summary>
[SettingsSection]
public sealed partial class HttpOptions
{
    /// <summary>Serve /metrics (when enabled), /healthz and /readyz.</summary>
    public bool Enabled { get; set; } = true;

    /// <summary>Kestrel URLs separated by ';'. Use http://0.0.0.0:9464 in a container.</summary>
    public string Urls { get; set; } = "http://127.0.0.1:9464";

    /// <summary>How long a source instance may be down before /readyz answers 503 (docs/operations.md).</summary>
    [SettingRange("00:00:00", "1.00:00:00")]
    public TimeSpan ReadinessGracePeriod { get; set; } = TimeSpan.FromMinutes(2);
}

/// <summary>Log.</summary>
[SettingsSection]
public sealed partial class LogOptions
{
    /// <summary>Minimum level: Verbose, Debug, Information, Warning, Error, Fatal.</summary>
    [SettingChoice("Verbose", "Debug", "Information", "Warning", "Error", "Fatal", IgnoreCase = true)]
    public string Level { get; set; } = "Information";

    /// <summary><c>text</c> or <c>json</c> (one JSON object per line, for log shippers).</summary>
    [SettingChoice("text", "json")]
    public string Format { get; set; } = "text";

    /// <summary>Also write to this file, rolled daily; empty means console only.</summary>
    public string? File { get; set; }

    /// <summary>Daily files kept.</summary>
    [SettingRange(1, 3650, Hint = "daily files")]
    public int RetainedFiles { get; set; } = 7;

    /// <summary>How often a per-database summary is logged; 0 turns it off.</summary>
    [SettingRange("00:00:01", "1.00:00:00", AllowZero = true, Hint = "0 turns summaries off")]
    public TimeSpan SummaryInterval { get; set; } = TimeSpan.FromSeconds(60);
}

/// <summary>Pipeline.</summary>
[SettingsSection]
public sealed partial class PipelineOptions
{
    /// <summary>Events the bounded channel holds before dropping (and counting) new ones.</summary>
    [SettingRange(1024, 16777216)]
    public int ChannelCapacity { get; set; } = 65536;
}

/// <summary>
/// Replicas: how far behind the primary an availability replica may fall (its time behind, the primary's
/// last_commit_time minus the copy's) before the shipped rules alert, by commit mode and per replica.
/// </summary>
[SettingsSection]
public sealed partial class ReplicasOptions
{
    /// <summary>A synchronous-commit replica further behind than this pages (SqlServerSyncReplicaBehind).</summary>
    [SettingRange("00:00:01", "7.00:00:00")]
    public TimeSpan SynchronousBehind { get; set; } = TimeSpan.FromSeconds(10);

    /// <summary>An asynchronous-commit replica further behind than this warns (SqlServerAsyncReplicaBehind).</summary>
    [SettingRange("00:00:01", "7.00:00:00")]
    public TimeSpan AsynchronousBehind { get; set; } = TimeSpan.FromSeconds(60);

    /// <summary>Thresholds of single replicas, whatever their mode (one that always lags over a slow link).</summary>
    [ValidateEnumeratedItems]
    public List<ReplicaBehindOptions> Behind { get; set; } = [];

    /// <summary>The thresholds the aggregation exports.</summary>
    public Core.Signals.ReplicaBehindThresholds Thresholds() => new(SynchronousBehind, AsynchronousBehind,
        Behind.GroupBy(b => b.Replica, StringComparer.OrdinalIgnoreCase).ToDictionary(g => g.Key, g => g.Last().Threshold, StringComparer.OrdinalIgnoreCase));
}

/// <summary>Replicas:Behind:N: one replica's threshold.</summary>
[SettingsSection]
public sealed partial class ReplicaBehindOptions
{
    /// <summary>The replica, as sys.availability_replicas.replica_server_name names it (compared ignoring case).</summary>
    [RequiredSetting("name the replica as sys.availability_replicas.replica_server_name does (the sqlserver.replica.name attribute)")]
    public string Replica { get; set; } = "";

    /// <summary>How far behind it may fall before its alert fires.</summary>
    [SettingRange("00:00:01", "7.00:00:00")]
    public TimeSpan Threshold { get; set; } = TimeSpan.FromSeconds(60);
}
