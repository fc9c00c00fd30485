using System.CommandLine;
using System.Diagnostics;
using LogFlushMonitor.Simulation;
using LogFlushMonitor.Simulation.Ndjson;

namespace LogFlushMonitor.Commands;

/// <summary><c>logflushmonitor simulate</c>: writes a simulated workload as NDJSON samples.</summary>
internal static class SimulateCommand
{
    public static Command Create()
    {
        var scenario = new Option<string>("--scenario") { Description = "Scenario: " + string.Join(", ", SimulationScenarios.Names), Required = true };
        var duration = new Option<string>("--duration") { Description = "Simulated time, e.g. 60s, 5m, 00:10:00.", DefaultValueFactory = _ => "60s" };
        var output = new Option<FileInfo>("--out") { Description = "NDJSON file to write.", Required = true };
        var seed = new Option<int>("--seed") { Description = "Random seed (the same seed gives the same file).", DefaultValueFactory = _ => 1 };
        var start = new Option<DateTime?>("--start") { Description = "Simulated start time (UTC, ISO-8601); default now." };
        var command = new Command("simulate", "Write a simulated workload (log flush and wait events, counter, wait-stats and file-stats samples) to an NDJSON file for `run --replay`.")
        {
            scenario, duration, output, seed, start,
        };
        command.SetAction(async (parse, cancellationToken) =>
        {
            var name = parse.GetValue(scenario)!;
            if (!SimulationScenarios.Names.Contains(name))
            {
                await Console.Error.WriteLineAsync($"Unknown scenario '{name}'. Use one of: {string.Join(", ", SimulationScenarios.Names)}.").ConfigureAwait(false);
                return ExitCodes.Configuration;
            }

            if (!DurationParser.TryParse(parse.GetValue(duration), out var length))
            {
                await Console.Error.WriteLineAsync($"--duration '{parse.GetValue(duration)}' is not a duration. Write e.g. 90s, 5m, 1h or 00:05:00.").ConfigureAwait(false);
                return ExitCodes.Configuration;
            }

            var file = parse.GetValue(output)!;
            var startUtc = parse.GetValue(start) is { } s ? DateTime.SpecifyKind(s.ToUniversalTime(), DateTimeKind.Utc) : DateTime.UtcNow;
            var watch = Stopwatch.StartNew();
            var simulation = SimulationScenarios.Create(name, new SimulationOptions { Seed = parse.GetValue(seed) });
            long samples;
            try
            {
                file.Directory?.Create();
                await using var stream = new FileStream(file.FullName, FileMode.Create, FileAccess.Write, FileShare.Read, 1 << 16, FileOptions.SequentialScan);
                using var writer = new NdjsonSampleWriter(stream);
                simulation.Run(startUtc, length, writer);
                writer.Flush();
                samples = writer.Lines;
            }
            catch (IOException e)
            {
                await Console.Error.WriteLineAsync($"Could not write {file.FullName}: {e.Message}").ConfigureAwait(false);
                return ExitCodes.Failure;
            }
            catch (UnauthorizedAccessException e)
            {
                await Console.Error.WriteLineAsync($"Could not write {file.FullName}: {e.Message}").ConfigureAwait(false);
                return ExitCodes.Failure;
            }

            await Console.Error.WriteLineAsync(
                $"Wrote {samples:N0} samples of scenario {name} ({length} simulated, instances {string.Join(", ", simulation.Instances)}) to {file.FullName} in {watch.Elapsed.TotalSeconds:0.0} s. "
                + $"Replay it with: logflushmonitor run --replay {file.FullName}").ConfigureAwait(false);
            return ExitCodes.Ok;
        });
        return command;
    }
}
