using System.Text.Json;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Recording;
using LogFlushMonitor.XEvent.TestSupport;

namespace LogFlushMonitor.Tests.Analyze;

/// <summary>
/// <c>analyze</c> says where commit time went (issue 33 items 1 and 3): per database the commit budget from the wait
/// events (WRITELOG as the local flush, HADR_SYNC_COMMIT, LOGBUFFER, the log-rate governor's forms), its largest part
/// named, and the flush latency held against SQL Server's 10-15 ms line with the source named; in text and JSON, the
/// same on every thread count, and from an NDJSON recording's waits too.
/// </summary>
public sealed class AnalyzeCommitBudgetTests : IDisposable
{
    private const uint HadrSyncCommitKey = 1001;
    private const uint LogRateGovernorKey = 1002;

    private static readonly XelWriterOptions Options = new()
    {
        WaitTypes = new Dictionary<uint, string>(XelWriter.DefaultWaitTypes) { [HadrSyncCommitKey] = "HADR_SYNC_COMMIT", [LogRateGovernorKey] = "LOG_RATE_GOVERNOR" },
    };

    private readonly AnalyzeTestFiles _files = new();

    public void Dispose() => _files.Dispose();

    [Theory]
    [InlineData(1)]
    [InlineData(4)]
    public void The_budget_names_the_synchronous_replica_as_the_largest_part_and_the_flushes_are_under_the_10_to_15_ms_line(int threads)
    {
        // 1,000 commits over 10 s: each flush takes 4 ms; each commit waits 2 ms WRITELOG and 9 ms HADR_SYNC_COMMIT; one in
        // ten waits 10 ms on the governor. By hand: 2 s + 9 s + 1 s = 12 s over 1,000 commits = 12 ms per commit.
        var xel = _files.Write("budget.xel", w => Commits(w, 7, "orders", 1_000, flushMs: 4, writelogMs: 2, syncMs: 9, governorEvery: 10, governorMs: 10), options: Options);

        var text = RunText([xel], threads);
        using var doc = JsonDocument.Parse(RunJson([xel], threads));

        Assert.Contains("  commit time (wait events): 12 ms per commit: 9 ms waiting for the synchronous replica, 2 ms local flush, 1 ms log-rate cap; largest part: waiting for the synchronous replica\n", text, StringComparison.Ordinal);
        Assert.Contains("  storage: log writes take 4 ms on average (1,000 log_flush_complete events): under the 10-15 ms line Microsoft treats as an I/O bottleneck (Microsoft, \"Troubleshoot slow SQL Server performance caused by I/O issues\")\n", text, StringComparison.Ordinal);

        var budget = Database(doc, "orders").GetProperty("commit_budget");
        Assert.Equal(1_000, budget.GetProperty("commits").GetDouble());
        Assert.Equal(12.0, budget.GetProperty("per_commit_ms").GetDouble(), 9);
        Assert.Equal("sync_replica", budget.GetProperty("largest_part").GetString());
        var parts = budget.GetProperty("parts").EnumerateArray().Select(p => (p.GetProperty("part").GetString(), p.GetProperty("seconds").GetDouble(), p.GetProperty("source").GetString())).ToList();
        Assert.Equal([("sync_replica", 9.0, "events"), ("local_flush", 2.0, "events"), ("log_rate_governor", 1.0, "events")], parts);
        var storage = Database(doc, "orders").GetProperty("storage");
        Assert.Equal("within", storage.GetProperty("standing").GetString());

        // Over 10 ms a commit while 1.2 s are waited per second: the advice names the part and what to do about it.
        Assert.Contains("advice: commit time: 12 ms per commit: 9 ms waiting for the synchronous replica, 2 ms local flush, 1 ms log-rate cap; largest part: waiting for the synchronous replica (wait events): the synchronous replica or the network to it", text, StringComparison.Ordinal);
    }

    [Fact]
    public void Slow_flushes_are_over_the_line_and_a_database_without_other_waits_has_the_local_flush_only()
    {
        // 200 flushes of 20 ms, each commit waiting 20 ms WRITELOG: over the 10-15 ms line; the budget is all local flush.
        var xel = _files.Write("slow.xel", w => Commits(w, 9, "ledger", 200, flushMs: 20, writelogMs: 20, syncMs: 0, governorEvery: 0, governorMs: 0), options: Options);

        var text = RunText([xel]);
        using var doc = JsonDocument.Parse(RunJson([xel]));

        Assert.Contains("  commit time (wait events): 20 ms per commit: 20 ms local flush; largest part: local flush\n", text, StringComparison.Ordinal);
        Assert.Contains("  storage: log writes take 20 ms on average (200 log_flush_complete events): over the 10-15 ms Microsoft treats as an I/O bottleneck when it lasts", text, StringComparison.Ordinal);
        var ledger = Database(doc, "ledger");
        Assert.Equal("local_flush", ledger.GetProperty("commit_budget").GetProperty("largest_part").GetString());
        Assert.Equal("bottleneck", ledger.GetProperty("storage").GetProperty("standing").GetString());
    }

