using LogFlushMonitor.Core.Advice;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;
using LogFlushMonitor.Core.Tests.Metrics;

namespace LogFlushMonitor.Core.Tests.Aggregation;

/// <summary>
/// The commit budget (sqlserver.commit.wait.time by part), with figures worked out by hand from the samples each test
/// delivers: which source reads each part, the I/O-governance queue's share of the local flush, what the snapshot and its
/// sentence say, and that the cumulative figure never goes down when a source changes.
/// </summary>
[Collection("metrics")]
public class CommitBudgetTests
{
    private const string Sql1 = "sql1";
    private static readonly DateTime T0 = new(2026, 11, 22, 12, 0, 0, DateTimeKind.Utc);

    private static WaitEvent Wait(string type, double ms, DateTime t) => new(Sql1, type, TimeSpan.FromMilliseconds(ms), 5, "orders", t);

    private static SignalBatch Files(long stallMs, long queuedMs, DateTime t) =>
        SignalRegistry.FileStats.Batch(Sql1, t, [new FileStatsRow(5, "orders", 2, stallMs, stallMs * 1024, stallMs, queuedMs)], endsPoll: true);

    private static SignalBatch Counters(long flushWaitMs, long flushWaits, DateTime t, long? transactionDelayMs = null) =>
        SignalRegistry.Counters.Batch(Sql1, t,
        [
            new CounterRow("Databases", DatabasesCounters.LogFlushWaitTime, "orders", flushWaitMs, PerfCounterType.BulkCount),
            new CounterRow("Databases", DatabasesCounters.LogFlushWaits, "orders", flushWaits, PerfCounterType.BulkCount),
            .. transactionDelayMs is { } d ? new[] { new CounterRow(DatabaseReplicaCounters.Object, DatabaseReplicaCounters.TransactionDelay, "orders", d, PerfCounterType.BulkCount) } : [],
        ], endsPoll: true);

    private static Dictionary<string, double> Parts(MetricsHarness h) =>
        h.Collect().Where(p => p.Name == "sqlserver.commit.wait.time").ToDictionary(p => (string)p.Tags["part"]!, p => p.Value);

    [Fact]
    public void Each_part_comes_from_the_wait_events_and_the_queue_takes_its_share_of_the_local_flush()
    {
        using var h = new MetricsHarness();
        var agg = h.Aggregator;
        // Two file-stats polls: the log file stalled 100 ms in between, 25 of them queued by I/O governance (a quarter).
        agg.OnBatch(Files(0, 0, T0));
        for (var i = 0; i < 10; i++)
        {
            var t = T0.AddMilliseconds(100 * i);
            agg.OnWait(Wait("LOG_RATE_GOVERNOR", 1, t));
            agg.OnWait(Wait("WRITELOG", 2, t));
            agg.OnWait(Wait("HADR_SYNC_COMMIT", 9, t));
        }

        agg.OnBatch(Files(100, 25, T0.AddSeconds(5)));

        var parts = Parts(h);
        // WRITELOG 10 x 2 ms = 20 ms: a quarter queued (5 ms), the rest the local flush (15 ms); 90 ms sync replica; 10 ms governor.
        Assert.Equal(["io_governance_queue", "local_flush", "log_rate_governor", "sync_replica"], parts.Keys.Order(StringComparer.Ordinal));
        Assert.Equal(0.015, parts["local_flush"], 9);
        Assert.Equal(0.005, parts["io_governance_queue"], 9);
        Assert.Equal(0.090, parts["sync_replica"], 9);
        Assert.Equal(0.010, parts["log_rate_governor"], 9);

        var budget = Assert.Single(agg.Snapshot()).CommitBudget!;
        Assert.Equal(10, budget.Commits); // the WRITELOG waits
        Assert.Equal(CommitPart.SyncReplica, budget.Largest!.Part);
        Assert.All(budget.Parts, p => Assert.Equal(p.Part == CommitPart.IoGovernanceQueue ? CommitPartSource.FileStats : CommitPartSource.Events, p.Source));
        // 120 ms over 10 commits.
        Assert.Equal("12 ms per commit: 9 ms waiting for the synchronous replica, 1.5 ms local flush, 1 ms log-rate cap, 0.5 ms I/O-governance queue", budget.Text());
    }

    [Fact]
    public void Without_wait_events_the_database_counters_read_the_local_flush_and_the_synchronous_replica()
    {
        using var h = new MetricsHarness();
        var agg = h.Aggregator;
        agg.OnBatch(Counters(1_000, 100, T0, transactionDelayMs: 5_000));
        agg.OnBatch(Counters(1_400, 180, T0.AddSeconds(15), transactionDelayMs: 5_900));

        var parts = Parts(h);
        // Increases since monitoring began (the first reading is the baseline): 0.4 s of Log Flush Wait Time, 0.9 s of Transaction Delay.
        Assert.Equal(["local_flush", "sync_replica"], parts.Keys.Order(StringComparer.Ordinal));
        Assert.Equal(0.4, parts["local_flush"], 9);
        Assert.Equal(0.9, parts["sync_replica"], 9);
        var budget = Assert.Single(agg.Snapshot()).CommitBudget!;
        Assert.Equal(80, budget.Commits); // Log Flush Waits/sec: 180 - 100
        Assert.All(budget.Parts, p => Assert.Equal(CommitPartSource.Counters, p.Source));
        Assert.Equal("16 ms per commit: 11 ms waiting for the synchronous replica, 5 ms local flush", budget.Text());
    }

