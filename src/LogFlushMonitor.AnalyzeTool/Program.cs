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
    public static Task<int> Main(string[] args) => InvokeAsync(args, Console.Out, Console.Error);

    /// <summary>The whole command line, writing to <paramref name="output"/> and <paramref name="error"/> (the console in <see cref="Main"/>; a test's writers in-process).</summary>
    internal static async Task<int> InvokeAsync(string[] args, TextWriter output, TextWriter error)
    {
        var root = AnalyzeCommand.Configure(new RootCommand(AnalyzeCommand.Description), ExitCodes.Of).WithVersionLine(Name, typeof(Program).Assembly);
        var parse = root.Parse(args);
        if (parse.Errors.Count > 0)
        {
            // A usage error is exit code 2, as in logflushmonitor (System.CommandLine would return 1).
            foreach (var problem in parse.Errors)
            {
                await error.WriteLineAsync(problem.Message).ConfigureAwait(false);
            }

            await error.WriteLineAsync($"Usage: {Name} <inputs>... [options]. See `{Name} --help`.").ConfigureAwait(false);
            return ExitCodes.Configuration;
        }

        // The command installs its own Ctrl+C handler (a cancelled analysis exits 1 with no report).
        return await parse.InvokeAsync(new InvocationConfiguration { ProcessTerminationTimeout = null, Output = output, Error = error }).ConfigureAwait(false);
    }
}
