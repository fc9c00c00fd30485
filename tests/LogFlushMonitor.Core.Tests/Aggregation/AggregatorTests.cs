using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;

namespace LogFlushMonitor.Core.Tests.Aggregation;

[Collection("metrics")]
public class AggregatorTests
{
    private const string Sql1 = "sql1";
    private static readonly DateTime T0 = new(2026, 11, 22, 12, 0, 0, DateTimeKind.Utc);

    private static SignalBatch Flushes(string db, long value, DateTime t) =>
        SignalRegistry.Counters.Row(Sql1, t, new CounterRow("Databases", "Log Flushes/sec", db, value, PerfCounterType.BulkCount));

    [Fact]
    public void Write_sizes_land_in_exact_512_byte_slots()
    {
        var agg = new LogFlushAggregator();
        foreach (var size in new uint[] { 512, 512, 1024, 1536, 61440, 4096, 513 })
        {
            agg.OnLogFlush(new LogFlushEvent(Sql1, 5, "shop", size, 1, T0));
        }

        var db = Assert.Single(agg.Snapshot());
        Assert.Equal("shop", db.Database);
        Assert.Equal(7, db.WriteSizes.Count);
        Assert.Equal(512 + 512 + 1024 + 1536 + 61440 + 4096 + 513, db.WriteSizes.TotalBytes);
        Assert.Equal(2, db.WriteSizes[1]);
        Assert.Equal(2, db.WriteSizes[2]); // 1024 and 513 (rounded up to the next sector)
        Assert.Equal(1, db.WriteSizes[3]);
        Assert.Equal(1, db.WriteSizes[8]);
        Assert.Equal(1, db.WriteSizes[120]);
        Assert.Equal(2, db.WriteSizes.CountAtMost(512));
        Assert.Equal(1, db.WriteSizes.CountAbove(49152));
    }

    [Fact]
    public void Databases_are_kept_apart_per_instance_and_id()
    {
        var agg = new LogFlushAggregator();
        agg.OnLogFlush(new LogFlushEvent("a", 5, "shop", 512, 1, T0));
        agg.OnLogFlush(new LogFlushEvent("b", 5, "shop", 1024, 1, T0));
        agg.OnLogFlush(new LogFlushEvent("a", 6, "crm", 2048, 1, T0));

        var snap = agg.Snapshot().OrderBy(d => d.Instance).ThenBy(d => d.DatabaseId).ToList();
        Assert.Equal(3, snap.Count);
        Assert.Equal(("a", "shop", 512L), (snap[0].Instance, snap[0].Database, snap[0].WriteSizes.TotalBytes));
        Assert.Equal(("a", "crm", 2048L), (snap[1].Instance, snap[1].Database, snap[1].WriteSizes.TotalBytes));
        Assert.Equal(("b", "shop", 1024L), (snap[2].Instance, snap[2].Database, snap[2].WriteSizes.TotalBytes));
    }

    [Fact]
    public void A_database_seen_only_by_id_takes_its_name_when_file_stats_tell_it()
    {
        var agg = new LogFlushAggregator();
        agg.OnLogFlush(new LogFlushEvent(Sql1, 7, null, 512, 1, T0));
        Assert.Equal("id:7", Assert.Single(agg.Snapshot()).Database);

        agg.OnBatch(SignalRegistry.FileStats.Row(Sql1, T0, new FileStatsRow(7, "orders", 2, 10, 5120, 3)));
        Assert.Equal("orders", Assert.Single(agg.Snapshot()).Database);
    }

    [Fact]
    public void A_database_seen_only_by_id_takes_its_name_from_the_servers_list()
    {
        var agg = new LogFlushAggregator();
        agg.OnLogFlush(new LogFlushEvent(Sql1, 9, null, 512, 1, T0));
        agg.OnBatch(SignalRegistry.Databases.Row(Sql1, T0, new DatabaseRow(9, "billing")));
        agg.OnLogFlush(new LogFlushEvent(Sql1, 10, null, 512, 1, T0));
        agg.OnBatch(SignalRegistry.Databases.Row(Sql1, T0, new DatabaseRow(10, "crm")));

        Assert.Equal(["billing", "crm"], agg.Snapshot().Select(d => d.Database).Order().ToArray());
    }

