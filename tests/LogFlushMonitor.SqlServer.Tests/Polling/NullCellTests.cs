using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;
using LogFlushMonitor.SqlServer.Polling;
using LogFlushMonitor.SqlServer.Tests.Scripted;

namespace LogFlushMonitor.SqlServer.Tests.Polling;

/// <summary>
/// Issue 20 item 9: one NULL cell used to stop the whole poller (SqlNullValueException, a reconnect with backoff). A row
/// with a NULL where a value must be is skipped, counted as malformed, and logged once naming the statement and column.
/// </summary>
public class NullCellTests
{
    private static long Malformed(PollerHarness h) => h.Sink.Of<RecordedLoss>().Where(l => l.Kind == LossKind.Malformed).Sum(l => l.Count);

    [Fact]
    public async Task A_NULL_cntr_value_skips_its_row_and_the_poll_goes_on()
    {
        await using var server = new ScriptedSqlServer();
        server.ExtraCounters.Add(("SQLServer:Databases", "Log Flushes/sec", "legacy", null, PerfCounterType.BulkCount));
        server.ExtraCounters.Add(("SQLServer:Databases", "Log Flushes/sec", null, 5, PerfCounterType.BulkCount));
        server.ExtraCounters.Add(("SQLServer:Databases", "Log Flushes/sec", "other", 5, null));
        await using var h = new PollerHarness(server);
        await h.PollAsync();
        await h.PollAsync();

        Assert.True(h.Health.IsUp("prod-1", InstancePoller.Component));
        Assert.Contains(h.Sink.Values<CounterRow>(), c => c.CounterInstance == "sales");
        Assert.DoesNotContain(h.Sink.Values<CounterRow>(), c => c.CounterInstance is "legacy" or "other");
        Assert.Equal(6, Malformed(h));
        var lines = h.Logger.Lines.Where(l => l.EventId == 518).Select(l => l.Message).ToList();
        Assert.Equal(3, lines.Count); // once per column, not per poll
        Assert.Contains(lines, l => l.Contains("sys.dm_os_performance_counters", StringComparison.Ordinal) && l.Contains("cntr_value", StringComparison.Ordinal));
        Assert.Contains(lines, l => l.Contains("instance_name", StringComparison.Ordinal));
        Assert.Contains(lines, l => l.Contains("cntr_type", StringComparison.Ordinal));
    }

    [Fact]
    public async Task NULL_cells_of_wait_and_file_stats_skip_their_row_and_a_NULL_DB_NAME_is_counted()
    {
        await using var server = new ScriptedSqlServer();
        server.ExtraWaits.Add(("PAGEIOLATCH_XX", 1, null, 1, 1));
        server.ExtraFiles.Add((9, null, 2, 10, 4096, 1)); // DB_NAME() of a database dropped between the catalog reads
        server.ExtraFiles.Add((10, "odd", 2, null, 4096, 1));
        await using var h = new PollerHarness(server);
        await h.PollAsync();

        Assert.True(h.Health.IsUp("prod-1", InstancePoller.Component));
        Assert.Contains(h.Sink.Values<WaitStatsRow>(), w => w.WaitType == "WRITELOG");
        Assert.DoesNotContain(h.Sink.Values<WaitStatsRow>(), w => w.WaitType == "PAGEIOLATCH_XX");
        Assert.Contains(h.Sink.Values<FileStatsRow>(), f => f.DatabaseName == "sales");
        Assert.DoesNotContain(h.Sink.Values<FileStatsRow>(), f => f.DatabaseId is 9 or 10);
        Assert.Equal(3, Malformed(h));
        Assert.Contains(h.Logger.Lines, l => l.EventId == 518 && l.Message.Contains("sys.dm_os_wait_stats", StringComparison.Ordinal) && l.Message.Contains("wait_time_ms", StringComparison.Ordinal));
        Assert.Contains(h.Logger.Lines, l => l.EventId == 518 && l.Message.Contains("sys.dm_io_virtual_file_stats", StringComparison.Ordinal) && l.Message.Contains("num_of_writes", StringComparison.Ordinal));
        Assert.Contains(h.Logger.Lines, l => l.EventId == 519 && l.Message.Contains("database_id 9", StringComparison.Ordinal));
    }
}
