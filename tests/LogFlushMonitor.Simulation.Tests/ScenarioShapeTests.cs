using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Signals;

namespace LogFlushMonitor.Simulation.Tests;

public class ScenarioShapeTests
{
    internal static readonly DateTime T0 = new(2026, 11, 22, 12, 0, 0, DateTimeKind.Utc);

    private static (LogFlushAggregator Aggregator, WorkloadSimulation Simulation) Run(string scenario, TimeSpan duration, SimulationOptions? options = null)
    {
        var aggregator = new LogFlushAggregator();
        var sim = SimulationScenarios.Create(scenario, options);
        sim.Run(T0, duration, aggregator);
        return (aggregator, sim);
    }

    private static DatabaseSnapshot Db(LogFlushAggregator aggregator, string database) =>
        Assert.Single(aggregator.Snapshot(), d => d.Database == database);

    [Fact]
    public void Autocommit_flushes_are_nearly_all_512_bytes_at_about_5000_per_second_per_session()
    {
        var (aggregator, _) = Run("autocommit", TimeSpan.FromSeconds(20));
        var shop = Db(aggregator, "shop");

        var perSecond = shop.WriteSizes.Count / 20.0;
        Assert.InRange(perSecond, 4500, 5500);
        Assert.True(shop.WriteSizes.CountAtMost(512) >= 0.95 * shop.WriteSizes.Count);
        Assert.True(shop.WriteSizes.CountAbove(512) > 0, "a few commits carry 1-4 KB");
        Assert.Equal(0, shop.WriteSizes.CountAbove(4096));
        // Every commit waits for its own flush: one WRITELOG wait per flush, sub-millisecond.
        var writelog = Assert.Single(shop.Waits, w => w.WaitType == "WRITELOG");
        Assert.Equal(shop.WriteSizes.Count, writelog.Count);
        Assert.True(writelog.P95Seconds < 0.001, $"p95 {writelog.P95Seconds}");
        Assert.Equal(shop.WriteSizes.Count, shop.CounterFlushesTotal);
    }

    [Fact]
    public void Autocommit_rate_scales_with_sessions()
    {
        var (aggregator, _) = Run("autocommit", TimeSpan.FromSeconds(10), new SimulationOptions { SessionsPerDatabase = 3 });
        var perSessionPerSecond = Db(aggregator, "shop").WriteSizes.Count / 10.0 / 3;
        Assert.InRange(perSessionPerSecond, 4500, 5500);
    }

    [Fact]
    public void Big_transaction_flushes_are_mostly_full_60KB_blocks_and_few()
    {
        var (aggregator, _) = Run("big-transaction", TimeSpan.FromSeconds(20));
        var warehouse = Db(aggregator, "warehouse");

        var full = warehouse.WriteSizes[WriteSizeDistribution.SlotOf(61440)];
        Assert.True(full >= 0.9 * warehouse.WriteSizes.Count, $"{full} of {warehouse.WriteSizes.Count}");
        Assert.InRange(warehouse.WriteSizes.Count / 20.0, 100, 400);
        // Only the commits wait.
        var writelog = Assert.Single(warehouse.Waits, w => w.WaitType == "WRITELOG");
        Assert.InRange(writelog.Count, 1, warehouse.WriteSizes.Count / 20);
        Assert.Equal(warehouse.WriteSizes.Count, warehouse.CounterFlushesTotal);
    }

    [Fact]
    public void Delayed_durability_flushes_about_ten_times_less_than_autocommit_with_a_spread_of_sizes()
    {
        var (auto, _) = Run("autocommit", TimeSpan.FromSeconds(20));
        var (delayed, _) = Run("delayed-durability", TimeSpan.FromSeconds(20));
        var autoFlushes = Db(auto, "shop").WriteSizes.Count;
        var audit = Db(delayed, "audit");
        var sizes = audit.WriteSizes;

        var ratio = (double)autoFlushes / sizes.Count;
        Assert.InRange(ratio, 7, 16);
        var occupied = Enumerable.Range(0, WriteSizeDistribution.SlotCount).Count(s => sizes[s] >= 5);
        Assert.True(occupied >= 15, $"only {occupied} sizes seen");
        var largest = Enumerable.Range(0, WriteSizeDistribution.SlotCount).Max(s => sizes[s]);
        Assert.True(largest < 0.5 * sizes.Count, "no single size dominates");
        Assert.True(sizes.CountAbove(16384) > 0, "some flushes are large");
        Assert.Equal(0, sizes.CountAbove(61440));
        // Commits do not wait for the log.
        Assert.Empty(audit.Waits);
        Assert.Equal(sizes.Count, audit.CounterFlushesTotal);
    }

