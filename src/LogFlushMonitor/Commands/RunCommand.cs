using System.CommandLine;
using System.Globalization;
using LogFlushMonitor.Hosting;
using Microsoft.Extensions.Options;

namespace LogFlushMonitor.Commands;

/// <summary><c>logflushmonitor run</c>: the monitoring service.</summary>
internal static class RunCommand
{
    public static Command Create()
    {
        var simulate = new Option<string?>("--simulate") { Description = "Run a simulated workload (scenario name, e.g. mixed): no SQL Server needed." };
        var replay = new Option<FileInfo?>("--replay") { Description = "Replay an NDJSON recording (from `simulate --out`)." };
        var speed = new Option<double?>("--speed") { Description = "Pace of --simulate or --replay: 1 = real time, 10 = ten times faster, 0 = as fast as possible (replay only)." };
        var urls = new Option<string?>("--urls") { Description = "HTTP listener for /metrics, /healthz, /readyz (default http://127.0.0.1:9464)." };
        var shard = new Option<string?>("--shard") { Description = "i/n: this replica watches shard i of n of the SQL Server instances (Sources:SqlServer:Shard), chosen by a stable hash of their names." };
        var command = new Command("run", "Run the monitor until stopped. Any configuration key can also be given as --Section:Key=value.")
        {
            simulate, replay, speed, urls, shard,
        };
        command.TreatUnmatchedTokensAsErrors = false;
        command.SetAction(async (parse, _) =>
        {
            var overrides = new Dictionary<string, string?>();
            var s = parse.GetValue(speed);
            if (parse.GetValue(simulate) is { } scenario)
            {
                overrides["Sources:Simulate:Scenario"] = scenario;
                if (s is { } x)
                {
                    overrides["Sources:Simulate:Speed"] = x.ToString(CultureInfo.InvariantCulture);
                }
            }

            if (parse.GetValue(replay) is { } file)
            {
                overrides["Sources:Replay:Path"] = file.FullName;
                if (s is { } x)
                {
                    overrides["Sources:Replay:Speed"] = x.ToString(CultureInfo.InvariantCulture);
                }
            }

            if (parse.GetValue(urls) is { } u)
            {
                overrides["Http:Urls"] = u;
            }

            if (parse.GetValue(shard) is { } sh)
            {
                overrides["Sources:SqlServer:Shard"] = sh;
            }

            var unmatched = parse.UnmatchedTokens.ToArray();
            var bad = unmatched.FirstOrDefault(t => !t.StartsWith("--", StringComparison.Ordinal) || !t.Contains(':', StringComparison.Ordinal));
            if (bad is not null)
            {
                await Console.Error.WriteLineAsync($"Unknown argument '{bad}'. Options are listed by `logflushmonitor run --help`; configuration keys are given as --Section:Key=value.").ConfigureAwait(false);
                return ExitCodes.Configuration;
            }

            return await RunHostAsync(unmatched, overrides).ConfigureAwait(false);
        });
        return command;
    }

    internal static async Task<int> RunHostAsync(string[] configArgs, IReadOnlyDictionary<string, string?> overrides)
    {
        IHost host;
        try
        {
            host = MonitorHost.Build(configArgs, overrides);
        }
        catch (ConfigurationException e)
        {
            await WriteInvalidConfigurationAsync(e.Errors, e.Warnings).ConfigureAwait(false);
            return ExitCodes.Configuration;
        }
        catch (Exception e) when (e is InvalidDataException or FormatException or IOException)
        {
            await Console.Error.WriteLineAsync($"Configuration could not be read: {e.Message}").ConfigureAwait(false);
            return ExitCodes.Configuration;
        }

        using (host)
        {
            try
            {
                var exitCode = HostFailures.ExitCodeOf(host);
                await host.RunAsync().ConfigureAwait(false);
                return exitCode();
            }
            catch (OptionsValidationException e)
            {
                await WriteInvalidConfigurationAsync(e.Failures.ToList(), []).ConfigureAwait(false);
                return ExitCodes.Configuration;
            }
            catch (InvalidOperationException e) when (e.InnerException is OptionsValidationException or FormatException)
            {
                await Console.Error.WriteLineAsync("Invalid configuration: " + e.InnerException!.Message).ConfigureAwait(false);
                return ExitCodes.Configuration;
            }
            catch (IOException e)
            {
                // Kestrel reports an address in use as an IOException.
                await Console.Error.WriteLineAsync($"Could not start: {e.Message.TrimEnd('.')}. Is another process listening there? Change Http:Urls (--urls).").ConfigureAwait(false);
                return ExitCodes.Configuration;
            }
        }
    }

    /// <summary>"Invalid configuration:" and one line per problem, then what was ignored: no stack trace.</summary>
    internal static async Task WriteInvalidConfigurationAsync(IReadOnlyList<string> errors, IReadOnlyList<string> warnings)
    {
        await Console.Error.WriteLineAsync("Invalid configuration:").ConfigureAwait(false);
        foreach (var error in errors)
        {
            await Console.Error.WriteLineAsync("  - " + error).ConfigureAwait(false);
        }

        foreach (var warning in warnings)
        {
            await Console.Error.WriteLineAsync("Warning: " + warning).ConfigureAwait(false);
        }
    }
}
