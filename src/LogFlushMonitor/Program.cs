using System.CommandLine;
using LogFlushMonitor.Cli;

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
        };

        // The host handles SIGTERM/Ctrl+C for `run`; commands that need cancellation register it themselves.
        return await root.Parse(args).InvokeAsync(new InvocationConfiguration { ProcessTerminationTimeout = null }).ConfigureAwait(false);
    }
}