    [Fact]
    public void Writelog_spike_raises_wait_p95_and_log_write_latency_in_its_window_then_recovers()
    {
        var sim = SimulationScenarios.Create("writelog-spike");
        var before = new LogFlushAggregator();
        var during = new LogFlushAggregator();
        var after = new LogFlushAggregator();
        sim.Start(T0);
        sim.Advance(T0.AddSeconds(30), before);
        sim.Advance(T0.AddSeconds(36), new LogFlushAggregator());
        sim.Advance(T0.AddSeconds(50), during);
        sim.Advance(T0.AddSeconds(60), new LogFlushAggregator());
        sim.Advance(T0.AddSeconds(90), after);

        foreach (var quiet in new[] { before, after })
        {
            var db = Db(quiet, "payments");
            Assert.True(db.Waits.Single().P95Seconds < 0.001, $"quiet p95 {db.Waits.Single().P95Seconds}");
            Assert.True(db.LogWriteLatencySeconds < 0.001, $"quiet latency {db.LogWriteLatencySeconds}");
            Assert.True(db.FlushDurations.Quantile(0.95) < 0.001);
        }

        var spike = Db(during, "payments");
        Assert.True(spike.Waits.Single().P95Seconds > 0.010, $"spike p95 {spike.Waits.Single().P95Seconds}");
        Assert.True(spike.LogWriteLatencySeconds > 0.010, $"spike latency {spike.LogWriteLatencySeconds}");
        Assert.True(spike.FlushDurations.Quantile(0.95) > 0.010);
        // A session commits at most once per write plus its think time: the flush rate falls while latency is high,
        // and because the 50 sessions keep arriving, the time spent waiting rises with the latency (many clients).
        var quietDb = Db(before, "payments");
        Assert.True(spike.CounterFlushesPerSecond < 0.25 * quietDb.CounterFlushesPerSecond, $"flushes/s {spike.CounterFlushesPerSecond} vs {quietDb.CounterFlushesPerSecond}");
        Assert.InRange(quietDb.CounterFlushWaitSecondsPerSecond!.Value, 1.0, 2.5);
        Assert.True(spike.CounterFlushWaitSecondsPerSecond > 10 * quietDb.CounterFlushWaitSecondsPerSecond, $"pressure {spike.CounterFlushWaitSecondsPerSecond} s/s vs {quietDb.CounterFlushWaitSecondsPerSecond} s/s");
    }

    [Fact]
    public void Writelog_spike_pressure_is_bounded_by_its_sessions()
    {
        // 50 sessions: at most 50 s of waiting per second, however slow the log.
        var sim = SimulationScenarios.Create("writelog-spike");
        var aggregator = new LogFlushAggregator();
        sim.Start(T0);
        sim.Advance(T0.AddSeconds(45), aggregator);
        var pressure = Db(aggregator, "payments").CounterFlushWaitSecondsPerSecond!.Value;
        Assert.InRange(pressure, 25, 50);
    }

