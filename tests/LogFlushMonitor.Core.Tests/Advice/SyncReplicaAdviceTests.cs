using LogFlushMonitor.Core.Advice;
using LogFlushMonitor.Core.Aggregation;

namespace LogFlushMonitor.Core.Tests.Advice;

/// <summary>Which half of a synchronous commit is slow, as the SqlServerSyncReplicaSlow alert decides it.</summary>
public class SyncReplicaAdviceTests
{
    private static DatabaseSnapshot Db(double flushSeconds, int flushes, IReadOnlyList<WaitSnapshot> waits, double? counterDelayMs = null,
        double? counterWaitsPerSecond = null, double? counterWaitSecondsPerSecond = null)
    {
        var durations = new LatencyDistribution();
        for (var i = 0; i < flushes; i++)
        {
            durations.Add(flushSeconds);
        }

        return new DatabaseSnapshot
        {
            Instance = "sql1", DatabaseId = 5, Database = "shop", WriteSizes = new WriteSizeDistribution(), FlushDurations = durations, Waits = waits,
            SyncCommitDelayMsPerTransaction = counterDelayMs, CounterFlushWaitsPerSecond = counterWaitsPerSecond,
            CounterFlushWaitSecondsPerSecond = counterWaitSecondsPerSecond,
        };
    }

    private static WaitSnapshot SyncWaits(double meanSeconds) => new("HADR_SYNC_COMMIT", 300, meanSeconds, meanSeconds * 1.5, meanSeconds * 3);

    [Fact]
    public void Slow_sync_commits_over_fast_local_flushes_blame_the_replica_or_the_network()
    {
        var item = Assert.Single(Advisor.Advise(Db(0.001, 300, [SyncWaits(0.020)])));
        Assert.Equal(("sync-replica-slow", AdviceLevel.Warning), (item.Code, item.Level));
        Assert.StartsWith("commits wait 20 ms each for the synchronous replica (HADR_SYNC_COMMIT) while local log flushes take 1 ms: the replica or the network is slow", item.Text, StringComparison.Ordinal);
    }

    [Fact]
    public void Slow_local_flushes_are_not_blamed_on_the_replica()
    {
        Assert.DoesNotContain(Advisor.Advise(Db(0.015, 300, [SyncWaits(0.020)])), a => a.Code == "sync-replica-slow");
    }

    [Fact]
    public void A_fast_replica_and_a_database_without_one_get_no_replica_advice()
    {
        Assert.Empty(Advisor.Advise(Db(0.001, 300, [SyncWaits(0.002)])));
        Assert.Empty(Advisor.Advise(Db(0.001, 300, [])));
    }

    [Fact]
    public void Without_events_the_counters_decide_it()
    {
        // Histogram mode: Transaction Delay per mirrored transaction 25 ms; Log Flush Wait Time 0.3 s/s over 300 waits/s = 1 ms.
        var item = Assert.Single(Advisor.Advise(Db(0, 0, [], counterDelayMs: 25, counterWaitsPerSecond: 300, counterWaitSecondsPerSecond: 0.3)));
        Assert.Equal("sync-replica-slow", item.Code);
        Assert.Contains("25 ms each", item.Text, StringComparison.Ordinal);
    }
}
