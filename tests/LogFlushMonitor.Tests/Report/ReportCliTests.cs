using LogFlushMonitor.Tests.Analyze;
using LogFlushMonitor.Tests.Cli;
using LogFlushMonitor.XEvent.TestSupport;

namespace LogFlushMonitor.Tests.Report;

/// <summary>
/// <c>logflushmonitor report</c>: inputs, exit codes, what it says; the whole command line run in this process
/// (<see cref="ReportAsync"/>).
/// </summary>
public sealed class ReportCliTests : IDisposable
{
    private readonly AnalyzeTestFiles _files = new();
    private readonly ReportTestData _data = new();

    public void Dispose()
    {
        _files.Dispose();
        _data.Dispose();
    }

    /// <summary><c>logflushmonitor report INPUTS --out HTML</c>, the whole command line in this process.</summary>
    private static Task<(int ExitCode, string StdOut, string StdErr)> ReportAsync(string html, params string[] inputs) => InProcessCli.RunAsync(["report", .. inputs, "--out", html]);

    private string GoodXel() => _files.Write("good.xel", w =>
    {
        ulong seq = 0;
        for (var i = 0; i < 400; i++)
        {
            var t = AnalyzeTestFiles.Start.AddMilliseconds(i * 2);
            w.LogFlushStart(t, 11, "gooddb", 512, (ulong)i, ++seq);
            w.WaitCompleted(t.AddTicks(5), XelWriter.WriteLogKey, 1, 11, ++seq, databaseName: "gooddb");
        }
    });

    [Fact]
    public async Task An_ndjson_recording_and_a_xel_file_make_one_report_with_both()
    {
        var html = _files.PathOf("out/report.html");

        var (code, stdout, stderr) = await ReportAsync(html, _data.Hostile(), GoodXel());

        Assert.True(code == 0, stderr);
        Assert.Contains($"report: wrote {html} (2 database(s)", stdout, StringComparison.Ordinal);
        var text = await File.ReadAllTextAsync(html);
        Assert.Contains("<h2>gooddb <span class=\"muted\">database_id 11</span></h2>", text, StringComparison.Ordinal); // .xel: no instance
        Assert.Contains("&lt;script&gt;alert(1)&lt;/script&gt; <span class=\"muted\">on sql-&quot;q&quot; &amp; &lt;b&gt;x&lt;/b&gt;</span>", text, StringComparison.Ordinal);
        Assert.Contains("commits are row-at-a-time", text, StringComparison.Ordinal);
        Assert.False(File.Exists(html + ".tmp"));
    }

    [Fact]
    public async Task A_corrupt_input_exits_4_naming_it_and_the_report_covers_the_good_ones()
    {
        var garbage = _files.PathOf("garbage.xel");
        await File.WriteAllBytesAsync(garbage, [.. Enumerable.Range(0, 4096).Select(i => (byte)(i * 7))]);
        var ndjson = _data.PathOf("broken.ndjson");
        await File.WriteAllLinesAsync(ndjson, [.. File.ReadLines(_data.Hostile()).Take(20), "{\"type\":\"flush\",\"t\":", .. File.ReadLines(_data.Hostile()).Skip(20).Take(20)]);
        var html = _files.PathOf("report.html");

        var (code, stdout, stderr) = await ReportAsync(html, garbage, GoodXel(), ndjson);

        Assert.True(code == 4, stdout + stderr);
        Assert.Contains($"error: {garbage}:", stderr, StringComparison.Ordinal);
        // A recording with one unreadable line is damaged (issue 31), the line counted and named, not corrupt.
        Assert.Contains($"error: {ndjson}: damaged: 1 malformed event(s) skipped, the first at byte offset ", stderr, StringComparison.Ordinal);
        Assert.Contains(": line 21: invalid JSON", stderr, StringComparison.Ordinal);
        var text = await File.ReadAllTextAsync(html);
        Assert.Contains("gooddb", text, StringComparison.Ordinal);
        Assert.Contains("&lt;script&gt;", text, StringComparison.Ordinal); // the good lines of the broken recording still count
        Assert.Equal(1, text.Split("<td class=\"bad\">corrupt</td>").Length - 1);
        Assert.Equal(1, text.Split("<td class=\"bad\">damaged</td>").Length - 1);
    }

    [Fact]
    public async Task Files_without_log_flush_events_exit_3_and_the_report_says_what_they_hold()
    {
        var other = _files.Write("other.xel", w =>
        {
            for (var i = 0; i < 50; i++)
            {
                w.WaitCompleted(AnalyzeTestFiles.Start.AddMilliseconds(i), 66, 3, 5, (ulong)i + 1, databaseName: "sales");
            }
        });
        var html = _files.PathOf("report.html");

        var (code, stdout, stderr) = await ReportAsync(html, other);

        Assert.True(code == 3, stdout + stderr);
        Assert.Contains("other.xel holds no log_flush_start, log_flush_complete or WRITELOG wait events. It holds: 50 PAGEIOLATCH_SH waits", stderr, StringComparison.Ordinal);
        Assert.Contains("It holds: 50 PAGEIOLATCH_SH waits", await File.ReadAllTextAsync(html), StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_missing_input_exits_2_and_writes_nothing()
    {
        var html = _files.PathOf("report.html");

        var (code, _, stderr) = await InProcessCli.RunAsync("report", _files.PathOf("nope.xel"), "--out", html);

        Assert.Equal(2, code);
        Assert.Contains("nope.xel': no such file, folder or pattern", stderr, StringComparison.Ordinal);
        Assert.False(File.Exists(html));
    }

    [Fact]
    public async Task Without_out_it_is_a_usage_error()
    {
        var (code, _, stderr) = await InProcessCli.RunAsync("report", GoodXel());

        Assert.Equal(2, code);
        Assert.Contains("--out", stderr, StringComparison.Ordinal);
    }

    [Fact]
    public async Task An_output_that_cannot_be_written_exits_1_and_says_why()
    {
        var blocker = _files.PathOf("a-file");
        await File.WriteAllTextAsync(blocker, "x");

        var (code, _, stderr) = await InProcessCli.RunAsync("report", GoodXel(), "--out", Path.Combine(blocker, "report.html"));

        Assert.Equal(1, code);
        Assert.Contains($"error: cannot write {Path.Combine(blocker, "report.html")}", stderr, StringComparison.Ordinal);
        Assert.DoesNotContain("   at ", stderr, StringComparison.Ordinal);
    }
}
