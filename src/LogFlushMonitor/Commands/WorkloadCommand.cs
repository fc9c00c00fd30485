using System.CommandLine;
using LogFlushMonitor.Analysis.Commands;
using LogFlushMonitor.Core.Text;
using System.Runtime.InteropServices;
using LogFlushMonitor.Hosting;
using LogFlushMonitor.SqlServer;
using LogFlushMonitor.SqlServer.Connections;
using LogFlushMonitor.SqlServer.Fleet;
using LogFlushMonitor.Workload;

namespace LogFlushMonitor.Commands;

/// <summary>
/// <c>logflushmonitor workload</c>: drives a real SQL Server through the flush shapes of <see cref="WorkloadScenario"/>
/// (docs/workload.md). The server comes from the same configuration as <c>run</c> and <c>check</c>, or from
/// <c>--connection-string-env</c>. Exit 0 done (or stopped with Ctrl+C), 1 failure, 2 invalid options or configuration.
/// </summary>
internal static class WorkloadCommand
{
    public static Command Create()
    {
        var scenario = new Option<string[]>("--scenario")
        {
            Description = $"Scenario(s), run in turn: {string.Join(", ", WorkloadScenarios.Names)}, or all. Repeat the option or separate with commas.",
            Required = true,
            AllowMultipleArgumentsPerToken = true,
        };
        var duration = new Option<string?>("--duration") { Description = "How long each scenario runs, e.g. 90s, 5m, 00:10:00." };
        var rows = new Option<long?>("--rows") { Description = "Rows each scenario commits (over all sessions) before it ends; with --duration, whichever comes first." };
        var sessions = new Option<int>("--sessions") { Description = "Concurrent sessions (connections).", DefaultValueFactory = _ => 1 };
        var batchSize = new Option<int?>("--batch-size")
        {
            Description = $"Rows per transaction: batched and sequence-* (default {WorkloadScenarios.DefaultBatchSize}), big-transaction (default {WorkloadScenarios.DefaultBigTransactionRows:N0}; 0 = one transaction per session, committed at the end).",
        };
        var database = new Option<string>("--database") { Description = "The workload's own database (created when missing).", DefaultValueFactory = _ => WorkloadOptions.DefaultDatabase };
        var drop = new Option<bool>("--drop") { Description = "Drop the database at the end." };
        var connectionEnv = new Option<string?>("--connection-string-env") { Description = "Environment variable holding the connection string (instead of Sources:SqlServer:Instances)." };
        var instance = new Option<string?>("--instance") { Description = "Which configured instance (Sources:SqlServer:Instances:N:Name) to load; default the first." };
        var attempts = new Option<int>("--connect-attempts") { Description = "Attempts to reach the server before giving up.", DefaultValueFactory = _ => 5 };
        var overhead = new Option<bool>("--overhead")
        {
            Description = "Measure what the monitor's event session costs: run each scenario first with the session stopped, then with it started and its live stream read, and compare commits/s and commit latency. Uses a temporary session (<SessionName>_overhead, dropped afterwards).",
        };
        var command = new Command("workload", "Drive a real SQL Server with a workload of a known flush shape (row-at-a-time, batched, big transaction, delayed durability, sequences). Configuration keys can be given as --Section:Key=value.")
        {
            scenario, duration, rows, sessions, batchSize, database, drop, connectionEnv, instance, attempts, overhead,
        };
        command.TreatUnmatchedTokensAsErrors = false;
        command.SetAction(async (parse, cancellationToken) =>
        {
            var problems = new List<string>();
            var scenarios = ParseScenarios(parse.GetValue(scenario) ?? [], problems);
            TimeSpan? length = null;
            if (parse.GetValue(duration) is { } text)
            {
                if (DurationParser.TryParse(text, out var d))
                {
                    length = d;
                }
                else
                {
                    problems.Add($"--duration '{text}' is not a duration. Write e.g. 90s, 5m, 1h or 00:05:00.");
                }
            }

            var unmatched = parse.UnmatchedTokens.ToArray();
            if (unmatched.FirstOrDefault(t => !t.StartsWith("--", StringComparison.Ordinal) || !t.Contains(':', StringComparison.Ordinal)) is { } bad)
            {
                problems.Add($"Unknown argument '{bad}'. Options are listed by `logflushmonitor workload --help`; configuration keys are given as --Section:Key=value.");
            }

            // Every problem at once: the server's (which adds its own) and the options' (which never read the server; a run
            // only starts when there are none, so the server is then resolved).
            var server = ResolveServer(parse.GetValue(connectionEnv), parse.GetValue(instance), unmatched, problems, parse.Error());
            var options = new WorkloadOptions
            {
                Server = server!,
                Database = parse.GetValue(database) ?? WorkloadOptions.DefaultDatabase,
                Scenarios = scenarios,
                Duration = length,
                RowsPerScenario = parse.GetValue(rows),
                Sessions = parse.GetValue(sessions),
                BatchSize = parse.GetValue(batchSize),
                Drop = parse.GetValue(drop),
                ConnectAttempts = parse.GetValue(attempts),
                Overhead = parse.GetValue(overhead),
            };
            problems.AddRange(options.Validate());
            if (problems.Count > 0 || server is null)
            {
                await parse.Error().WriteLineAsync("Invalid options:").ConfigureAwait(false);
                foreach (var p in problems)
                {
                    await parse.Error().WriteLineAsync("  - " + PrintableText.Of(p)).ConfigureAwait(false);
                }

                return ExitCodes.Configuration;
            }

            return await RunAsync(options, parse.Out(), parse.Error(), parse.ErrorIsTerminal(), cancellationToken).ConfigureAwait(false);
        });
        return command;
    }