    [Fact]
    public void Restart_resets_server_values_yet_totals_never_decrease_and_nothing_is_counted_twice()
    {
        var sim = SimulationScenarios.Create("restart", LightWorkload.Options);
        var aggregator = new LogFlushAggregator();
        var recording = new RecordingSink(aggregator);
        var sink = recording;
        sim.Start(T0);
        long lastCounterTotal = 0, lastEvents = 0;
        for (var s = 5; s <= 60; s += 5)
        {
            sim.Advance(T0.AddSeconds(s), sink);
            var shop = Db(aggregator, "shop");
            Assert.True(shop.CounterFlushesTotal >= lastCounterTotal, $"counter total fell at {s} s");
            Assert.True(shop.WriteSizes.Count >= lastEvents, $"event total fell at {s} s");
            lastCounterTotal = shop.CounterFlushesTotal!.Value;
            lastEvents = shop.WriteSizes.Count;
        }

        var restartedAt = T0.AddSeconds(36.5);
        var instance = Assert.Single(aggregator.SnapshotInstances());
        Assert.Equal(1, instance.Restarts);
        Assert.Equal(restartedAt, instance.StartTimeUtc);
        Assert.Equal(2, recording.Rows<ServerStartRow>().Select(s => s.Row.StartTimeUtc).Distinct().Count());

        // The server's counter really went back to zero...
        var shopFlushCounter = recording.Counters.Where(c => c.Row.CounterInstance == "shop" && c.Row.CounterName == "Log Flushes/sec").Select(c => c.Row).ToList();
        Assert.Contains(shopFlushCounter.Zip(shopFlushCounter.Skip(1)), p => p.Second.Value < p.First.Value);
        // ...and the event_sequence restarted at 1.
        Assert.Equal(1, recording.FlushStarts.Concat(recording.FlushCompletes).Where(f => f.TimestampUtc >= restartedAt).Min(f => f.Sequence));

        // What the counters can honestly count: everything except the flushes between the last poll before the
        // crash (30 s) and the crash (32.5 s), which the server counted but nobody read before it restarted.
        var shopEvents = recording.FlushStarts.Where(f => f.DatabaseName == "shop").ToList();
        var expected = shopEvents.Count(f => f.TimestampUtc < T0.AddSeconds(30) || f.TimestampUtc >= restartedAt);
        Assert.Equal(expected, Db(aggregator, "shop").CounterFlushesTotal);
        Assert.Equal(shopEvents.Count, Db(aggregator, "shop").WriteSizes.Count);
        Assert.DoesNotContain(shopEvents, f => f.TimestampUtc >= T0.AddSeconds(32.5) && f.TimestampUtc < restartedAt);
        Assert.Equal(0, instance.LostSequenceGap);
    }

    [Fact]
    public void Dropped_database_disappears_from_the_snapshot_once_its_rows_vanish()
    {
        var sim = SimulationScenarios.Create("drop-database", LightWorkload.Options);
        var aggregator = new LogFlushAggregator();
        var recording = new RecordingSink(aggregator);
        var sink = recording;
        sim.Start(T0);
        sim.Advance(T0.AddSeconds(30), sink);
        Assert.Contains(aggregator.Snapshot(), d => d.Database == "scratch");

        sim.Advance(T0.AddSeconds(45), sink);
        var names = aggregator.Snapshot().Select(d => d.Database).ToList();
        Assert.DoesNotContain("scratch", names);
        Assert.Contains("shop", names);

        var dropped = T0.AddSeconds(32.5);
        Assert.Contains(recording.FlushStarts, f => f.DatabaseName == "scratch");
        Assert.DoesNotContain(recording.FlushStarts, f => f.DatabaseName == "scratch" && f.TimestampUtc >= dropped);
        Assert.DoesNotContain(recording.Counters, c => c.Row.CounterInstance == "scratch" && c.TimestampUtc >= dropped);
        Assert.DoesNotContain(recording.Rows<FileStatsRow>(), f => f.Row.DatabaseName == "scratch" && f.TimestampUtc >= dropped);
    }

    [Fact]
    public void Mixed_shows_every_shape_at_once_on_four_instances()
    {
        var (aggregator, sim) = Run("mixed", TimeSpan.FromSeconds(10));
        Assert.Equal(4, sim.Instances.Count);
        var all = aggregator.Snapshot();
        // master, model and msdb of each instance flush too, known from their counters alone (no session reports them).
        Assert.Equal(3 * 4, all.Count(d => d.DatabaseId < 0 && d.Database is "master" or "model" or "msdb" && d.CounterFlushesTotal > 0));
        var snapshot = all.Where(d => d.DatabaseId >= 0).ToList();
        Assert.Equal(9, snapshot.Count);
        Assert.Equal(4, snapshot.Select(d => d.Instance).Distinct().Count());
        // sql-d is an Azure SQL Database: its governance is read, and nowhere else's.
        Assert.Equal(["sql-d"], snapshot.Where(d => d.LogRate is not null).Select(d => d.Instance));

        var orders = Db(aggregator, "orders").WriteSizes;
        Assert.True(orders.CountAtMost(512) >= 0.95 * orders.Count);
        var reporting = Db(aggregator, "reporting").WriteSizes;
        Assert.True(reporting[WriteSizeDistribution.SlotOf(61440)] >= 0.9 * reporting.Count);
        var audit = Db(aggregator, "audit").WriteSizes;
        Assert.InRange((double)orders.Count / audit.Count, 7, 16);
        Assert.All(snapshot, d => Assert.True(d.WriteSizes.Count > 0, d.Database));
        Assert.All(snapshot, d => Assert.Equal(d.WriteSizes.Count, d.CounterFlushesTotal));
    }
}
