using System.CommandLine;
using LogFlushMonitor.Analysis.Commands;
using LogFlushMonitor.Commands;

namespace LogFlushMonitor.AnalyzeTool;

/// <summary>
/// <c>logflushmonitor-analyze</c>: <c>logflushmonitor analyze</c> as a program of its own, with the same arguments,
/// output and exit codes (docs/analyze.md).
/// </summary>
public static class Program
{
    /// <summary>The program's name in usage lines.</summary>
    internal const string Name = "logflushmonitor-analyze";

    /// <summary>Entry point.</summary>
    public static async Task<int> Main(string[] args)
    {
        var root = AnalyzeCommand.Configure(new RootCommand(AnalyzeCommand.Description), ExitCodes.Of).WithVersionLine(Name, typeof(Program).Assembly);
        var parse = root.Parse(args);
        if (parse.Errors.Count > 0)
        {
            // A usage error is exit code 2, as in logflushmonitor (System.CommandLine would return 1).
            foreach (var error in parse.Errors)
            {
                await Console.Error.WriteLineAsync(error.Message).ConfigureAwait(false);
            }

            await Console.Error.WriteLineAsync($"Usage: {Name} <inputs>... [options]. See `{Name} --help`.").ConfigureAwait(false);
            return ExitCodes.Configuration;
        }

        // The command installs its own Ctrl+C handler (a cancelled analysis exits 1 with no report).
        return await parse.InvokeAsync(new InvocationConfiguration { ProcessTerminationTimeout = null }).ConfigureAwait(false);
    }
}
