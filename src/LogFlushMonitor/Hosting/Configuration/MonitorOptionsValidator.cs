using LogFlushMonitor.Configuration;
using Microsoft.Extensions.Options;

namespace LogFlushMonitor.Hosting;

/// <summary>
/// Validates <see cref="MonitorOptions"/> (all but Sources:SqlServer, which SqlServerOptionsValidator owns): the rules
/// written as attributes on the options, checked by the generated <see cref="MonitorOptionsRules"/>, then the rules
/// attributes cannot say: between settings, against the file system and the environment. Each message names the
/// setting (as a configuration key and as an environment variable) and says how to fix it.
/// </summary>
/// <param name="scenarioNames">The simulator's scenarios.</param>
/// <param name="environment">Reads an environment variable (the process's by default; tests give their own).</param>
public sealed partial class MonitorOptionsValidator(IReadOnlyCollection<string> scenarioNames, Func<string, string?>? environment = null) : IValidateOptions<MonitorOptions>
{
    /// <inheritdoc />
    public ValidateOptionsResult Validate(string? name, MonitorOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        var errors = new List<string>();
        if (new MonitorOptionsRules().Validate(SettingKeys.Root, options) is { Failed: true, Failures: { } failures })
        {
            errors.AddRange(failures);
        }

        void Fail(string key, string problem, string fix) => errors.Add($"{key} {problem}. {fix} ({SettingKeys.Where(key)}).");

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
            Fail("Sources:Simulate:Scenario", $"is '{LogEscaping.Escape(s.Simulate.Scenario!)}', which is not a scenario", $"Use one of: {string.Join(", ", scenarioNames)}");
        }

        if (replay && !File.Exists(s.Replay.Path))
        {
            Fail("Sources:Replay:Path", $"names '{LogEscaping.Escape(s.Replay.Path!)}', which does not exist", "Give the path of an NDJSON file written by `logflushmonitor simulate --out`");
        }

        foreach (var twice in options.Replicas.Behind.Select((b, i) => (b.Replica, Index: i)).GroupBy(b => b.Replica, StringComparer.OrdinalIgnoreCase).Where(g => g.Count() > 1))
        {
            Fail($"Replicas:Behind:{twice.Last().Index}:Replica", $"names '{LogEscaping.Escape(twice.Key)}' again (also Replicas:Behind:{twice.First().Index})", "Give each replica one threshold");
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

            if (e.Otlp.HistogramAggregation == OtlpOptions.Exponential && e.Prometheus.Enabled)
            {
                // One MeterProvider serves both exporters, so the aggregation is the same for both, and the text exposition
                // has no exponential histogram: Prometheus would lose the three histograms. (explicit or exponential is
                // the attribute's rule on OtlpOptions.HistogramAggregation.)
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

            if (e.Otlp.Headers is { Length: > 0 } h && OtlpEnvironmentCheck.HeadersProblem(h) is { } headersProblem)
            {
                Fail("Exporters:Otlp:Headers", headersProblem, "Write it as key1=value1,key2=value2");
            }
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

        if (!string.IsNullOrWhiteSpace(options.Log.File) && LogFileProblem(options.Log.File) is { } logFileProblem)
        {
            Fail("Log:File", $"names '{LogEscaping.Escape(options.Log.File)}', {logFileProblem}", "Give a file in a directory the service's user can write, or leave Log:File empty to log to the console only");
        }

        return errors.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(errors);
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

/// <summary>
/// The rules written as attributes on <see cref="MonitorOptions"/> and its sections (ranges, choices), checked by
/// generated code: no reflection, NativeAOT-safe. Sources:SqlServer has its own (SqlServerOptionsValidator).
/// </summary>
[OptionsValidator]
internal sealed partial class MonitorOptionsRules : IValidateOptions<MonitorOptions>;