    [Fact]
    public void Flush_durations_and_writelog_waits_give_percentiles()
    {
        var agg = new LogFlushAggregator();
        for (var i = 1; i <= 100; i++)
        {
            agg.OnLogFlush(new LogFlushEvent(Sql1, 5, "shop", 0, (ulong)i, T0, TimeSpan.FromMilliseconds(i)));
            agg.OnWait(new WaitEvent(Sql1, "WRITELOG", TimeSpan.FromMilliseconds(i), 5, "shop", T0));
        }

        var db = Assert.Single(agg.Snapshot());
        Assert.Equal(0, db.WriteSizes.Count); // completes carry durations, not sizes
        Assert.Equal(100, db.FlushDurations.Count);
        Assert.InRange(db.FlushDurations.Quantile(0.5), 0.050, 0.055);
        var w = Assert.Single(db.Waits);
        Assert.Equal("WRITELOG", w.WaitType);
        Assert.Equal(100, w.Count);
        Assert.InRange(w.P95Seconds, 0.095, 0.1045);
        Assert.Equal(0.0505, w.MeanSeconds, 6);
        Assert.Equal(0.1, w.MaxSeconds, 9);
    }

    [Fact]
    public void Counter_rate_is_delta_over_elapsed_seconds()
    {
        var agg = new LogFlushAggregator();
        agg.OnBatch(Flushes("shop", 1000, T0));
        agg.OnBatch(Flushes("shop", 6000, T0.AddSeconds(10)));

        var db = Assert.Single(agg.Snapshot());
        Assert.Equal(500, db.CounterFlushesPerSecond);
        Assert.Equal(5000, db.CounterFlushesTotal);
    }

    [Fact]
    public void Rate_is_not_negative_and_nothing_is_double_counted_after_instance_restart()
    {
        var agg = new LogFlushAggregator();
        var start1 = T0.AddHours(-1);
        agg.OnBatch(SignalRegistry.ServerStart.Row(Sql1, T0, new ServerStartRow(start1)));
        agg.OnBatch(Flushes("shop", 10_000, T0));
        agg.OnBatch(Flushes("shop", 12_000, T0.AddSeconds(10)));

        // Restart 5 s before the next poll: counters count from zero again.
        var start2 = T0.AddSeconds(15);
        agg.OnBatch(SignalRegistry.ServerStart.Row(Sql1, T0.AddSeconds(20), new ServerStartRow(start2)));
        agg.OnBatch(Flushes("shop", 300, T0.AddSeconds(20)));

        var db = Assert.Single(agg.Snapshot());
        Assert.Equal(2000 + 300, db.CounterFlushesTotal);
        Assert.Equal(300 / 5.0, db.CounterFlushesPerSecond);
        Assert.Equal(1, agg.SnapshotInstances().Single().Restarts);
    }

    [Fact]
    public void A_restart_seen_only_by_the_start_time_starts_a_new_series_even_when_the_value_grew()
    {
        var agg = new LogFlushAggregator();
        agg.OnBatch(SignalRegistry.ServerStart.Row(Sql1, T0, new ServerStartRow(T0.AddDays(-1))));
        agg.OnBatch(Flushes("shop", 100, T0));
        agg.OnBatch(SignalRegistry.ServerStart.Row(Sql1, T0.AddSeconds(60), new ServerStartRow(T0.AddSeconds(30))));
        agg.OnBatch(Flushes("shop", 900, T0.AddSeconds(60)));

        var db = Assert.Single(agg.Snapshot());
        Assert.Equal(900, db.CounterFlushesTotal); // 900 since the restart, not 800 = 900 - 100
        Assert.Equal(30, db.CounterFlushesPerSecond);
    }

    [Fact]
    public void A_lower_value_without_a_known_restart_starts_a_new_series_from_that_reading()
    {
        var agg = new LogFlushAggregator();
        agg.OnBatch(Flushes("shop", 5000, T0));
        agg.OnBatch(Flushes("shop", 40, T0.AddSeconds(15)));
        agg.OnBatch(Flushes("shop", 100, T0.AddSeconds(30)));

        var db = Assert.Single(agg.Snapshot());
        Assert.Equal(60, db.CounterFlushesTotal); // nothing for the reset interval, then 40 -> 100
        Assert.Equal(4, db.CounterFlushesPerSecond);
    }

