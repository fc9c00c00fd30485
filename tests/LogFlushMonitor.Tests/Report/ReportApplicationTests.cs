using System.Globalization;
using System.Net;
using System.Text.RegularExpressions;
using LogFlushMonitor.Analysis;
using LogFlushMonitor.Commands;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Recording;
using LogFlushMonitor.Tests.Analyze;
using LogFlushMonitor.XEvent.TestSupport;

namespace LogFlushMonitor.Tests.Report;

/// <summary>
/// The report's WRITELOG time by application (issue 22 item 3): from the client_app_name action of a .xel file's waits
/// and from the <c>app</c> field of an NDJSON recording's, the top 5 applications and other, with their times; a .xel
/// file without the action says so instead of drawing an empty chart.
/// </summary>
public sealed class ReportApplicationTests : IDisposable
{
    // Seven applications (one named with markup, one sending no name): the two that waited least fold into "other"
    // with the nameless one.
    private static readonly (string App, int Waits, int Ms)[] Apps =
    [
        ("OrderService", 300, 4), ("<b>Billing</b>", 200, 5), ("ReportingJob", 150, 3), ("sqlcmd", 90, 6), ("Import", 80, 5),
        ("Tiny1", 20, 1), ("Tiny2", 10, 2), ("", 30, 1),
    ];

    private readonly AnalyzeTestFiles _files = new();
    private readonly ReportTestData _data = new();

    public void Dispose()
    {
        _files.Dispose();
        _data.Dispose();
    }

    private static async Task<string> ReportAsync(string html, params string[] inputs)
    {
        using var stdout = new StringWriter();
        using var stderr = new StringWriter();
        var code = ReportCommand.Run(new AnalyzeSettings { Inputs = inputs, ProgressLabel = "report" }, new FileInfo(html), stdout, stderr, CancellationToken.None);
        Assert.True(code == 0, stdout.ToString() + stderr);
        return await File.ReadAllTextAsync(html);
    }

    /// <summary>Each application's waits spread over two minutes, interleaved.</summary>
    private static IEnumerable<(DateTime T, string App, int Ms)> Waits()
    {
        var start = AnalyzeTestFiles.Start;
        foreach (var (app, waits, ms) in Apps)
        {
            for (var i = 0; i < waits; i++)
            {
                yield return (start.AddMilliseconds(120_000.0 * i / waits), app, ms);
            }
        }
    }

    /// <summary>The table's rows as the input gives them: top 5 by time, then other (the rest and the nameless).</summary>
    private static List<(string App, double Seconds)> Expected()
    {
        var named = Apps.Where(a => a.App.Length > 0).Select(a => (a.App, Seconds: a.Waits * a.Ms / 1000.0)).OrderByDescending(a => a.Seconds).ToList();
        var other = named.Skip(5).Sum(a => a.Seconds) + Apps.Where(a => a.App.Length == 0).Sum(a => a.Waits * a.Ms / 1000.0);
        return [.. named.Take(5), ("other", other)];
    }

    private static void AssertApplicationTable(string html)
    {
        Assert.Contains("<figcaption>WRITELOG time by application</figcaption>", html, StringComparison.Ordinal);
        var total = Expected().Sum(e => e.Seconds);
        var figure = html[html.IndexOf("<figcaption>WRITELOG time by application</figcaption>", StringComparison.Ordinal)..];
        figure = figure[..figure.IndexOf("</figure>", StringComparison.Ordinal)];
        var at = 0;
        foreach (var ((app, seconds), i) in Expected().Select((e, i) => (e, i)))
        {
            // The table is the chart's legend: each row's swatch has the colour of the application's area or line.
            var css = "s" + (i + 1).ToString(CultureInfo.InvariantCulture);
            var row = string.Create(CultureInfo.InvariantCulture,
                $"<tr><td><svg class=\"swatch\" width=\"12\" height=\"12\" aria-hidden=\"true\"><rect class=\"key {css}\" width=\"12\" height=\"12\"/></svg> {WebUtility.HtmlEncode(app)}</td><td class=\"n\">{seconds:0.000} s</td><td class=\"n\">{seconds / total * 100:0.0} %</td></tr>");
            var found = figure.IndexOf(row, at, StringComparison.Ordinal);
            Assert.True(found >= 0, $"missing (or out of order): {row}");
            at = found;
            Assert.Matches($"<path class=\"(area|line) {css}\" d=\"[^\"]+\"><title>{Regex.Escape(WebUtility.HtmlEncode(app))}</title></path>", figure);
        }

        // No legend drawn in the chart: its text, measured by length, overlapped in the browser's font.
        Assert.DoesNotContain("class=\"legend\"", figure, StringComparison.Ordinal);
        Assert.DoesNotContain("Tiny1</td>", html, StringComparison.Ordinal);
        Assert.DoesNotContain("<b>Billing</b>", html, StringComparison.Ordinal);
        Assert.Contains("by application", html, StringComparison.Ordinal);
        Assert.DoesNotContain("did not collect client_app_name", html, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_xel_file_with_client_app_name_shows_the_top_5_applications_and_other_with_their_times()
    {
        var xel = _files.Write("apps.xel", w =>
        {
            ulong seq = 0;
            foreach (var (t, app, ms) in Waits().OrderBy(w => w.T))
            {
                w.LogFlushStart(t, 7, "shop", 512, seq, ++seq);
                w.WaitCompleted(t.AddTicks(5), XelWriter.WriteLogKey, (ulong)ms, 7, ++seq, databaseName: "shop", clientApp: app);
            }
        });

        AssertApplicationTable(await ReportAsync(_files.PathOf("apps.html"), xel));
    }

    [Fact]
    public async Task An_ndjson_recording_with_the_app_field_shows_the_same_table()
    {
        var path = _data.PathOf("apps.ndjson");
        using (var writer = new NdjsonSampleWriter(path))
        {
            ulong block = 0;
            foreach (var (t, app, ms) in Waits().OrderBy(w => w.T))
            {
                writer.OnLogFlush(new LogFlushEvent("sql1", 7, "shop", 512, ++block, t));
                writer.OnWait(new WaitEvent("sql1", "WRITELOG", TimeSpan.FromMilliseconds(ms), 7, "shop", t.AddTicks(5), 0, app));
            }
        }

        AssertApplicationTable(await ReportAsync(_files.PathOf("apps.html"), path));
    }

    [Fact]
    public async Task A_xel_file_without_the_action_says_the_session_did_not_collect_it()
    {
        var xel = _files.Write("plain.xel", w =>
        {
            ulong seq = 0;
            for (var i = 0; i < 400; i++)
            {
                var t = AnalyzeTestFiles.Start.AddMilliseconds(i * 2);
                w.LogFlushStart(t, 11, "gooddb", 512, (ulong)i, ++seq);
                w.WaitCompleted(t.AddTicks(5), XelWriter.WriteLogKey, 1, 11, ++seq, databaseName: "gooddb");
            }
        });

        var html = await ReportAsync(_files.PathOf("plain.html"), xel);

        Assert.Contains("The session did not collect client_app_name", html, StringComparison.Ordinal);
        Assert.DoesNotContain("<th>application</th>", html, StringComparison.Ordinal);
    }
}
