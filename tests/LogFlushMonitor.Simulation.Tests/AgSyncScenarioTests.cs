using LogFlushMonitor.Core.Advice;
using LogFlushMonitor.Core.Aggregation;

namespace LogFlushMonitor.Simulation.Tests;

/// <summary>
/// The ag-sync scenario: sql1/orders in an availability group whose synchronous secondary slows from ~0.5 ms to ~25 ms
/// 30 s after start, while the local log stays fast. What the monitor must see: the remote half rises, the local half
/// does not, and the advice names the replica.
/// </summary>
public class AgSyncScenarioTests
{
    private static readonly DateTime T0 = ScenarioShapeTests.T0;

    private static DatabaseSnapshot Orders(LogFlushAggregator aggregator) => Assert.Single(aggregator.Snapshot(), d => d.Database == "orders");

    [Fact]
    public void Sync_commit_waits_rise_while_the_local_flushes_stay_fast_and_the_advice_blames_the_replica()
    {
        var sim = SimulationScenarios.Create("ag-sync");
        sim.Start(T0);
        var before = new LogFlushAggregator();
        sim.Advance(T0.AddSeconds(25), before);
        var quiet = Orders(before);
        var syncBefore = Assert.Single(quiet.Waits, w => w.WaitType == "HADR_SYNC_COMMIT");
        Assert.InRange(syncBefore.MeanSeconds, 0.0004, 0.0006);
        Assert.InRange(quiet.SyncCommitDelayMsPerTransaction!.Value, 0.4, 0.6);
        Assert.DoesNotContain(Advisor.Advise(quiet), a => a.Code == "sync-replica-slow");

        var during = new LogFlushAggregator(); // only what happens once the secondary has slowed down
        sim.Advance(T0.AddSeconds(45), new LogFlushAggregator()); // the ramp, into an aggregator thrown away
        sim.Advance(T0.AddSeconds(100), during);
        var slow = Orders(during);
        var syncDuring = Assert.Single(slow.Waits, w => w.WaitType == "HADR_SYNC_COMMIT");
        Assert.InRange(syncDuring.MeanSeconds, 0.023, 0.027);
        Assert.InRange(slow.SyncCommitDelayMsPerTransaction!.Value, 23, 27);
        Assert.True(slow.FlushDurations.MeanSeconds < 0.001, $"local flushes {slow.FlushDurations.MeanSeconds} s"); // the local half unchanged
        var writelog = Assert.Single(slow.Waits, w => w.WaitType == "WRITELOG");
        Assert.True(writelog.MeanSeconds < 0.001, $"WRITELOG {writelog.MeanSeconds} s");
        var advice = Assert.Single(Advisor.Advise(slow), a => a.Code == "sync-replica-slow");
        Assert.Contains("the replica or the network is slow", advice.Text, StringComparison.Ordinal);

        var replicas = during.SnapshotReplicas();
        Assert.Equal(["sql1", "sql1-b", "sql1-dr"], replicas.Select(r => r.Replica).Order(StringComparer.Ordinal));
        var sync = Assert.Single(replicas, r => r.AvailabilityMode == "SYNCHRONOUS_COMMIT" && r.Role == "SECONDARY");
        Assert.True(sync.LogSendQueueKb > 0, "the synchronous secondary's send queue grows while it is slow");
        Assert.Null(Assert.Single(replicas, r => r.Role == "PRIMARY").LogSendQueueKb);
    }

    [Fact]
    public void The_mixed_scenario_has_one_database_in_an_availability_group()
    {
        var sim = SimulationScenarios.Create(SimulationScenarios.Default);
        sim.Start(T0);
        var aggregator = new LogFlushAggregator();
        sim.Advance(T0.AddSeconds(20), aggregator);

        Assert.Equal(["archive"], aggregator.SnapshotReplicas().Select(r => r.Database).Distinct());
        Assert.Contains(aggregator.Snapshot(), d => d.Database == "archive" && d.Waits.Any(w => w.WaitType == "HADR_SYNC_COMMIT"));
        Assert.DoesNotContain(aggregator.Snapshot(), d => d.Database != "archive" && d.Waits.Any(w => w.WaitType == "HADR_SYNC_COMMIT"));
    }
}
