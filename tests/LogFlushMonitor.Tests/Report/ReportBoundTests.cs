using System.Text.RegularExpressions;
using LogFlushMonitor.Analysis;
using LogFlushMonitor.Commands;
using LogFlushMonitor.Report;
using LogFlushMonitor.Tests.Analyze;
using LogFlushMonitor.XEvent.TestSupport;

namespace LogFlushMonitor.Tests.Report;

/// <summary>
/// Issue 31, item 4: the page is bounded whatever the span of the events. The finding: one timestamp thousands of
/// years out made a 590 MB page of 3.2 million tick labels (2.7 GB of memory). Events genuinely millennia apart (two
/// buffers, each consistent in itself) must still make a page of a few labels per axis and a bounded size.
/// </summary>
public sealed partial class ReportBoundTests : IDisposable
{
    private readonly AnalyzeTestFiles _files = new();

    public void Dispose() => _files.Dispose();

    [Fact]
    public void Events_seven_thousand_years_apart_make_a_small_page_with_a_few_labels_per_axis()
    {
        var xel = _files.Write("ages.xel", w =>
        {
            foreach (var year in (int[])[2027, 9000])
            {
                var start = new DateTime(year, 1, 1, 0, 0, 0, DateTimeKind.Utc);
                for (var i = 0; i < 400; i++)
                {
                    var t = start.AddMilliseconds(i * 10);
                    w.LogFlushStart(t, 5, "sales", 512, (ulong)i + 1);
                    w.WaitCompleted(t.AddTicks(10), XelWriter.WriteLogKey, 3, 5, databaseName: "sales");
                }

                w.Flush();
            }
        });
        var html = new FileInfo(_files.PathOf("report.html"));
        var settings = new AnalyzeSettings { Inputs = [xel], Progress = ProgressMode.Never, Threads = 1 };
        var before = GC.GetAllocatedBytesForCurrentThread();

        var code = ReportCommand.Run(settings, html, TextWriter.Null, TextWriter.Null, CancellationToken.None);

        var allocated = GC.GetAllocatedBytesForCurrentThread() - before;
        Assert.Equal(ExitCodes.Ok, code);
        var page = File.ReadAllText(html.FullName);
        Assert.True(page.Length < 512 * 1024, $"{page.Length:N0} characters");
        Assert.True(allocated < 64L << 20, $"{allocated:N0} bytes allocated");
        Assert.Contains("9000-01-01", page, StringComparison.Ordinal);
        var timeCharts = Chart().Matches(page).Where(c => c.Value.Contains("time (UTC", StringComparison.Ordinal)).ToList();
        Assert.NotEmpty(timeCharts);
        foreach (var chart in timeCharts)
        {
            var labels = TickLabel().Matches(chart.Value).Count;
            Assert.InRange(labels, 0, 5 + SvgChart.MaxTimeTicks + 1); // five on the y axis, at most eight on the time axis
        }
    }

    [Theory]
    [InlineData(1)]
    [InlineData(3_000)]
    [InlineData(2_600_000)]
    public void The_time_axis_step_keeps_the_labels_at_most_seven_for_any_span(long days)
    {
        var span = TimeSpan.FromDays(days);

        var step = SvgChart.TickStep(span);

        Assert.InRange(span.Ticks / step.Ticks, 1, SvgChart.MaxTimeTicks);
    }

    [GeneratedRegex("<svg class=\"chart\".*?</svg>", RegexOptions.Singleline)]
    private static partial Regex Chart();

    [GeneratedRegex("<text class=\"tick\"")]
    private static partial Regex TickLabel();
}
