using System.Globalization;
using Microsoft.Extensions.Options;

namespace LogFlushMonitor.Hosting;

/// <summary>
/// Validates <see cref="MonitorOptions"/> at start. Each message names the setting (as a configuration key
/// and as an environment variable) and says how to fix it.
/// </summary>
/// <param name="scenarioNames">The simulator's scenarios.</param>
/// <param name="environment">Reads an environment variable (the process's by default; tests give their own).</param>
public sealed partial class MonitorOptionsValidator(IReadOnlyCollection<string> scenarioNames, Func<string, string?>? environment = null) : IValidateOptions<MonitorOptions>
{
    /// <inheritdoc />
    public ValidateOptionsResult Validate(string? name, MonitorOptions options)
    {
        var errors = new List<string>();
        void Fail(string key, string problem, string fix) =>
            errors.Add($"{key} {problem}. {fix} (configuration key {key}, environment variable LOGFLUSHMONITOR__{key.Replace(":", "__", StringComparison.Ordinal).ToUpperInvariant()}).");

        var s = options.Sources;
        var simulate = !string.IsNullOrWhiteSpace(s.Simulate.Scenario);
        var replay = !string.IsNullOrWhiteSpace(s.Replay.Path);
        if (!simulate && !replay && s.SqlServer.Instances.Count == 0)
        {
            errors.Add("No source is configured: nothing would be monitored. Configure one: SQL Server instances under "
                + "Sources:SqlServer:Instances (Name and ConnectionStringEnvironmentVariable, see docs/sqlserver.md), "
                + "`run --simulate mixed` (Sources:Simulate:Scenario) for a simulated workload, or `run --replay <file.ndjson>` (Sources:Replay:Path) to replay a recording.");
        }

        if (simulate && !scenarioNames.Contains(s.Simulate.Scenario!))
        {
            Fail("Sources:Simulate:Scenario", $"is '{s.Simulate.Scenario}', which is not a scenario", $"Use one of: {string.Join(", ", scenarioNames)}");
        }

        if (s.Simulate.Speed is < 0.001 or > 1000 || double.IsNaN(s.Simulate.Speed))
        {
            Fail("Sources:Simulate:Speed", $"is {s.Simulate.Speed.ToString(CultureInfo.InvariantCulture)}", "Use a factor from 0.001 to 1000 (1 = real time)");
        }

        if (s.Simulate.Duration is { } d && (d <= TimeSpan.Zero || d > MaxSimulatedDuration))
        {
            Fail("Sources:Simulate:Duration", $"is {d}", $"Use a positive duration up to {MaxSimulatedDuration.Days} days such as 00:05:00, or leave it empty to run until stopped");
        }

        if (replay && !File.Exists(s.Replay.Path))
        {
            Fail("Sources:Replay:Path", $"names '{s.Replay.Path}', which does not exist", "Give the path of an NDJSON file written by `logflushmonitor simulate --out`");
        }

        if (s.Replay.Speed is < 0 or > 1_000_000 || (s.Replay.Speed > 0 && s.Replay.Speed < 0.001) || double.IsNaN(s.Replay.Speed))
        {
            Fail("Sources:Replay:Speed", $"is {s.Replay.Speed.ToString(CultureInfo.InvariantCulture)}", "Use 0 for as fast as possible or a factor from 0.001 to 1000000 (1 = recorded pace)");
        }

        var e = options.Exporters;
        if (e.Prometheus.Enabled && !options.Http.Enabled)
        {
            Fail("Exporters:Prometheus:Enabled", "is true while Http:Enabled is false", "Enable Http, or set Exporters:Prometheus:Enabled=false");
        }

        if (e.Prometheus.Enabled && (!ScrapePath().IsMatch(e.Prometheus.Path) || e.Prometheus.Path is "/healthz" or "/readyz"))
        {
            // Braces would make a route parameter, and /healthz or /readyz an ambiguous route (HTTP 500 on every request).
            Fail("Exporters:Prometheus:Path", $"is '{LogEscaping.Escape(e.Prometheus.Path)}'", "Use an absolute path of letters, digits and . _ ~ - / such as /metrics, other than /healthz and /readyz");
        }

        if (e.Otlp.Enabled)
        {
            // Empty settings leave the OTEL_EXPORTER_OTLP_* variables (or the exporter's defaults) in charge.
            // The endpoint is not quoted: a URL may carry credentials (http://user:password@host).
            if (!string.IsNullOrWhiteSpace(e.Otlp.Endpoint) && OtlpEnvironmentCheck.EndpointProblem(e.Otlp.Endpoint) is { } endpointProblem)
            {
                Fail("Exporters:Otlp:Endpoint", endpointProblem, "Set the collector's address, e.g. http://otel-collector:4317 for grpc or http://otel-collector:4318 for http/protobuf");
            }

            if (!string.IsNullOrWhiteSpace(e.Otlp.Protocol) && e.Otlp.Protocol is not ("grpc" or "http/protobuf"))
            {
                Fail("Exporters:Otlp:Protocol", $"is '{LogEscaping.Escape(e.Otlp.Protocol)}'", "Use grpc or http/protobuf");
            }

            if (e.Otlp.HistogramAggregation is not (OtlpOptions.Explicit or OtlpOptions.Exponential))
            {
                Fail("Exporters:Otlp:HistogramAggregation", $"is '{LogEscaping.Escape(e.Otlp.HistogramAggregation ?? "")}'", "Use explicit or exponential");
            }
            else if (e.Otlp.HistogramAggregation == OtlpOptions.Exponential && e.Prometheus.Enabled)
            {
                // One MeterProvider serves both exporters, so the aggregation is the same for both, and the text exposition
                // has no exponential histogram: Prometheus would lose the three histograms.
                Fail("Exporters:Otlp:HistogramAggregation", "is 'exponential' while Exporters:Prometheus:Enabled is true (the Prometheus text exposition serves classic histograms only)", "Set Exporters:Prometheus:Enabled to false for an OTLP-only setup, or use explicit");
            }

            // The OTEL_EXPORTER_OTLP_* variables the exporter reads by itself where these settings are empty.
            errors.AddRange(OtlpEnvironmentCheck.Inspect(e.Otlp, environment ?? Environment.GetEnvironmentVariable).Errors);

            // The TLS files of the OTEL_EXPORTER_OTLP_* variables: a file that cannot be used stops the start here,
            // not at the first export.
            using (OtlpTls.Load(environment ?? Environment.GetEnvironmentVariable, out var tlsProblems))
            {
                errors.AddRange(tlsProblems);
            }

            // The exporter takes both in whole milliseconds as an int.
            if (e.Otlp.Interval < TimeSpan.FromSeconds(1) || e.Otlp.Interval > TimeSpan.FromDays(1))
            {
                Fail("Exporters:Otlp:Interval", $"is {e.Otlp.Interval}", "Use 00:00:01 to 1.00:00:00");
            }

            if (e.Otlp.Timeout is { } timeout && (timeout < TimeSpan.FromMilliseconds(1) || timeout > TimeSpan.FromMinutes(10)))
            {
                Fail("Exporters:Otlp:Timeout", $"is {timeout}", "Use a timeout from 00:00:00.001 to 00:10:00 such as 00:00:10, or leave it empty for OTEL_EXPORTER_OTLP_TIMEOUT");
            }

            if (e.Otlp.Headers is { Length: > 0 } h && OtlpEnvironmentCheck.HeadersProblem(h) is { } headersProblem)
            {
                Fail("Exporters:Otlp:Headers", headersProblem, "Write it as key1=value1,key2=value2");
            }
        }

        if (e.CardinalityLimit is < 100 or > 1_000_000)
        {
            Fail("Exporters:CardinalityLimit", $"is {e.CardinalityLimit}", "Use 100 to 1000000: at least the watched databases of all instances plus one per instance (times the opted-in counters of one type)");
        }

        if (!e.Prometheus.Enabled && !e.Otlp.Enabled)
        {
            errors.Add("No exporter is enabled: metrics would go nowhere. Enable Exporters:Prometheus:Enabled (the default) or Exporters:Otlp:Enabled.");
        }

        if (options.Http.Enabled && options.Http.Urls.Split(';', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries).Length == 0)
        {
            // An empty list would let the web server fall back to its own default (http://localhost:5000).
            Fail("Http:Urls", "is empty", "Give the listener's URL, e.g. http://127.0.0.1:9464 (--urls), or http://0.0.0.0:9464 to listen on every interface");
        }

        if (options.Http.ReadinessGracePeriod < TimeSpan.Zero || options.Http.ReadinessGracePeriod > TimeSpan.FromDays(1))
        {
            Fail("Http:ReadinessGracePeriod", $"is {options.Http.ReadinessGracePeriod}", "Use 00:00:00 to 1.00:00:00 (default 00:02:00)");
        }

        if (options.Http.Enabled)
        {
            foreach (var url in options.Http.Urls.Split(';', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
            {
                if (!Uri.TryCreate(url, UriKind.Absolute, out var u) || u.Scheme != Uri.UriSchemeHttp)
                {
                    Fail("Http:Urls", $"contains '{LogEscaping.Escape(url)}', not an http URL", "Use e.g. http://127.0.0.1:9464, or http://0.0.0.0:9464 to listen on every interface");
                }
            }
        }

        errors.AddRange(LogProblems(options.Log));
        if (!string.IsNullOrWhiteSpace(options.Log.File) && LogFileProblem(options.Log.File) is { } logFileProblem)
        {
            Fail("Log:File", $"names '{LogEscaping.Escape(options.Log.File)}', {logFileProblem}", "Give a file in a directory the service's user can write, or leave Log:File empty to log to the console only");
        }

        if (options.Pipeline.ChannelCapacity is < 1024 or > 16_777_216)
        {
            Fail("Pipeline:ChannelCapacity", $"is {options.Pipeline.ChannelCapacity}", "Use a value from 1024 to 16777216");
        }

        return errors.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(errors);
    }

    /// <summary>The longest simulated run (the simulated clock must stay a representable date).</summary>
    internal static readonly TimeSpan MaxSimulatedDuration = TimeSpan.FromDays(3650);

    /// <summary>
    /// Problems of the Log section that the logger itself would throw on (a retained file count below 1) or that would
    /// crash a service later (a summary timer below a millisecond): checked before the logger is built, since they would
    /// otherwise end the start with a stack trace.
    /// </summary>
    internal static IReadOnlyList<string> LogProblems(LogOptions log)
    {
        var errors = new List<string>();
        void Fail(string key, string problem, string fix) =>
            errors.Add($"{key} {problem}. {fix} (configuration key {key}, environment variable LOGFLUSHMONITOR__{key.Replace(":", "__", StringComparison.Ordinal).ToUpperInvariant()}).");

        if (log.Format is not ("text" or "json"))
        {
            Fail("Log:Format", $"is '{LogEscaping.Escape(log.Format)}'", "Use text or json");
        }

        if (!Enum.TryParse<Serilog.Events.LogEventLevel>(log.Level, ignoreCase: true, out var level) || !Enum.IsDefined(level) || log.Level.Trim().All(char.IsAsciiDigit))
        {
            Fail("Log:Level", $"is '{LogEscaping.Escape(log.Level)}'", "Use Verbose, Debug, Information, Warning, Error or Fatal");
        }

        if (log.RetainedFiles is < 1 or > 3650)
        {
            Fail("Log:RetainedFiles", $"is {log.RetainedFiles}", "Use 1 to 3650 daily files (default 7)");
        }

        if (log.SummaryInterval != TimeSpan.Zero && (log.SummaryInterval < TimeSpan.FromSeconds(1) || log.SummaryInterval > TimeSpan.FromDays(1)))
        {
            Fail("Log:SummaryInterval", $"is {log.SummaryInterval}", "Use 0 to turn summaries off, or an interval from 00:00:01 to 1.00:00:00 (default 00:01:00)");
        }

        return errors;
    }

    [System.Text.RegularExpressions.GeneratedRegex("^/[A-Za-z0-9._~/-]*$")]
    private static partial System.Text.RegularExpressions.Regex ScrapePath();

    /// <summary>
    /// Why the log file cannot be written, or null. The file sink would otherwise fail silently (Serilog reports sink
    /// errors only to its SelfLog) and the service would run without the log it was told to keep. The directory is
    /// created as the sink would; the check writes and deletes a probe file there, since the sink adds a date to the name.
    /// </summary>
    internal static string? LogFileProblem(string file)
    {
        try
        {
            var full = Path.GetFullPath(file);
            if (Directory.Exists(full))
            {
                return "which is a directory";
            }

            var directory = Path.GetDirectoryName(full)!;
            Directory.CreateDirectory(directory);
            var probe = Path.Combine(directory, $".{Path.GetFileName(full)}.{Environment.ProcessId}.write-test");
            using (new FileStream(probe, FileMode.Create, FileAccess.Write, FileShare.None, 1, FileOptions.DeleteOnClose))
            {
            }

            return null;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or ArgumentException or NotSupportedException)
        {
            return $"which cannot be written ({e.Message.TrimEnd('.')})";
        }
    }
}