    [Fact]
    public void Fewer_than_100_timed_flushes_give_no_storage_verdict_and_no_waits_no_budget()
    {
        var xel = _files.Write("few.xel", w =>
        {
            ulong seq = 0;
            for (var i = 0; i < 50; i++)
            {
                var t = AnalyzeTestFiles.Start.AddMilliseconds(i * 10);
                w.LogFlushStart(t, 7, "orders", 512, (ulong)i, ++seq);
                w.LogFlushComplete(t.AddMilliseconds(3), 7, "orders", (ulong)i, 3, ++seq);
            }
        }, options: Options);

        var text = RunText([xel]);
        using var doc = JsonDocument.Parse(RunJson([xel]));

        Assert.DoesNotContain("  storage:", text, StringComparison.Ordinal);
        Assert.DoesNotContain("  commit time", text, StringComparison.Ordinal);
        Assert.Equal(JsonValueKind.Null, Database(doc, "orders").GetProperty("storage").ValueKind);
        Assert.Equal(JsonValueKind.Null, Database(doc, "orders").GetProperty("commit_budget").ValueKind);
    }

    [Fact]
    public void An_ndjson_recordings_waits_give_the_same_budget()
    {
        var path = _files.PathOf("budget.ndjson");
        using (var writer = new NdjsonSampleWriter(path))
        {
            for (var i = 0; i < 100; i++)
            {
                var t = AnalyzeTestFiles.Start.AddMilliseconds(i * 10);
                writer.OnLogFlush(new LogFlushEvent("sql1", 7, "orders", 512, (ulong)i, t));
                writer.OnWait(new WaitEvent("sql1", "WRITELOG", TimeSpan.FromMilliseconds(3), 7, "orders", t.AddTicks(5)));
                writer.OnWait(new WaitEvent("sql1", "LOG_RATE_GOVERNOR", TimeSpan.FromMilliseconds(5), 7, "orders", t.AddTicks(6)));
            }
        }

        var text = RunText([path]);

        // 0.3 s + 0.5 s over 100 commits: 8 ms per commit, the cap the larger part.
        Assert.Contains("  commit time (wait events): 8 ms per commit: 5 ms log-rate cap, 3 ms local flush; largest part: log-rate cap\n", text, StringComparison.Ordinal);
    }

    [Fact]
    public void A_recording_of_Azure_holds_the_flushes_against_its_tiers_published_latency()
    {
        // Business Critical publishes 1-2 ms; 150 flushes of 6 ms are slower than that (and under SQL Server's line).
        var path = _files.PathOf("azure.ndjson");
        using (var writer = new NdjsonSampleWriter(path))
        {
            writer.OnBatch(Core.Signals.SignalRegistry.LogRate.Batch("azure-bc", AnalyzeTestFiles.Start,
                [new Core.Signals.LogRateRow(Core.Signals.LogRateSignal.DatabaseScope, "orders", "BusinessCritical", "SQLDB_BC_Gen5_4", 50_000_000, 12.5)], endsPoll: true));
            for (var i = 0; i < 150; i++)
            {
                var t = AnalyzeTestFiles.Start.AddMilliseconds(i * 10);
                writer.OnLogFlush(new LogFlushEvent("azure-bc", 7, "orders", 512, (ulong)i, t));
                writer.OnLogFlush(new LogFlushEvent("azure-bc", 7, "orders", 512, (ulong)i, t.AddMilliseconds(6), TimeSpan.FromMilliseconds(6)));
            }
        }

        var text = RunText([path]);

        Assert.Contains("  storage: log writes take 6 ms on average (150 log_flush_complete events): slower than Azure SQL Database Business Critical's published 1-2 ms write latency (Microsoft, \"Resource limits for single databases using the vCore purchasing model\")", text, StringComparison.Ordinal);
        Assert.Contains("advice: log writes take 6 ms on average", text, StringComparison.Ordinal); // a promise the storage does not keep is advice
        Assert.DoesNotContain("log-rate cap", text, StringComparison.Ordinal); // 12.5 % of the cap: nothing to say about it
    }

    /// <summary>
    /// <paramref name="count"/> commits 10 ms apart: a flush of <paramref name="flushMs"/>, its WRITELOG wait, the
    /// HADR_SYNC_COMMIT wait (when over 0) and every <paramref name="governorEvery"/>th a LOG_RATE_GOVERNOR wait.
    /// </summary>
    private static void Commits(XelWriter w, uint id, string name, int count, int flushMs, int writelogMs, int syncMs, int governorEvery, int governorMs)
    {
        ulong seq = 0;
        for (var i = 0; i < count; i++)
        {
            var t = AnalyzeTestFiles.Start.AddMilliseconds(i * 10);
            if (governorEvery > 0 && i % governorEvery == 0)
            {
                w.WaitCompleted(t, LogRateGovernorKey, (ulong)governorMs, id, ++seq, databaseName: name);
            }

            w.LogFlushStart(t.AddTicks(1), id, name, 512, (ulong)i, ++seq);
            w.LogFlushComplete(t.AddTicks(1).AddMilliseconds(flushMs), id, name, (ulong)i, (ulong)flushMs, ++seq);
            w.WaitCompleted(t.AddTicks(2).AddMilliseconds(flushMs), XelWriter.WriteLogKey, (ulong)writelogMs, id, ++seq, databaseName: name);
            if (syncMs > 0)
            {
                w.WaitCompleted(t.AddTicks(3).AddMilliseconds(flushMs), HadrSyncCommitKey, (ulong)syncMs, id, ++seq, databaseName: name);
            }
        }
    }

    private static JsonElement Database(JsonDocument doc, string name) =>
        doc.RootElement.GetProperty("databases").EnumerateArray().Single(d => d.GetProperty("database").GetString() == name);

    private static string RunJson(IReadOnlyList<string> inputs, int threads = 1) => AnalyzeInProcess.Json(inputs, threads);

    private static string RunText(IReadOnlyList<string> inputs, int threads = 1) => AnalyzeInProcess.Text(inputs, threads);
}
