using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;
using LogFlushMonitor.SqlServer.Tests.Scripted;

namespace LogFlushMonitor.SqlServer.Tests.Polling;

public class OtherPollerTests
{
    [Fact]
    public async Task Log_waits_are_delivered_for_the_wait_types_the_statement_names()
    {
        await using var server = new ScriptedSqlServer();
        await using var h = new PollerHarness(server);
        await h.PollAsync();
        await h.PollAsync();

        var writelog = h.Sink.Values<WaitStatsRow>().Where(w => w.WaitType == "WRITELOG").ToList();
        Assert.Equal([50L, 100L], writelog.Select(w => w.WaitingTasks));
        Assert.Equal([200L, 400L], writelog.Select(w => w.WaitTimeMs));
        Assert.Contains(h.Sink.Values<WaitStatsRow>(), w => w.WaitType == "POOL_LOG_RATE_GOVERNOR");
        var request = server.RequestsFor("sys.dm_os_wait_stats")[0];
        // The names are the monitor's own constants, written into the text: nothing configured enters it.
        Assert.Contains("wait_type IN (N'WRITELOG', N'LOGBUFFER', N'HADR_SYNC_COMMIT')", request.Text, StringComparison.Ordinal);
        Assert.Empty(request.Parameters);
        Assert.Contains("LIKE N'%LOG[_]RATE[_]GOVERNOR%'", request.Text, StringComparison.Ordinal);
        Assert.Equal(2, h.Sink.Of<PollEnded>().Count(p => p.Signal == SignalRegistry.WaitStats));
    }

    [Fact]
    public async Task Log_file_stats_are_delivered_per_watched_database()
    {
        await using var server = new ScriptedSqlServer();
        await using var h = new PollerHarness(server, o => o.ExcludeDatabases = ["tempdb"]);
        await h.PollAsync();

        var files = h.Sink.Values<FileStatsRow>();
        var sales = files.Single(f => f.DatabaseName == "sales");
        Assert.Equal((5, 2, 100L, 409600L, 40L), (sales.DatabaseId, sales.FileId, sales.NumWrites, sales.BytesWritten, sales.IoStallWriteMs));
        Assert.DoesNotContain(files, f => f.DatabaseName == "tempdb");
        var request = server.RequestsFor("sys.dm_io_virtual_file_stats").Single();
        Assert.Contains("mf.type = 1", request.Text, StringComparison.Ordinal);
        Assert.Empty(request.Parameters); // the exclude list is applied to the rows
    }

    [Fact]
    public async Task Start_time_is_sent_every_poll_survives_a_DST_change_and_changes_on_restart()
    {
        await using var server = new ScriptedSqlServer();
        await using var h = new PollerHarness(server);
        var first = server.StartTimeUtc;
        await h.PollAsync();
        server.UtcOffset = TimeSpan.FromHours(1); // the server's clock moved to summer time; sqlserver_start_time (local) did not
        await h.PollAsync();
        server.Restart(first.AddDays(1));
        await h.PollAfterCutAsync();

        Assert.Equal([first, first, first.AddDays(1)], h.Sink.Values<ServerStartRow>().Select(s => s.StartTimeUtc));
        Assert.All(h.Sink.Values<ServerStartRow>(), s => Assert.Equal(DateTimeKind.Utc, s.StartTimeUtc.Kind));
        Assert.Equal(2, server.Server.Logins.Count); // the cut connection was replaced, once
    }

    [Fact]
    public async Task Server_dropped_events_are_delivered_as_increases_and_survive_a_session_restart()
    {
        await using var server = new ScriptedSqlServer();
        await using var h = new PollerHarness(server, o => o.SessionName = "lfm");
        server.SetSessionDrops("lfm", 1000, 3);
        await h.PollAsync(); // baseline: drops from before we watched are not ours
        server.SetSessionDrops("lfm", 1250, 4);
        await h.PollAsync();
        server.RecreateSession("lfm", new DateTime(2026, 11, 22, 13, 0, 0, DateTimeKind.Utc));
        server.SetSessionDrops("lfm", 40, 0);
        await h.PollAsync();

        Assert.Equal([250L, 40L], h.Sink.Of<RecordedLoss>().Select(l => l.Count));
        Assert.All(h.Sink.Of<RecordedLoss>(), l => Assert.Equal(LossKind.ServerDropped, l.Kind));
        Assert.All(server.RequestsFor("dropped_event_count"), r => Assert.Equal("lfm", r.Parameter("name")));
        Assert.Contains(h.Logger.Lines, l => l.EventId == 506 && l.Message.Contains("lfm", StringComparison.Ordinal));
    }

    [Fact]
    public async Task Azure_reads_database_scoped_views()
    {
        await using var server = new ScriptedSqlServer();
        await using var h = new PollerHarness(server, o => o.Azure = true);
        await h.PollAsync();

        Assert.Contains(server.Server.Requests, r => r.Text == XeDropsSignal.DatabaseStatement.Text);
        Assert.Contains(server.Server.Requests, r => r.Text == WaitStatsSignal.AzureStatement.Text);
        Assert.Contains(server.Server.Requests, r => r.Text == FileStatsSignal.AzureStatement.Text);
        Assert.DoesNotContain(server.Server.Requests, r => r.Text.Contains("sys.master_files", StringComparison.Ordinal) || r.Text.Contains("sys.dm_os_sys_info", StringComparison.Ordinal));
        Assert.NotEmpty(h.Sink.Values<WaitStatsRow>());
        // The view is the database's there: each row names it, so the commit budget can take its governor waits per database.
        Assert.All(h.Sink.Values<WaitStatsRow>(), w => Assert.Equal("sales", w.DatabaseName));
        Assert.NotEmpty(h.Sink.Values<FileStatsRow>());
        Assert.DoesNotContain(server.Server.Requests, r => r.Text.Contains("sys.dm_xe_sessions", StringComparison.Ordinal));
    }

    [Fact]
    public async Task Database_state_and_delayed_durability_changes_are_logged_and_names_delivered()
    {
        await using var server = new ScriptedSqlServer();
        await using var h = new PollerHarness(server);
        await h.PollAsync();
        Assert.Contains(h.Poller.Databases, d => d is { Id: 5, Name: "sales", State: "ONLINE" });

        server.SetDelayedDurability("sales", "FORCED");
        await h.PollAsync();
        server.SetOffline("sales");
        await h.PollAsync();
        server.DropDatabase("sales");
        await h.PollAsync();

        var lines = h.Logger.Lines.Select(l => l.Message).ToList();
        Assert.Contains(lines, l => l.Contains("sales", StringComparison.Ordinal) && l.Contains("DISABLED -> FORCED", StringComparison.Ordinal));
        Assert.Contains(lines, l => l.Contains("sales", StringComparison.Ordinal) && l.Contains("ONLINE -> OFFLINE", StringComparison.Ordinal));
        Assert.Contains(lines, l => l.Contains("sales", StringComparison.Ordinal) && l.Contains("gone", StringComparison.Ordinal));
        Assert.DoesNotContain(h.Poller.Databases, d => d.Name == "sales");
    }
}