    [Fact]
    public void Azure_SQL_Database_wait_stats_are_the_databases_own_and_read_the_governor_there()
    {
        using var h = new MetricsHarness();
        var agg = h.Aggregator;
        SignalBatch Waits(long governorMs, DateTime t) => SignalRegistry.WaitStats.Batch(Sql1, t,
            [new WaitStatsRow("LOG_RATE_GOVERNOR", governorMs / 10, governorMs, 50, 0, "orders"), new WaitStatsRow("POOL_LOG_RATE_GOVERNOR", 1, 3, 3, 0, "orders")], endsPoll: true);
        agg.OnBatch(Waits(2_000, T0));
        agg.OnBatch(Counters(0, 0, T0));
        agg.OnBatch(Waits(2_700, T0.AddSeconds(15)));
        agg.OnBatch(Counters(300, 100, T0.AddSeconds(15)));

        var parts = Parts(h);
        Assert.Equal(0.7, parts["log_rate_governor"], 9);
        Assert.Equal(0.0, parts["pool_log_rate_governor"], 9);
        Assert.Equal(0.3, parts["local_flush"], 9);
        var budget = Assert.Single(agg.Snapshot()).CommitBudget!;
        Assert.Equal(CommitPartSource.DatabaseWaitStats, Assert.Single(budget.Parts, p => p.Part == CommitPart.LogRateGovernor).Source);
        Assert.Equal("10 ms per commit: 7 ms log-rate cap, 3 ms local flush", budget.Text());
        var advice = CommitAdvice.Budget(Assert.Single(agg.Snapshot()))!;
        Assert.Contains("largest part: log-rate cap (the database's wait stats)", advice.Text, StringComparison.Ordinal);
        Assert.Contains("batching lowers flushes but not log bytes", advice.Text, StringComparison.Ordinal);
    }

    [Fact]
    public void The_instances_own_wait_stats_are_named_apart_and_never_given_to_a_database()
    {
        using var h = new MetricsHarness();
        var agg = h.Aggregator;
        SignalBatch Waits(long logBufferMs, DateTime t) => SignalRegistry.WaitStats.Batch(Sql1, t, [new WaitStatsRow("LOGBUFFER", 10, logBufferMs, 5, 0)], endsPoll: true);
        agg.OnBatch(Waits(100, T0));
        agg.OnBatch(Counters(0, 0, T0));
        agg.OnBatch(Waits(700, T0.AddSeconds(15)));
        agg.OnBatch(Counters(300, 100, T0.AddSeconds(15)));

        Assert.DoesNotContain("logbuffer", Parts(h).Keys);
        var budget = Assert.Single(agg.Snapshot()).CommitBudget!;
        var wide = Assert.Single(budget.InstanceWide);
        Assert.Equal(CommitPart.LogBuffer, wide.Part);
        Assert.Equal(0.04, wide.Seconds, 9); // 600 ms in 15 s, per second
    }

    [Fact]
    public void When_the_events_stop_the_counters_take_over_with_what_the_events_missed_and_nothing_is_counted_twice()
    {
        using var h = new MetricsHarness();
        var agg = h.Aggregator;
        agg.OnBatch(Counters(0, 0, T0));
        for (var i = 0; i < 10; i++)
        {
            agg.OnWait(Wait("WRITELOG", 3, T0.AddMilliseconds(10 * i)));
        }

        agg.OnBatch(Counters(30, 10, T0.AddSeconds(5)));
        Assert.Equal(0.030, Parts(h)["local_flush"], 9); // from the events (the counter says the same 30 ms)

        // The stream stops (a fallback to histogram mode): two minutes later only the counter has moved, by 500 ms of
        // waits no event told: the counter's increase since the last update is taken, once.
        agg.OnBatch(Counters(530, 110, T0.AddSeconds(125)));
        Assert.Equal(0.530, Parts(h)["local_flush"], 9);
        Assert.Equal(0.530, Parts(h)["local_flush"], 9); // another collect adds nothing
        agg.OnBatch(Counters(830, 160, T0.AddSeconds(140)));
        Assert.Equal(0.830, Parts(h)["local_flush"], 9);
        var budget = Assert.Single(agg.Snapshot()).CommitBudget!;
        Assert.Equal(CommitPartSource.Counters, Assert.Single(budget.Parts).Source);
        Assert.Equal(CommitPartSource.Counters, budget.Parts[0].Source);

        // The events come back: their increase from then on, not their whole history again.
        agg.OnWait(Wait("WRITELOG", 4, T0.AddSeconds(141)));
        agg.OnBatch(Counters(834, 161, T0.AddSeconds(145)));
        Assert.Equal(0.834, Parts(h)["local_flush"], 9);
    }
}
