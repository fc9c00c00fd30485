using LogFlushMonitor.Analysis;
using LogFlushMonitor.Commands;

namespace LogFlushMonitor.Tests.Analyze;

/// <summary>A .xel file whose flushes never complete: analyze names the stall, as the service does, and nothing else.</summary>
public sealed class AnalyzeStallTests : IDisposable
{
    private readonly AnalyzeTestFiles _files = new();

    public void Dispose() => _files.Dispose();

    private AnalyzeReport Analyze(string path, int threads) =>
        AnalyzeRunner.Analyze(new AnalyzeSettings { Inputs = [path], Progress = ProgressMode.Never, Threads = threads }, [[path]], null, CancellationToken.None);

    /// <summary>
    /// orders (9): 2,000 single-row commits in 2 s, then eight flushes that start at 2 s and never complete. ledger (10):
    /// one complete lost at 1 s, while it goes on flushing. The file goes on to 42 s with ledger's flushes.
    /// </summary>
    private string StalledFile() => _files.Write("stall.xel", w =>
    {
        var start = AnalyzeTestFiles.Start;
        ulong block = 0;
        for (var i = 0; i < 2000; i++)
        {
            var t = start.AddMilliseconds(i);
            w.LogFlushStart(t, 9, "orders", 512, ++block);
            w.LogFlushComplete(t.AddTicks(1500), 9, "orders", block, duration: 0);
        }

        for (var i = 0; i < 8; i++)
        {
            w.LogFlushStart(start.AddSeconds(2).AddMilliseconds(i), 9, "orders", 512, ++block);
        }

        w.LogFlushStart(start.AddSeconds(1), 10, "ledger", 4096, 1); // its complete was lost
        for (var i = 0; i < 410; i++)
        {
            var t = start.AddSeconds(1.1 + (i * 0.1));
            w.LogFlushStart(t, 10, "ledger", 4096, (ulong)(i + 2));
            w.LogFlushComplete(t.AddTicks(3000), 10, "ledger", (ulong)(i + 2), duration: 0);
        }
    }, bufferSize: 4096);

    [Theory]
    [InlineData(1)]
    [InlineData(3)]
    public void Flushes_that_never_complete_are_named_as_a_stall_and_no_batching_advice_is_given(int threads)
    {
        var report = Analyze(StalledFile(), threads);

        var orders = Assert.Single(report.Databases, d => d.Database == "orders");
        var advice = Assert.Single(orders.Advice);
        Assert.Equal("log-stall", advice.Code);
        Assert.StartsWith("8 flushes outstanding for 40 s: the log device is not completing writes", advice.Text, StringComparison.Ordinal);

        // A complete lost while the database went on flushing is no stall.
        var ledger = Assert.Single(report.Databases, d => d.Database == "ledger");
        Assert.DoesNotContain(ledger.Advice, a => a.Code == "log-stall");
    }

    [Fact]
    public void The_text_report_shows_the_stall()
    {
        var path = StalledFile();
        using var stdout = new StringWriter();
        using var stderr = new StringWriter();
        AnalyzeRunner.Run(new AnalyzeSettings { Inputs = [path], Progress = ProgressMode.Never, Threads = 1 }, ExitCodes.Of, stdout, stderr, CancellationToken.None);

        Assert.Contains("8 flushes outstanding for 40 s: the log device is not completing writes", stdout.ToString(), StringComparison.Ordinal);
    }
}
