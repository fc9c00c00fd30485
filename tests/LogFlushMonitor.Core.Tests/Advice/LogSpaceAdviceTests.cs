using LogFlushMonitor.Core.Advice;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Signals;

namespace LogFlushMonitor.Core.Tests.Advice;

/// <summary>
/// What the advisor says of the log's space (issue 32): first of all a log that will be full within the hour, with its
/// reason, the missing log backup and its room; a log held for over an hour while it grows; VLFs and growth settings as
/// information. The snapshots are written by hand; every expected text follows from their figures.
/// </summary>
public class LogSpaceAdviceTests
{
    private const long Gib = 1L << 30;

    private static DatabaseSnapshot Db(LogSpaceSnapshot log) => new()
    {
        Instance = "sql1", DatabaseId = 5, Database = "orders", WriteSizes = new WriteSizeDistribution(), FlushDurations = new LatencyDistribution(), Waits = [],
        LogSpace = log,
    };

    private static LogSpaceSnapshot Log(string reason = "LOG_BACKUP", double? toFull = 2_100, long active = 4_402_341_478, bool boundByMax = true,
        long? backupAge = 7_800, double? reasonSeconds = 600, double? growth = 400_000, long? vlfs = 64, IReadOnlyList<LogFileRow>? files = null) =>
        new("FULL", reason, reasonSeconds, active, 5 * Gib, vlfs, backupAge, growth, new LogRoom(1, 5 * Gib, 5 * Gib, 40 * Gib, boundByMax), toFull, files ?? []);

    [Fact]
    public void A_log_full_within_the_hour_is_said_first_with_its_reason_the_missing_backup_and_the_room()
    {
        // 2,100 s = 35 min; 4,402,341,478 B = 4.1 GiB of 5 GiB (the max size); 7,800 s since the log backup = 2 h 10 min.
        var advice = Advisor.Advise(Db(Log()));
        Assert.Equal("log-full-soon", advice[0].Code);
        Assert.Equal(AdviceLevel.Warning, advice[0].Level);
        Assert.Equal("log full in ~35 min: LOG_BACKUP, no log backup for 2 h 10 min; 4.1 GB of 5 GB max: take a log backup (and find why the scheduled ones stopped)", advice[0].Text);
        // The same database is not also told it cannot truncate: the first line says it.
        Assert.DoesNotContain(advice, a => a.Code == "log-not-truncating");
    }

    [Fact]
    public void A_log_the_volume_bounds_says_so_and_another_reason_says_how_long_it_has_held()
    {
        var (text, action) = Advisor.LogFull(Db(Log(reason: "ACTIVE_TRANSACTION", boundByMax: false, reasonSeconds: 1_500)))!.Value;
        Assert.Equal("log full in ~35 min: ACTIVE_TRANSACTION for 25 min; 4.1 GB of 5 GB (all the volume allows)", text);
        Assert.StartsWith("find the open transaction holding it", action, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(3_600.0)] // an hour away: the summary's heads-up starts under it
    [InlineData(null)] // not growing
    public void A_log_an_hour_or_more_from_full_or_not_growing_is_not_about_to_fill(double? toFull) =>
        Assert.Null(Advisor.LogFull(Db(Log(toFull: toFull))));

    [Fact]
    public void A_growing_log_held_for_over_an_hour_is_a_warning_and_for_LOG_BACKUP_the_hour_is_since_the_last_backup()
    {
        // Not about to fill (no time to full under the hour), growing 400,000 B/s = 390.6 KB/s.
        var held = Advisor.Advise(Db(Log(reason: "REPLICATION", toFull: 50_000, reasonSeconds: 4_000)));
        var item = Assert.Single(held, a => a.Code == "log-not-truncating");
        Assert.Equal("the log has not been able to truncate for 1 h 6 min (REPLICATION) and grows 390.6 KB/s: the log reader agent is not reading the log: check replication", item.Text);

        // LOG_BACKUP for 10 minutes of polls, but no log backup for 2 h 10 min: held since the backup.
        Assert.Contains(Advisor.Advise(Db(Log(toFull: 50_000))), a => a.Code == "log-not-truncating" && a.Text.StartsWith("the log has not been able to truncate for 2 h 10 min (LOG_BACKUP: no log backup since)", StringComparison.Ordinal));
        // A log backup 30 minutes ago: LOG_BACKUP is the normal state between backups.
        Assert.DoesNotContain(Advisor.Advise(Db(Log(toFull: 50_000, backupAge: 1_800))), a => a.Code == "log-not-truncating");
        // A routine reason, or a log that does not grow, is no warning however long.
        Assert.DoesNotContain(Advisor.Advise(Db(Log(reason: "CHECKPOINT", toFull: 50_000, reasonSeconds: 9_000))), a => a.Code == "log-not-truncating");
        Assert.DoesNotContain(Advisor.Advise(Db(Log(reason: "REPLICATION", toFull: null, reasonSeconds: 9_000, growth: 0))), a => a.Code == "log-not-truncating");
    }

    [Fact]
    public void Many_vlfs_and_a_percent_growth_on_a_large_log_are_information_not_warnings()
    {
        var file = new LogFileRow(5, "orders", 2, 640_000, -1, 10, true, "L:\\", 100 * Gib, 40 * Gib);
        var advice = Advisor.Advise(Db(Log(toFull: null, vlfs: 2_500, files: [file])));
        var vlfs = Assert.Single(advice, a => a.Code == "log-vlfs");
        Assert.Equal(AdviceLevel.Info, vlfs.Level);
        Assert.StartsWith("2,500 VLFs in the log", vlfs.Text, StringComparison.Ordinal);
        var growth = Assert.Single(advice, a => a.Code == "log-growth-setting");
        Assert.Equal(AdviceLevel.Info, growth.Level);
        Assert.StartsWith("log file 2 (4.9 GB) grows by 10 %", growth.Text, StringComparison.Ordinal); // 640,000 pages = 5,242,880,000 B
        Assert.Null(LogSpaceSignal.VlfAdvice(999));
    }
}