    [Fact]
    public void A_total_that_falls_when_a_database_is_dropped_is_not_counted_again()
    {
        // A database with 15,000 flushes went away between the first two polls.
        using var h = new LogFlushMonitor.Core.Tests.Metrics.MetricsHarness();
        h.Aggregator.OnBatch(Flushes("_Total", 100_000, T0));
        h.Aggregator.OnBatch(Flushes("_Total", 90_000, T0.AddSeconds(15)));
        h.Aggregator.OnBatch(Flushes("_Total", 91_000, T0.AddSeconds(30)));
        // _Total is the instance: exported as sqlserver.instance.log.flushes (a confirmed reset, counted from the dip).
        var exported = Assert.Single(h.Collect(), p => p.Name == "sqlserver.instance.log.flushes");
        Assert.Equal(1_000, exported.Value);
    }

    [Fact]
    public void A_clock_jump_backwards_gives_no_rate_but_keeps_the_increase()
    {
        var agg = new LogFlushAggregator();
        agg.OnBatch(Flushes("shop", 100, T0));
        agg.OnBatch(Flushes("shop", 150, T0.AddSeconds(-30)));

        var db = Assert.Single(agg.Snapshot());
        Assert.Equal(50, db.CounterFlushesTotal);
        Assert.Null(db.CounterFlushesPerSecond);
    }

    [Fact]
    public void Series_a_poll_no_longer_returns_are_retired_with_the_databases_events()
    {
        var agg = new LogFlushAggregator();
        agg.OnLogFlush(new LogFlushEvent(Sql1, 5, "shop", 512, 1, T0));
        agg.OnLogFlush(new LogFlushEvent(Sql1, 6, "gone", 512, 1, T0));
        agg.OnBatch(Flushes("shop", 1, T0));
        agg.OnBatch(Flushes("gone", 1, T0));
        agg.OnBatch(SignalRegistry.Counters.End(Sql1, T0));
        Assert.Equal(2, agg.Snapshot().Count);

        agg.OnBatch(Flushes("shop", 2, T0.AddSeconds(5)));
        agg.OnBatch(SignalRegistry.Counters.End(Sql1, T0.AddSeconds(5)));

        Assert.Equal("shop", Assert.Single(agg.Snapshot()).Database);
    }

    [Fact]
    public void Log_write_latency_is_delta_stall_over_delta_writes()
    {
        var agg = new LogFlushAggregator();
        agg.OnBatch(SignalRegistry.FileStats.Row(Sql1, T0, new FileStatsRow(5, "shop", 2, 1000, 512_000, 500)));
        agg.OnBatch(SignalRegistry.FileStats.Row(Sql1, T0.AddSeconds(10), new FileStatsRow(5, "shop", 2, 3000, 1_536_000, 40_500)));

        var db = Assert.Single(agg.Snapshot());
        Assert.Equal(0.020, db.LogWriteLatencySeconds!.Value, 9); // 40,000 ms over 2,000 writes
        Assert.Equal(200, db.LogWritesPerSecond);
    }

    [Fact]
    public void Source_losses_are_counted_per_kind()
    {
        var agg = new LogFlushAggregator();
        agg.OnSourceLoss(Sql1, LossKind.SequenceGap, 3);
        agg.OnSourceLoss(Sql1, LossKind.Malformed, 1);
        agg.OnSourceLoss(Sql1, LossKind.Malformed, 0);

        var i = agg.SnapshotInstances().Single();
        Assert.Equal((3L, 0L, 0L, 1L), (i.LostSequenceGap, i.LostChannelFull, i.LostServerDropped, i.LostMalformed));
    }

