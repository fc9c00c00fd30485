using LogFlushMonitor.Analysis;
using LogFlushMonitor.Commands;

namespace LogFlushMonitor.Tests.Analyze;

/// <summary><c>analyze</c> run in this process on a stopped clock, so the read time (and the whole report) is the same on every run.</summary>
internal static class AnalyzeInProcess
{
    public static AnalyzeSettings Settings(IReadOnlyList<string> inputs, int threads) => new()
    {
        Inputs = inputs,
        Progress = ProgressMode.Never,
        Threads = threads,
        Time = new ManualTimeProvider(new DateTimeOffset(2026, 11, 23, 12, 0, 0, TimeSpan.Zero)),
    };

    /// <summary>The JSON report of <paramref name="inputs"/>.</summary>
    public static string Json(IReadOnlyList<string> inputs, int threads = 1)
    {
        var stdout = new StringWriter();
        AnalyzeRunner.Run(Settings(inputs, threads) with { Format = ReportFormat.Json }, ExitCodes.Of, stdout, TextWriter.Null, CancellationToken.None);
        return stdout.ToString();
    }

    /// <summary>The text report of <paramref name="inputs"/>.</summary>
    public static string Text(IReadOnlyList<string> inputs, int threads = 1)
    {
        var stdout = new StringWriter();
        AnalyzeRunner.Run(Settings(inputs, threads), ExitCodes.Of, stdout, TextWriter.Null, CancellationToken.None);
        return stdout.ToString();
    }
}
