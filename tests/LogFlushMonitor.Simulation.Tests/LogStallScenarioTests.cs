using LogFlushMonitor.Core.Advice;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Signals;
using LogFlushMonitor.Core.XEvents;

namespace LogFlushMonitor.Simulation.Tests;

/// <summary>
/// The log-stall scenario: 30 s after start the log device of sql1 completes nothing for 105 s. What the monitor must
/// see while it lasts (flushes outstanding and ageing, sessions waiting, completed-only figures flat) and after it.
/// </summary>
public class LogStallScenarioTests
{
    private static readonly DateTime T0 = ScenarioShapeTests.T0;

    /// <summary>The scenario through the tracker a run or replay puts in front of the pipeline, into an aggregator.</summary>
    private static (LogFlushAggregator Aggregator, WorkloadSimulation Simulation, OutstandingFlushTracker Tracker) Start(string scenario = "log-stall")
    {
        var aggregator = new LogFlushAggregator();
        var tracker = new OutstandingFlushTracker(aggregator);
        var sim = SimulationScenarios.Create(scenario);
        sim.Start(T0);
        return (aggregator, sim, tracker);
    }

    private static DatabaseSnapshot Shop(LogFlushAggregator aggregator) => Assert.Single(aggregator.Snapshot(), d => d.Database == "shop");

    [Fact]
    public void During_the_stall_eight_flushes_are_outstanding_and_age_eight_sessions_wait_and_the_counters_stay_flat()
    {
        var (aggregator, sim, tracker) = Start();
        sim.Advance(T0.AddSeconds(25), tracker);
        var before = Shop(aggregator);
        Assert.Equal(0, before.OutstandingFlushes);
        Assert.InRange(before.WriteLogWaitingSessions!.Value, 0, 8);
        Assert.True(before.WriteLogLongestWaitSeconds < 0.01, $"{before.WriteLogLongestWaitSeconds} s");
        Assert.InRange(before.CounterFlushesPerSecond!.Value, 1200, 2000); // 8 sessions of up to 200 commits/s

        sim.Advance(T0.AddSeconds(70), tracker); // 40 s into the stall; the last poll was at 70 s
        var during = Shop(aggregator);
        Assert.Equal(8, during.OutstandingFlushes);
        Assert.InRange(during.OldestOutstandingFlushSeconds!.Value, 39.9, 40.1);
        Assert.Equal(8, during.WriteLogWaitingSessions);
        Assert.InRange(during.WriteLogLongestWaitSeconds!.Value, 39.9, 40.0);
        // Nothing completes: the server's completed-only figures do not move (the poll interval 65-70 s lies in the stall).
        Assert.Equal(0, during.CounterFlushesPerSecond);
        Assert.Equal(0, during.CounterFlushWaitsPerSecond);
        Assert.Equal(0, during.CounterFlushWaitSecondsPerSecond);
        Assert.Null(during.LogWriteLatencySeconds); // no write completed in the interval

        var advice = Advisor.Advise(during);
        var stall = Assert.Single(advice);
        Assert.Equal("log-stall", stall.Code);
        Assert.StartsWith("8 flushes outstanding for 40 s; 8 sessions waiting on WRITELOG for up to 40 s: the log device is not completing writes", stall.Text, StringComparison.Ordinal);
    }

    [Fact]
    public void After_the_stall_everything_completes_at_once_and_commits_resume()
    {
        var (aggregator, sim, tracker) = Start();
        sim.Advance(T0.AddSeconds(134), tracker);
        var flushesInStall = Shop(aggregator).CounterFlushesTotal;
        var waitsBefore = Shop(aggregator).Waits.Single(w => w.WaitType == "WRITELOG").Count;

        sim.Advance(T0.AddSeconds(145), tracker); // the stall ended at 135 s
        var after = Shop(aggregator);
        Assert.Equal(0, after.OutstandingFlushes);
        Assert.Equal(0, after.OldestOutstandingFlushSeconds);
        Assert.True(after.WriteLogLongestWaitSeconds < 0.01, $"{after.WriteLogLongestWaitSeconds} s");
        Assert.True(after.CounterFlushesTotal > flushesInStall + 8000, "commits resumed");
        // The eight stalled commits completed with the stall's length as their wait.
        Assert.True(after.Waits.Single(w => w.WaitType == "WRITELOG").MaxSeconds >= 104.9);
        Assert.True(after.Waits.Single(w => w.WaitType == "WRITELOG").Count > waitsBefore);
        Assert.DoesNotContain(Advisor.Advise(after), a => a.Code == "log-stall");
        Assert.Equal(0, tracker.Table("sql1")!.Count);
    }

    [Fact]
    public void Every_poll_lists_each_database_s_writelog_waiters_and_completes_that_poll()
    {
        var sink = new RecordingSink();
        SimulationScenarios.Create("log-stall", LightWorkload.Options).Run(T0, TimeSpan.FromSeconds(60), sink);

        var polls = sink.PollEnds(SignalRegistry.WriteLogWaiters);
        Assert.Equal(13, polls.Count); // at 0, 5, ..., 60 s
        var waiters = sink.Rows<WriteLogWaitersRow>();
        Assert.Equal(13, waiters.Count);
        Assert.All(waiters, w => Assert.Equal(("sql1", 5, "shop"), (w.Instance, w.Row.DatabaseId, w.Row.DatabaseName)));
        var atFifty = Assert.Single(waiters, w => w.TimestampUtc == T0.AddSeconds(50));
        Assert.Equal(8, atFifty.Row.Sessions);
        Assert.InRange(atFifty.Row.LongestWaitMs, 19_900, 20_000);
    }

    [Fact]
    public void Mixed_stalls_sql_a_five_minutes_after_start_and_leaves_the_other_instances_alone()
    {
        var (aggregator, sim, tracker) = Start("mixed");
        sim.Advance(T0.AddSeconds(330), tracker);

        var snapshot = aggregator.Snapshot();
        var orders = Assert.Single(snapshot, d => d is { Instance: "sql-a", Database: "orders" });
        Assert.Equal(1, orders.OutstandingFlushes); // one session
        Assert.InRange(orders.OldestOutstandingFlushSeconds!.Value, 29.9, 30.1);
        Assert.Equal("log-stall", Advisor.Advise(orders)[0].Code);
        // audit (delayed durability, no log_flush_complete collected) has no pairs to judge: not outstanding.
        Assert.Equal(0, Assert.Single(snapshot, d => d is { Instance: "sql-a", Database: "audit" }).OutstandingFlushes);
        Assert.All(snapshot.Where(d => d.Instance != "sql-a"), d => Assert.DoesNotContain(Advisor.Advise(d), a => a.Code == "log-stall"));
    }
}
