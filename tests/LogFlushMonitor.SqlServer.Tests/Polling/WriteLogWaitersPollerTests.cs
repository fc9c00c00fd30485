using LogFlushMonitor.Core.Advice;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Signals;
using LogFlushMonitor.SqlServer.Tests.Scripted;

namespace LogFlushMonitor.SqlServer.Tests.Polling;

/// <summary>
/// The sessions waiting on WRITELOG now (sys.dm_os_waiting_tasks joined to sys.dm_exec_requests), through the real
/// SqlClient and Dapper against the scripted server, in every collection mode (the poller runs beside any event source).
/// </summary>
public class WriteLogWaitersPollerTests
{
    [Fact]
    public async Task On_a_healthy_log_every_watched_database_reads_zero_and_the_poll_completes()
    {
        await using var server = new ScriptedSqlServer();
        await using var h = new PollerHarness(server, o => o.ExcludeDatabases = ["tempdb"]);
        await h.PollAsync();

        var waiters = h.Sink.Values<WriteLogWaitersRow>();
        Assert.Equal(["master", "model", "msdb", "sales"], waiters.Select(w => w.DatabaseName).Order(StringComparer.Ordinal));
        Assert.All(waiters, w => Assert.Equal((0, 0L), (w.Sessions, w.LongestWaitMs)));
        Assert.Single(h.Sink.Of<PollEnded>(), p => p.Signal == SignalRegistry.WriteLogWaiters);
        var request = Assert.Single(server.RequestsFor("sys.dm_os_waiting_tasks"));
        Assert.Equal(WriteLogWaitersSignal.ServerStatement.Text, request.Text);
        Assert.True(h.Health.IsUp("prod-1", "poller"));
    }

    [Fact]
    public async Task A_stalled_log_shows_eight_sessions_waiting_for_forty_seconds_and_the_advisor_names_it()
    {
        await using var server = new ScriptedSqlServer();
        var aggregator = new LogFlushAggregator();
        await using var h = new PollerHarness(server, next: aggregator);
        await h.PollAsync();
        server.StallLog("sales", 8, TimeSpan.FromSeconds(40));
        await h.PollAsync();

        var sales = h.Sink.Values<WriteLogWaitersRow>().Where(w => w.DatabaseName == "sales").ToList();
        Assert.Equal([(0, 0L), (8, 40_000L)], sales.Select(w => (w.Sessions, w.LongestWaitMs)));
        Assert.All(sales, w => Assert.Equal(5, w.DatabaseId));
        var snapshot = Assert.Single(aggregator.Snapshot(), d => d.Database == "sales");
        Assert.Equal((8, 40.0), (snapshot.WriteLogWaitingSessions, snapshot.WriteLogLongestWaitSeconds));
        var advice = Assert.Single(Advisor.Advise(snapshot));
        Assert.StartsWith("8 sessions waiting on WRITELOG for up to 40 s: the log device is not completing writes", advice.Text, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Without_view_server_state_the_poll_fails_loudly_once_and_the_other_polls_go_on()
    {
        await using var server = new ScriptedSqlServer();
        await using var h = new PollerHarness(server);
        server.DenyPermission();
        await h.PollAsync();
        await h.PollAsync();

        Assert.Empty(h.Sink.Values<WriteLogWaitersRow>()); // never "nobody waits" when it could not look
        Assert.Single(h.Logger.Lines, l => l.EventId == 501 && l.Message.Contains("writelog_waiters", StringComparison.Ordinal));
        Assert.NotEmpty(h.Sink.Values<DatabaseRow>()); // sys.databases needs no server state
    }

    [Fact]
    public async Task Azure_sql_database_reads_its_own_sessions_through_sys_dm_exec_sessions()
    {
        await using var server = new ScriptedSqlServer();
        await using var h = new PollerHarness(server, o => o.Azure = true);
        server.StallLog("sales", 3, TimeSpan.FromSeconds(20));
        await h.PollAsync();

        var request = Assert.Single(server.RequestsFor("sys.dm_os_waiting_tasks"));
        Assert.Equal(WriteLogWaitersSignal.AzureStatement.Text, request.Text);
        Assert.DoesNotContain("sys.dm_exec_requests", request.Text, StringComparison.Ordinal);
        var waiters = Assert.Single(h.Sink.Values<WriteLogWaitersRow>());
        Assert.Equal((5, "sales", 3, 20_000L), (waiters.DatabaseId, waiters.DatabaseName, waiters.Sessions, waiters.LongestWaitMs));
    }
}