    private static async Task<int> RunAsync(WorkloadOptions options, TextWriter output, TextWriter error, bool errorIsTerminal, CancellationToken cancellationToken)
    {
        WorkloadRunner runner;
        try
        {
            runner = new WorkloadRunner(options);
        }
        catch (WorkloadException e)
        {
            await error.WriteLineAsync("Invalid configuration: " + PrintableText.Of(e.Message)).ConfigureAwait(false);
            return ExitCodes.Configuration;
        }

        // The first Ctrl+C (or SIGTERM) stops cleanly and prints what ran; a second Ctrl+C ends the process at once.
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        void OnSignal(PosixSignalContext context)
        {
            if (!stop.IsCancellationRequested)
            {
                context.Cancel = true;
                stop.Cancel();
            }
        }

        using var sigint = PosixSignalRegistration.Create(PosixSignal.SIGINT, OnSignal);
        using var sigterm = PosixSignalRegistration.Create(PosixSignal.SIGTERM, OnSignal);

        await error.WriteLineAsync(
            $"workload: {string.Join(", ", options.Scenarios.Select(WorkloadScenarios.NameOf))} on {PrintableText.Of(runner.Server)}, database {PrintableText.Of(options.Database)}, "
            + $"{options.Sessions} session(s){(options.Duration is { } d ? $", {WorkloadOutput.Duration(d)} each" : "")}{(options.RowsPerScenario is { } r ? $", {r:N0} rows each" : "")}"
            + (options.Overhead ? $", each run twice: without, then with the event session {PrintableText.Of(options.OverheadSessionName)}" : "") + ". Ctrl+C stops.").ConfigureAwait(false);
        var progress = new WorkloadProgressLine(error, terminal: errorIsTerminal, options.Time);
        var run = runner.RunAsync(stop.Token);
        await progress.FollowAsync(() => runner.Progress, run).ConfigureAwait(false);
        var result = await run.ConfigureAwait(false);

        if (result.Scenarios.Count > 0)
        {
            WorkloadOutput.WriteTable(output, result);
            WorkloadOutput.WriteWindows(output, result);
        }

        if (result.Outcome == WorkloadOutcome.Cancelled)
        {
            await error.WriteLineAsync("workload: stopped early (Ctrl+C); open transactions were rolled back.").ConfigureAwait(false);
        }

        if (result.Problem is { } problem)
        {
            await error.WriteLineAsync("workload: " + PrintableText.Of(problem)).ConfigureAwait(false);
        }

        if (result.Dropped)
        {
            await error.WriteLineAsync($"workload: dropped the database {PrintableText.Of(options.Database)}.").ConfigureAwait(false);
        }

        return result.Outcome switch
        {
            WorkloadOutcome.Completed or WorkloadOutcome.Cancelled when result.Problem is null => ExitCodes.Ok,
            WorkloadOutcome.Refused => ExitCodes.Configuration,
            _ => ExitCodes.Failure,
        };
    }

