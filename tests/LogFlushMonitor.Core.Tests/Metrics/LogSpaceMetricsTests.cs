using LogFlushMonitor.Core.Signals;
using OpenTelemetry.Metrics;

namespace LogFlushMonitor.Core.Tests.Metrics;

/// <summary>
/// The log's space through the real SDK (issue 32): the reason as a bounded attribute with how long it has held, the log
/// files' headroom (per volume, the smaller of the max sizes and the sizes plus the free space), the growth over the
/// window and the time to full, worked out by hand in the comments.
/// </summary>
[Collection("metrics")]
public class LogSpaceMetricsTests
{
    private const long Gib = 1L << 30;
    private const long Mib = 1L << 20;
    private static readonly DateTime T0 = new(2026, 11, 22, 12, 0, 0, DateTimeKind.Utc);

    private static LogSpaceRow Space(string reason, long activeBytes, string database = "shop") =>
        new(database == "shop" ? 5 : 6, database, "FULL", reason, 4 * Gib, activeBytes, 16, 4, activeBytes, Mib, 3_600);

    private static LogFileRow File(int fileId, long sizePages, long maxPages, string? volume, long? free, long growth = 8_192) =>
        new(5, "shop", fileId, sizePages, maxPages, growth, false, volume, free is null ? null : 100 * Gib, free);

    private static void Poll(MetricsHarness h, DateTime at, LogSpaceRow[] space, params LogFileRow[] files)
    {
        h.Aggregator.OnBatch(SignalRegistry.LogFiles.Batch("sql1", at, files, endsPoll: true));
        h.Aggregator.OnBatch(SignalRegistry.LogSpace.Batch("sql1", at, space, endsPoll: true));
    }

    [Fact]
    public void The_reason_is_an_attribute_and_its_value_is_how_long_the_polls_have_seen_it()
    {
        using var h = new MetricsHarness();
        Poll(h, T0, [Space("ACTIVE_TRANSACTION", Gib)]);
        Poll(h, T0.AddMinutes(25), [Space("ACTIVE_TRANSACTION", Gib)]);

        var reason = Assert.Single(h.Collect(), p => p.Name == "sqlserver.log.reuse_wait.duration");
        Assert.Equal(("s", MetricType.DoubleGauge, 1_500.0, "ACTIVE_TRANSACTION"), (reason.Unit, reason.Type, reason.Value, reason.Tags["log.reuse_wait"]));
        Assert.Equal(("sql1", "shop"), (reason.Tags["sqlserver.instance.name"], reason.Tags["sqlserver.database.name"]));

        Poll(h, T0.AddMinutes(26), [Space("NOTHING", Gib)]);
        reason = Assert.Single(h.Collect(), p => p.Name == "sqlserver.log.reuse_wait.duration");
        Assert.Equal((0.0, "NOTHING"), (reason.Value, reason.Tags["log.reuse_wait"]));
    }

    [Fact]
    public void Two_log_files_on_one_volume_share_its_free_space_and_a_third_elsewhere_adds_its_own_room()
    {
        using var h = new MetricsHarness();
        // Files 2 and 3 on L: (1 GiB and 2 GiB, each max 10 GiB), 4 GiB free there: together at most 3 + 4 = 7 GiB, less than
        // their 20 GiB of max sizes. File 4 on M: 1 GiB, max 2 GiB, 50 GiB free: its max, 2 GiB. Headroom 7 + 2 = 9 GiB.
        Poll(h, T0, [Space("NOTHING", Gib)],
            File(2, Gib / 8192, 10 * Gib / 8192, "L:\\", 4 * Gib), File(3, 2 * Gib / 8192, 10 * Gib / 8192, "L:\\", 4 * Gib),
            File(4, Gib / 8192, 2 * Gib / 8192, "M:\\", 50 * Gib));

        var points = h.Collect();
        Assert.Equal(9.0 * Gib, Assert.Single(points, p => p.Name == "sqlserver.log.headroom").Value);
        Assert.Equal(22.0 * Gib, Assert.Single(points, p => p.Name == "sqlserver.log.max.size").Value);
        Assert.Equal(54.0 * Gib, Assert.Single(points, p => p.Name == "sqlserver.log.volume.available").Value); // each volume once
    }

    [Fact]
    public void A_file_that_cannot_grow_stays_at_its_size_and_without_a_volume_the_max_size_alone_bounds_it()
    {
        using var h = new MetricsHarness();
        // File 2: growth 0, 1 GiB: 1 GiB whatever its max. File 3: max_size 0 (no growth), 1 GiB: 1 GiB. File 4: unknown
        // volume, unlimited: 2 TB (268,435,456 pages). Headroom 2 GiB + 2 TiB.
        Poll(h, T0, [Space("NOTHING", Gib)],
            File(2, Gib / 8192, -1, "L:\\", 500 * Gib, growth: 0), File(3, Gib / 8192, 0, "L:\\", 500 * Gib), File(4, Gib / 8192, -1, null, null));

        var points = h.Collect();
        Assert.Equal((2.0 * Gib) + (268_435_456.0 * 8192), Assert.Single(points, p => p.Name == "sqlserver.log.headroom").Value);
    }