    [Fact]
    public void Event_loss_ratio_compares_events_received_with_the_flush_counter()
    {
        using var h = new LogFlushMonitor.Core.Tests.Metrics.MetricsHarness();
        var agg = h.Aggregator;
        agg.OnLogFlush(new LogFlushEvent(Sql1, 5, "shop", 512, 0, T0));
        agg.OnBatch(Flushes("shop", 1_000, T0));
        for (var i = 0; i < 900; i++)
        {
            agg.OnLogFlush(new LogFlushEvent(Sql1, 5, "shop", 512, (ulong)i, T0.AddMilliseconds(i)));
        }

        agg.OnBatch(Flushes("shop", 2_000, T0.AddSeconds(15)));

        Assert.Equal(0.1, Assert.Single(agg.Snapshot()).EventLossRatio!.Value, 9);
        var exported = Assert.Single(h.Collect(), p => p.Name == "sqlserver.monitor.events.loss");
        Assert.Equal(0.1, exported.Value, 9);
        Assert.Equal("shop", exported.Tags["sqlserver.database.name"]);
    }

    [Fact]
    public void Event_loss_counts_from_the_counters_baseline_even_when_the_first_event_comes_later()
    {
        var agg = new LogFlushAggregator();
        agg.OnBatch(Flushes("shop", 5_000, T0));
        Assert.Null(Assert.Single(agg.Snapshot()).EventLossRatio); // no events at all yet: no loss figure
        for (var i = 0; i < 950; i++)
        {
            agg.OnLogFlush(new LogFlushEvent(Sql1, 5, "shop", 512, (ulong)i, T0.AddMilliseconds(i)));
        }

        agg.OnBatch(Flushes("shop", 6_000, T0.AddSeconds(15)));

        Assert.Equal(0.05, Assert.Single(agg.Snapshot()).EventLossRatio!.Value, 9);
    }

    [Fact]
    public void A_database_renamed_between_readings_is_found_under_its_new_name()
    {
        // The flush counter finds the database's events by name; the index of names must follow a rename.
        var agg = new LogFlushAggregator();
        agg.OnLogFlush(new LogFlushEvent(Sql1, 5, "old", 512, 0, T0));
        agg.OnBatch(Flushes("old", 1_000, T0));
        agg.OnBatch(SignalRegistry.Databases.Row(Sql1, T0.AddSeconds(10), new DatabaseRow(5, "new")));
        agg.OnBatch(Flushes("new", 1_000, T0.AddSeconds(15)));
        for (var i = 0; i < 900; i++)
        {
            agg.OnLogFlush(new LogFlushEvent(Sql1, 5, "new", 512, (ulong)i, T0.AddSeconds(15).AddMilliseconds(i)));
        }

        agg.OnBatch(Flushes("new", 2_000, T0.AddSeconds(30)));

        Assert.Equal(0.1, agg.Snapshot().Single(d => d.Database == "new").EventLossRatio!.Value, 9);
    }

    [Fact]
    public void A_database_dropped_and_created_again_is_found_by_name_in_the_next_poll()
    {
        var agg = new LogFlushAggregator();
        void Poll(DateTime t, long flushes, params string[] databases)
        {
            foreach (var db in databases)
            {
                agg.OnBatch(Flushes(db, flushes, t));
            }

            agg.OnBatch(SignalRegistry.Counters.End(Sql1, t));
        }

        agg.OnLogFlush(new LogFlushEvent(Sql1, 5, "shop", 512, 0, T0));
        Poll(T0, 1_000, "shop", "crm");
        Poll(T0.AddSeconds(15), 1_000, "crm"); // shop dropped: its event state goes with its counters
        agg.OnLogFlush(new LogFlushEvent(Sql1, 6, "shop", 512, 1, T0.AddSeconds(20))); // created again, a new id
        Poll(T0.AddSeconds(30), 500, "shop", "crm");
        for (var i = 0; i < 450; i++)
        {
            agg.OnLogFlush(new LogFlushEvent(Sql1, 6, "shop", 512, (ulong)i, T0.AddSeconds(31).AddMilliseconds(i)));
        }

        Poll(T0.AddSeconds(45), 1_000, "shop", "crm");

        Assert.Equal(0.1, agg.Snapshot().Single(d => d.Database == "shop").EventLossRatio!.Value, 9);
    }
}
