using System.CommandLine;
using LogFlushMonitor.Commands;

namespace LogFlushMonitor;

/// <summary>The <c>logflushmonitor</c> command line.</summary>
public static class Program
{
    /// <summary>Entry point.</summary>
    public static async Task<int> Main(string[] args)
    {
        var root = new RootCommand("LogFlushMonitor: watches how SQL Server hardens its transaction log, per database, and exports it as OpenTelemetry metrics.")
        {
            RunCommand.Create(),
            SimulateCommand.Create(),
            AnalyzeCommand.Create(),
            CheckCommand.Create(),
            SetupSqlCommand.Create(),
            WorkloadCommand.Create(),
            HealthCommand.Create(),
            ReportCommand.Create(),
        };

        var parse = root.Parse(args);
        if (parse.Errors.Count > 0)
        {
            // A usage error is exit code 2 for every command (System.CommandLine would return 1).
            foreach (var error in parse.Errors)
            {
                await Console.Error.WriteLineAsync(error.Message).ConfigureAwait(false);
            }

            await Console.Error.WriteLineAsync($"See `logflushmonitor {parse.CommandResult.Command.Name} --help`.").ConfigureAwait(false);
            return ExitCodes.Configuration;
        }

        // The host handles SIGTERM/Ctrl+C for `run`; commands that need cancellation register it themselves.
        return await parse.InvokeAsync(new InvocationConfiguration { ProcessTerminationTimeout = null }).ConfigureAwait(false);
    }
}
