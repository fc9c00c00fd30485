using LogFlushMonitor.Core.Signals;
using LogFlushMonitor.Hosting;
using LogFlushMonitor.SqlServer.Connections;
using LogFlushMonitor.SqlServer.Polling;
using LogFlushMonitor.SqlServer.Tests.Scripted;

namespace LogFlushMonitor.SqlServer.Tests.Polling;

/// <summary>Issue 19 item 5: no silence that hides a fault.</summary>
public class CounterCoverageTests
{
    [Fact]
    public async Task An_instance_whose_counters_are_not_registered_is_a_named_fault_not_a_quiet_server()
    {
        await using var server = new ScriptedSqlServer { CountersRegistered = false };
        await using var h = new PollerHarness(server);
        await h.PollAsync();
        await h.PollAsync();

        Assert.Empty(h.Sink.Values<CounterRow>());
        Assert.False(h.Health.IsUp("prod-1", InstancePoller.Component)); // it used to say up
        Assert.Equal(2, h.Health.Errors("prod-1", InstancePoller.Component, SqlErrorKinds.CountersMissing));
        Assert.Contains(h.Health.Problems("prod-1"), p => p.Contains("performance counters are not registered", StringComparison.Ordinal));
        Assert.Single(h.Logger.Lines, l => l.EventId == 515);
        Assert.NotEmpty(h.Sink.Values<WaitStatsRow>()); // the other polls go on

        server.CountersRegistered = true;
        await h.PollAsync();
        Assert.True(h.Health.IsUp("prod-1", InstancePoller.Component));
        Assert.Empty(h.Health.Problems("prod-1"));
        Assert.Contains(h.Logger.Lines, l => l.EventId == 502 && l.Message.Contains("counters", StringComparison.Ordinal));
    }

    [Fact]
    public async Task A_watched_database_without_counters_is_named_once_after_two_polls_and_degrades_readiness()
    {
        await using var server = new ScriptedSqlServer();
        var sales = server.Database("sales");
        sales.HasCounters = false;
        var quiet = server.AddDatabase("quiet");
        quiet.HasCounters = false;
        quiet.AutoClose = true; // closed while idle: no rows is normal
        await using var h = new PollerHarness(server);
        var readiness = new Readiness(h.Health, h.Time, TimeSpan.FromMinutes(2));
        readiness.HostStarted();
        readiness.ExpectInstances("source:sqlserver", ["prod-1"]);

        await h.PollAsync();
        Assert.Empty(h.Health.Problems("prod-1")); // one poll may race a CREATE or DROP DATABASE
        await h.PollAsync();
        await h.PollAsync();

        Assert.True(h.Health.IsUp("prod-1", InstancePoller.Component)); // the poller works: degraded, not down
        Assert.Equal(["poller: watched databases without performance counters: sales"], h.Health.Problems("prod-1"));
        Assert.Equal(1, h.Health.Errors("prod-1", InstancePoller.Component, SqlErrorKinds.DatabaseMissing));
        var line = Assert.Single(h.Logger.Lines, l => l.EventId == 516);
        Assert.Contains("sales", line.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("quiet", line.Message, StringComparison.Ordinal);
        var (ready, body) = readiness.Check();
        Assert.True(ready);
        Assert.Contains("\"prod-1\":\"degraded\"", body, StringComparison.Ordinal);
        Assert.Contains("prod-1 poller: watched databases without performance counters: sales", body, StringComparison.Ordinal);

        sales.HasCounters = true;
        await h.PollAsync();
        Assert.Empty(h.Health.Problems("prod-1"));
        Assert.Single(h.Logger.Lines, l => l.EventId == 517);
    }

    [Fact]
    public async Task An_included_database_that_does_not_exist_is_named_as_such()
    {
        await using var server = new ScriptedSqlServer();
        await using var h = new PollerHarness(server, o => o.IncludeDatabases = ["sales", "salse"]);
        await h.PollAsync();
        await h.PollAsync();

        Assert.Equal(["poller: watched databases without performance counters: salse (no such database)"], h.Health.Problems("prod-1"));
    }
}
