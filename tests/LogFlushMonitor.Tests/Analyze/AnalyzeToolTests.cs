using System.Text.RegularExpressions;
using LogFlushMonitor.Tests.Cli;
using LogFlushMonitor.XEvent.TestSupport;

namespace LogFlushMonitor.Tests.Analyze;

/// <summary>
/// `logflushmonitor-analyze` (src/LogFlushMonitor.AnalyzeTool) is `logflushmonitor analyze` on its own: the same
/// report, the same errors and the same exit codes: both command lines run in this process (the help through the
/// executable, whose name it shows).
/// </summary>
public sealed partial class AnalyzeToolTests : IDisposable
{
    private readonly AnalyzeTestFiles _files = new();

    public void Dispose() => _files.Dispose();

    public static TheoryData<string> Formats => ["text", "json"];

    [Theory]
    [MemberData(nameof(Formats))]
    public async Task The_real_file_gives_the_same_report_as_logflushmonitor_analyze(string format)
    {
        var (toolCode, toolOut, toolErr) = await InProcessCli.RunAnalyzeToolAsync(TestData.RealXelFile, "--format", format, "--threads", "2");
        var (code, stdout, stderr) = await InProcessCli.RunAsync("analyze", TestData.RealXelFile, "--format", format, "--threads", "2");

        Assert.True(code == toolCode, $"exit {code} vs {toolCode}: {stderr} / {toolErr}");
        Assert.Contains("log_flush_start", stdout, StringComparison.Ordinal);
        Assert.Equal(WithoutTimings(stdout), WithoutTimings(toolOut));
        Assert.Equal(stderr, toolErr);
    }

    [Fact]
    public async Task A_rollover_set_with_a_damaged_file_gives_the_same_report_errors_and_exit_code_4()
    {
        var set = new List<string>();
        for (var f = 0; f < 3; f++)
        {
            var file = f;
            set.Add(_files.Write($"logflush_0_{133000000000000000L + file}.xel", w =>
            {
                for (var i = 0; i < 500; i++)
                {
                    w.LogFlushStart(AnalyzeTestFiles.Start.AddSeconds(file).AddMilliseconds(i), (uint)(5 + (i % 3)), $"db{i % 3}", (uint)(512 * (1 + (i % 7))), (ulong)i, (ulong)(file * 500 + i + 1));
                }
            }));
        }

        var bytes = await File.ReadAllBytesAsync(set[1]);
        var metadataLength = BitConverter.ToInt32(bytes, 0x200 + 0x10);
        BitConverter.GetBytes(0x7FFF_0000).CopyTo(bytes, 0x200 + metadataLength + 0x10);
        await File.WriteAllBytesAsync(set[1], bytes);

        foreach (var format in new[] { "text", "json" })
        {
            var (toolCode, toolOut, toolErr) = await InProcessCli.RunAnalyzeToolAsync(_files.Directory, "--format", format);
            var (code, stdout, stderr) = await InProcessCli.RunAsync("analyze", _files.Directory, "--format", format);

            Assert.Equal(4, code);
            Assert.Equal(4, toolCode);
            Assert.Contains($"error: {set[1]}: damaged:", toolErr, StringComparison.Ordinal);
            Assert.Equal(WithoutTimings(stdout), WithoutTimings(toolOut));
            Assert.Equal(stderr, toolErr);
        }
    }

    [Fact]
    public async Task Usage_errors_exit_2_naming_the_program_and_help_and_version_exit_0()
    {
        var (code, _, stderr) = await InProcessCli.RunAnalyzeToolAsync();
        Assert.Equal(2, code);
        Assert.Contains("Required argument missing", stderr, StringComparison.Ordinal);
        Assert.Contains("See `logflushmonitor-analyze --help`.", stderr, StringComparison.Ordinal);

        (code, _, stderr) = await InProcessCli.RunAnalyzeToolAsync(TestData.RealXelFile, "--format", "xml");
        Assert.Equal(2, code);
        Assert.Contains("--format 'xml' is not known. Use text or json.", stderr, StringComparison.Ordinal);

        (code, _, stderr) = await InProcessCli.RunAnalyzeToolAsync(Path.Combine(_files.Directory, "none*.xel"));
        Assert.Equal(2, code);
        Assert.Contains("no file matches this pattern", stderr, StringComparison.Ordinal);

        // A process: the usage line names the program as it was started, which in-process would be the test host.
        var (helpCode, help, _) = await CliProcess.RunDllAsync(CliProcess.AnalyzeToolDllPath, "--help");
        Assert.Equal(0, helpCode);
        Assert.Contains("logflushmonitor-analyze <inputs>... [options]", help, StringComparison.Ordinal);
        Assert.Contains("--threads", help, StringComparison.Ordinal);

        var (versionCode, version, _) = await InProcessCli.RunAnalyzeToolAsync("--version");
        Assert.Equal(0, versionCode);
        Assert.Matches(@"^logflushmonitor-analyze \d+\.\d+\.\d+\S* \(commit [0-9a-f]{7}\)\r?\n$", version);
    }

    /// <summary>The report without the wall-clock figures (read time and rate in text, elapsed seconds in JSON).</summary>
    private static string WithoutTimings(string report) => Timings().Replace(report, "<timing>");

    [GeneratedRegex(@"read in [0-9.]+ s \([0-9.,]+ [KMG]B/s\)|""elapsed_seconds"": [0-9.eE+-]+")]
    private static partial Regex Timings();
}
