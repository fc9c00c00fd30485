using System.CommandLine;
using LogFlushMonitor.Analysis.Commands;
using System.Globalization;
using System.Net.Sockets;
using LogFlushMonitor.Configuration;
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
        // A string, read by the same number rule as Sources:Simulate:Speed: System.CommandLine's own double parsing takes
        // "1,5" as 15 and answers "fast" with a .NET type name.
        var speed = new Option<string?>("--speed") { Description = "Pace of --simulate or --replay: 1 = real time, 10 = ten times faster, 0 = as fast as possible (replay only). A dot, never a comma: 2.5." };
        var urls = new Option<string?>("--urls") { Description = $"HTTP listener for /metrics, /healthz, /readyz (Http:Urls, default {new HttpOptions().Urls})." };
        var shard = new Option<string?>("--shard") { Description = "i/n: this replica watches shard i of n of the SQL Server instances (Sources:SqlServer:Shard), chosen by a stable hash of their names." };
        var command = new Command("run", "Run the monitor until stopped. Any configuration key can also be given as --Section:Key=value.")
        {
            simulate, replay, speed, urls, shard,
        };
        command.TreatUnmatchedTokensAsErrors = false;
        command.SetAction(async (parse, _) =>
        {
            var overrides = new Dictionary<string, string?>();
            if (MissingValue(parse, simulate, replay, speed, urls, shard) is { } missing)
            {
                await parse.Error().WriteLineAsync(missing).ConfigureAwait(false);
                return ExitCodes.Configuration;
            }

            if (SpeedProblem(parse.GetValue(speed), parse.GetValue(simulate) is not null, parse.GetValue(replay) is not null, out var pace) is { } speedProblem)
            {
                await parse.Error().WriteLineAsync(speedProblem).ConfigureAwait(false);
                return ExitCodes.Configuration;
            }

            if (parse.GetValue(simulate) is { } scenario)
            {
                overrides["Sources:Simulate:Scenario"] = scenario;
                if (pace is { } x)
                {
                    overrides["Sources:Simulate:Speed"] = x.ToString(CultureInfo.InvariantCulture);
                }
            }

            if (parse.GetValue(replay) is { } file)
            {
                overrides["Sources:Replay:Path"] = file.FullName;
                if (pace is { } x)
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
                await parse.Error().WriteLineAsync($"Unknown argument '{bad}'. Options are listed by `logflushmonitor run --help`; configuration keys are given as --Section:Key=value.").ConfigureAwait(false);
                return ExitCodes.Configuration;
            }

            // In-process (a test's writers) the log lines go to the same writer as the errors; from Main, to the console as always.
            var error = parse.Error();
            return await RunHostAsync(unmatched, overrides, error, log: ReferenceEquals(error, Console.Error) ? null : error).ConfigureAwait(false);
        });
        return command;
    }

    /// <summary>
    /// The usage error for an option followed by another option instead of its value (<c>run --simulate --urls X</c>
    /// would otherwise take "--urls" as the scenario and call X an unknown argument), or null.
    /// </summary>
    internal static string? MissingValue(ParseResult parse, params Option[] options)
    {
        foreach (var option in options)
        {
            if (parse.GetResult(option) is { Tokens: [{ Value: var value }, ..] } && value.Length > 1 && value[0] == '-' && !char.IsAsciiDigit(value[1]))
            {
                var what = option.Name switch
                {
                    "--simulate" => $"a scenario: {string.Join(", ", Simulation.SimulationScenarios.Names)} (e.g. --simulate mixed)",
                    "--replay" => "the path of a recording (e.g. --replay run.ndjson)",
                    "--speed" => "a number (e.g. --speed 10)",
                    "--urls" => "a listener address (e.g. --urls http://127.0.0.1:9464)",
                    "--shard" => "i/n (e.g. --shard 0/2)",
                    _ => "a value",
                };
                return $"{option.Name} needs {what}; it was followed by '{LogEscaping.Escape(value)}' instead.";
            }
        }

        return null;
    }

    /// <summary>
    /// The usage error for <c>--speed</c> <paramref name="text"/>, or null with the pace in <paramref name="pace"/> (null
    /// when not given). The value follows the number rule of the settings it sets (<see cref="Numbers"/>: a dot, never a
    /// comma); its range is theirs, checked with the rest of the configuration. Without --simulate or --replay it would
    /// pace nothing, so it is refused rather than ignored.
    /// </summary>
    internal static string? SpeedProblem(string? text, bool simulate, bool replay, out double? pace)
    {
        pace = null;
        if (text is null)
        {
            return null;
        }

        if (!Numbers.TryParse(text, out var value) || !double.IsFinite(value))
        {
            return $"--speed '{LogEscaping.Escape(text)}' is not a number. Give {Numbers.Expected}: 1 = real time, 10 = ten times faster, 0 = as fast as possible (replay only).";
        }

        if (!simulate && !replay)
        {
            return "--speed paces --simulate or --replay, and neither is given. Add one of them, or set Sources:Simulate:Speed or Sources:Replay:Speed in the configuration.";
        }

        pace = value;
        return null;
    }

    /// <summary>
    /// Builds and runs the host until it stops; returns the exit code. Every configuration problem, whenever it shows
    /// (before the build, at validation, when the listener binds), is exit 2 with lines on <paramref name="error"/>
    /// (stderr by default) and no stack trace. <paramref name="configureServices"/> is for tests that run it in-process;
    /// <paramref name="log"/>, when given, takes the log lines instead of the console.
    /// </summary>
    internal static async Task<int> RunHostAsync(string[] configArgs, IReadOnlyDictionary<string, string?> overrides, TextWriter? error = null, Action<IServiceCollection>? configureServices = null, TextWriter? log = null)
    {
        error ??= Console.Error;
        IHost host;
        try
        {
            host = MonitorHost.Build(configArgs, overrides, configureServices, log: log);
        }
        catch (ConfigurationException e)
        {
            await ConfigurationLoader.WriteAsync(e, error).ConfigureAwait(false);
            return ExitCodes.Configuration;
        }
        catch (InvalidDataException e)
        {
            // The Serilog section, read when the logger is built.
            await error.WriteLineAsync($"Invalid configuration: {LogEscaping.Escape(e.Message)}").ConfigureAwait(false);
            return ExitCodes.Configuration;
        }

        using (host)
        {
            var exitCode = HostFailures.ExitCodeOf(host);
            var lifetime = host.Services.GetRequiredService<IHostApplicationLifetime>();
            try
            {
                await host.RunAsync().ConfigureAwait(false);
                return exitCode();
            }
            catch (OperationCanceledException) when (lifetime.ApplicationStopping.IsCancellationRequested)
            {
                // The host was told to stop while it was still starting (a component failed at once, or SIGTERM came
                // early): the HTTP server, which starts last, gives up binding with a cancellation. That is a stop, not a
                // crash: the exit code says why, as after any other stop.
                return exitCode();
            }
            catch (OptionsValidationException e)
            {
                await ConfigurationLoader.WriteAsync(new ConfigurationException([.. e.Failures], []), error).ConfigureAwait(false);
                return ExitCodes.Configuration;
            }
            catch (InvalidOperationException e) when (e.InnerException is OptionsValidationException or FormatException)
            {
                await error.WriteLineAsync("Invalid configuration: " + LogEscaping.Escape(e.InnerException!.Message)).ConfigureAwait(false);
                return ExitCodes.Configuration;
            }
            catch (SocketException e)
            {
                // Kestrel reports an address this host does not have (http://8.8.8.8:9464) as a SocketException.
                await error.WriteLineAsync(
                    $"Could not start: Http:Urls cannot be listened on ({LogEscaping.Escape(e.Message.TrimEnd('.'))}, {e.SocketErrorCode}). "
                    + "Give an address this host has, e.g. http://127.0.0.1:9464, or http://0.0.0.0:9464 for every interface (Http:Urls, --urls, LOGFLUSHMONITOR__HTTP__URLS).").ConfigureAwait(false);
                return ExitCodes.Configuration;
            }
            catch (IOException e)
            {
                // Kestrel reports an address in use as an IOException.
                await error.WriteLineAsync($"Could not start: {LogEscaping.Escape(e.Message.TrimEnd('.'))}. Is another process listening there? Change Http:Urls (--urls).").ConfigureAwait(false);
                return ExitCodes.Configuration;
            }
        }
    }
}
