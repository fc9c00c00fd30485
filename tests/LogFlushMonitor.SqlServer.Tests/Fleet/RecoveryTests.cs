using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Signals;
using LogFlushMonitor.SqlServer.Connections;
using LogFlushMonitor.SqlServer.Fleet;
using LogFlushMonitor.SqlServer.Polling;
using LogFlushMonitor.SqlServer.Tests.Scripted;

namespace LogFlushMonitor.SqlServer.Tests.Fleet;

public class RecoveryTests
{
    private static (SqlServerFleet Fleet, RecordingSink Sink, SourceHealth Health, CapturingLogger Logger) Start(ScriptedSqlServer server, ManualTimeProvider time)
    {
        var sink = new RecordingSink();
        var health = new SourceHealth(time);
        var logger = new CapturingLogger(time);
        var options = new SqlServerSourceOptions
        {
            PollInterval = TimeSpan.FromSeconds(15),
            MaxReconnectDelay = TimeSpan.FromSeconds(30),
            Instances = [new SqlServerInstanceOptions { Name = "prod-1", ConnectionString = server.ConnectionString() }],
        };
        var fleet = new SqlServerFleet(options, sink, sink, health, logger, time)
        {
            Random = () => 0,
        };
        return (fleet, sink, health, logger);
    }

    [Fact]
    public async Task Polling_resumes_after_logins_are_accepted_again()
    {
        var time = new ManualTimeProvider();
        await using var server = new ScriptedSqlServer { RejectLogins = true };
        var (fleet, sink, health, logger) = Start(server, time);
        using var stop = new CancellationTokenSource();
        var run = fleet.RunPollsAsync(stop.Token);

        Assert.True(await time.AdvanceUntilAsync(() => server.Server.Logins.Count >= 3, TimeSpan.FromMilliseconds(500), TimeSpan.FromMinutes(2)));
        Assert.False(health.IsUp("prod-1", InstancePoller.Component));
        server.RejectLogins = false;
        Assert.True(await time.AdvanceUntilAsync(() => sink.Of<PollEnded>().Count(p => p.Signal == SignalRegistry.Counters) >= 2, TimeSpan.FromMilliseconds(500), TimeSpan.FromMinutes(2)));
        await stop.CancelAsync();
        await run.WaitAsync(TimeSpan.FromSeconds(10));

        Assert.True(health.IsUp("prod-1", InstancePoller.Component));
        var polls = sink.Of<PollEnded>().Where(p => p.Signal == SignalRegistry.Counters).Select(p => p.TimestampUtc).ToList();
        Assert.Equal(TimeSpan.FromSeconds(15), polls[1] - polls[0]); // back on the interval, not on the backoff
        Assert.Single(logger.Lines, l => l.EventId == 530); // the login failure, once
        Assert.Contains(logger.Lines, l => l.EventId == 532 && l.Message.Contains("works again after 3 failed attempt(s)", StringComparison.Ordinal));
    }

    [Fact]
    public async Task A_connection_cut_mid_poll_is_replaced_after_a_backoff()
    {
        var time = new ManualTimeProvider();
        await using var server = new ScriptedSqlServer();
        server.CutNext(1, "sys.dm_os_wait_stats");
        var (fleet, sink, health, logger) = Start(server, time);
        using var stop = new CancellationTokenSource();
        var run = fleet.RunPollsAsync(stop.Token);

        Assert.True(await time.AdvanceUntilAsync(() => sink.Of<PollEnded>().Any(p => p.Signal == SignalRegistry.WaitStats), TimeSpan.FromMilliseconds(250), TimeSpan.FromMinutes(1)));
        await stop.CancelAsync();
        await run.WaitAsync(TimeSpan.FromSeconds(10));

        Assert.Equal(2, server.Server.Logins.Count);
        Assert.Equal(1, health.Errors("prod-1", InstancePoller.Component, SqlErrorKinds.Disconnected));
        Assert.Contains(logger.Lines, l => l.EventId == 530 && l.Message.Contains("disconnected, transient", StringComparison.Ordinal));
    }
}