    private static List<WorkloadScenario> ParseScenarios(IEnumerable<string> values, List<string> problems)
    {
        var list = new List<WorkloadScenario>();
        foreach (var name in values.SelectMany(v => v.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)))
        {
            if (string.Equals(name, "all", StringComparison.OrdinalIgnoreCase))
            {
                list.AddRange(WorkloadScenarios.All);
            }
            else if (WorkloadScenarios.TryParse(name, out var s))
            {
                list.Add(s);
            }
            else
            {
                problems.Add($"--scenario '{name}' is not known. Use one or more of {string.Join(", ", WorkloadScenarios.Names)}, or all.");
            }
        }

        return list;
    }

    /// <summary>
    /// The server's data source, from --connection-string-env or the configured instance (the configuration <c>check</c>
    /// reads); null with a problem naming the setting.
    /// </summary>
    private static SqlServerDataSource? ResolveServer(string? variable, string? instanceName, string[] configArgs, List<string> problems, TextWriter error)
    {
        if (variable is not null)
        {
            var value = Environment.GetEnvironmentVariable(variable);
            if (string.IsNullOrWhiteSpace(value))
            {
                problems.Add($"--connection-string-env: the environment variable {variable} is not set or empty.");
                return null;
            }

            try
            {
                return SqlServerDataSource.Create(new SqlServerInstanceOptions { Name = "workload", ConnectionStringEnvironmentVariable = variable }, new SqlServerSourceOptions());
            }
            catch (InvalidOperationException e)
            {
                problems.Add($"--connection-string-env {variable}: {e.Message}");
                return null;
            }
        }

        // The configuration check reads, loaded and validated the same way (every instance's settings and connection).
        SqlServerSourceOptions options;
        LoadedConfiguration loaded;
        try
        {
            loaded = ConfigurationLoader.Load(configArgs, null, ConfigurationScope.SqlServer);
            options = loaded.Options.Sources.SqlServer;
            foreach (var warning in loaded.Warnings)
            {
                error.WriteLine("Warning: " + PrintableText.Of(warning));
            }
        }
        catch (ConfigurationException e)
        {
            problems.AddRange(e.Errors);
            return null;
        }

        var index = instanceName is null ? 0 : options.Instances.FindIndex(i => string.Equals(i.Name, instanceName, StringComparison.OrdinalIgnoreCase));
        if (options.Instances.Count == 0)
        {
            problems.Add($"No server: {SqlServerOptionsValidator.Section}:Instances is empty. Configure an instance (e.g. LOGFLUSHMONITOR__Sources__SqlServer__Instances__0__ConnectionStringEnvironmentVariable) or give --connection-string-env NAME.");
            return null;
        }

        if (index < 0)
        {
            problems.Add($"--instance {instanceName}: no instance of that name in {SqlServerOptionsValidator.Section}:Instances ({string.Join(", ", options.Instances.Select(i => i.Name))}).");
            return null;
        }

        try
        {
            return SqlServerDataSource.Create(options.Instances[index], options);
        }
        catch (InvalidOperationException e)
        {
            problems.Add(ConfigurationLoader.WithWrittenIndexes($"{SqlServerOptionsValidator.Section}:Instances:{index}: {e.Message}", loaded.Configuration));
            return null;
        }
    }
}
