extern alias AnalyzeTool;

namespace LogFlushMonitor.Tests.Cli;

/// <summary>Both programs of the repository run in-process (<see cref="InProcessProgram"/>).</summary>
internal static class InProcessCli
{
    /// <summary>Runs <c>logflushmonitor</c> with <paramref name="args"/>.</summary>
    public static Task<(int ExitCode, string StdOut, string StdErr)> RunAsync(params string[] args) =>
        InProcessProgram.RunAsync(global::LogFlushMonitor.Program.InvokeAsync, args);

    /// <summary>Runs <c>logflushmonitor-analyze</c> with <paramref name="args"/>.</summary>
    public static Task<(int ExitCode, string StdOut, string StdErr)> RunAnalyzeToolAsync(params string[] args) =>
        InProcessProgram.RunAsync(AnalyzeTool::LogFlushMonitor.AnalyzeTool.Program.InvokeAsync, args);
}