    [Fact]
    public void The_time_to_full_is_the_room_left_at_the_growth_over_the_window_and_a_truncation_clears_it()
    {
        using var h = new MetricsHarness();
        // One 4 GiB file, max 5 GiB (655,360 pages), 40 GiB free: headroom 5 GiB.
        var file = File(2, 4 * Gib / 8192, 655_360, "L:\\", 40 * Gib);
        // Active 1 GiB, then 120 MiB more every minute (2 MiB/s) for 4 minutes: 1,504 MiB at 240 s.
        for (var minute = 0; minute <= 4; minute++)
        {
            Poll(h, T0.AddMinutes(minute), [Space("LOG_BACKUP", Gib + (minute * 120 * Mib))], file);
        }

        // (5,120 - 1,504) MiB / 2 MiB/s = 1,808 s.
        var points = h.Collect();
        Assert.Equal(2.0 * Mib, Assert.Single(points, p => p.Name == "sqlserver.log.growth.rate").Value, 6);
        var full = Assert.Single(points, p => p.Name == "sqlserver.log.time_to_full");
        Assert.Equal(("s", 1_808.0, "LOG_BACKUP"), (full.Unit, Math.Round(full.Value, 6), full.Tags["log.reuse_wait"]));

        // A log backup: the active log falls to 64 MiB. No growth is known again until the readings span a minute.
        Poll(h, T0.AddMinutes(5), [Space("NOTHING", 64 * Mib)], file);
        points = h.Collect();
        Assert.DoesNotContain(points, p => p.Name is "sqlserver.log.time_to_full" or "sqlserver.log.growth.rate");
        Assert.Equal(64.0 * Mib, Assert.Single(points, p => p.Name == "sqlserver.log.active.size").Value);
    }

    [Fact]
    public void A_log_that_does_not_grow_or_whose_room_is_not_known_has_no_time_to_full()
    {
        using var h = new MetricsHarness();
        var file = File(2, 4 * Gib / 8192, 655_360, "L:\\", 40 * Gib);
        for (var minute = 0; minute <= 3; minute++)
        {
            Poll(h, T0.AddMinutes(minute), [Space("LOG_BACKUP", Gib), Space("LOG_BACKUP", Gib + (minute * Gib), database: "other")], file);
        }

        // shop: flat, a rate of 0 and no time to full. other: growing, but no log file of its own was read (no headroom).
        var points = h.Collect();
        Assert.Equal(0.0, Assert.Single(points, p => p.Name == "sqlserver.log.growth.rate" && Equals(p.Tags["sqlserver.database.name"], "shop")).Value);
        Assert.DoesNotContain(points, p => p.Name == "sqlserver.log.time_to_full");
    }

    [Fact]
    public void A_database_the_poll_no_longer_lists_loses_its_log_series()
    {
        using var h = new MetricsHarness();
        Poll(h, T0, [Space("NOTHING", Gib)], File(2, Gib / 8192, -1, "L:\\", Gib));
        Assert.Contains(h.Collect(), p => p.Name == "sqlserver.log.headroom");

        Poll(h, T0.AddMinutes(1), []);
        Assert.DoesNotContain(h.Collect(), p => p.Name.StartsWith("sqlserver.log.", StringComparison.Ordinal) && Equals(p.Tags.GetValueOrDefault("sqlserver.database.name"), "shop")
            && p.Name is not ("sqlserver.log.flushes" or "sqlserver.log.usage"));
    }

    [Theory]
    [InlineData("LOG_BACKUP", "LOG_BACKUP")]
    [InlineData(" log_backup ", "LOG_BACKUP")]
    [InlineData("OTHER TRANSIENT", "OTHER_TRANSIENT")]
    [InlineData("AVAILABILITY_REPLICA", "AVAILABILITY_REPLICA")]
    [InlineData("SOMETHING_A_NEWER_SERVER_SAYS", "OTHER")]
    [InlineData("", "OTHER")]
    public void A_reason_is_one_of_the_documented_values_or_OTHER(string raw, string expected) =>
        Assert.Equal(expected, LogReuseWaits.Bounded(raw));

    [Fact]
    public void The_growth_window_keeps_ten_minutes_of_readings_a_minute_apart_and_its_slope_is_least_squares()
    {
        var w = new LogGrowthWindow();
        // Readings every 30 s for 20 minutes of a log that grows in steps, as a log grows by whole VLFs: 120,000 B every 2 minutes.
        for (var s = 0; s <= 1_200; s += 30)
        {
            w.Add(T0.AddSeconds(s), 120_000L * (s / 120));
        }

        // Kept: the ten readings a minute apart in the last 10 minutes, 660 to 1,200 s (x = 0 to 540 s, mean 270), worth
        // 600,000, 720,000, 720,000, 840,000, 840,000, 960,000, 960,000, 1,080,000, 1,080,000 and 1,200,000 B (mean 900,000).
        // Sum of (x - 270)(y - 900,000) = 306,000,000; sum of (x - 270)^2 = 297,000: 1,030.30 B/s.
        Assert.Equal(306_000_000.0 / 297_000, w.BytesPerSecond!.Value, 6);

        // A reading lower than the last (a truncation) starts again: nothing until the readings span a minute.
        w.Add(T0.AddSeconds(1_230), 5_000);
        Assert.Null(w.BytesPerSecond);
        w.Add(T0.AddSeconds(1_260), 35_000);
        Assert.Null(w.BytesPerSecond);
        w.Add(T0.AddSeconds(1_290), 65_000); // 60,000 B in 60 s
        Assert.Equal(1_000, w.BytesPerSecond!.Value, 6);
    }
}
