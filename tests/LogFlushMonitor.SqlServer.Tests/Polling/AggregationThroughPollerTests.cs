using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Signals;
using LogFlushMonitor.SqlServer.Connections;
using LogFlushMonitor.SqlServer.Polling;
using LogFlushMonitor.SqlServer.Tests.Scripted;

namespace LogFlushMonitor.SqlServer.Tests.Polling;

/// <summary>Faults of the server seen through the pollers and the real <see cref="LogFlushAggregator"/>.</summary>
public class AggregationThroughPollerTests
{
    private static DatabaseSnapshot? Sales(LogFlushAggregator a) => a.Snapshot().SingleOrDefault(d => d.Database == "sales");

    [Fact]
    public async Task Instance_restart_gives_no_negative_rate_and_counts_nothing_twice()
    {
        var aggregator = new LogFlushAggregator();
        await using var server = new ScriptedSqlServer();
        await using var h = new PollerHarness(server, next: aggregator);
        var rates = new List<double?>();
        for (var i = 0; i < 3; i++)
        {
            await h.PollAsync();
            rates.Add(Sales(aggregator)!.CounterFlushesPerSecond);
        }

        Assert.Equal(200, Sales(aggregator)!.CounterFlushesTotal); // 100 -> 200 -> 300, the first is the baseline
        server.Restart(h.Time.GetUtcNow().UtcDateTime.AddSeconds(-5));
        await h.PollAfterCutAsync(); // the server counts from zero: reads 100
        rates.Add(Sales(aggregator)!.CounterFlushesPerSecond);
        await h.PollAsync();
        rates.Add(Sales(aggregator)!.CounterFlushesPerSecond);

        Assert.All(rates.Skip(1), r => Assert.True(r >= 0, $"rate {r}"));
        Assert.Equal(200 + 100 + 100, Sales(aggregator)!.CounterFlushesTotal);
        Assert.Equal(1, aggregator.SnapshotInstances().Single().Restarts);
        Assert.Equal(20, rates[3]!.Value, 6); // 100 flushes in the 5 s since the restart
    }

    [Fact]
    public async Task Database_offline_then_online_then_restored_then_dropped()
    {
        var aggregator = new LogFlushAggregator();
        await using var server = new ScriptedSqlServer();
        await using var h = new PollerHarness(server, next: aggregator);
        await h.PollAsync();
        await h.PollAsync();
        Assert.Equal(100, Sales(aggregator)!.CounterFlushesTotal);

        server.SetOffline("sales");
        await h.PollAsync();
        Assert.Null(Sales(aggregator)); // its rows vanished: the series are retired, not frozen

        server.SetOnline("sales");
        await h.PollAsync(); // a new baseline: the jump while it was away is not counted
        await h.PollAsync();
        Assert.Equal(100, Sales(aggregator)!.CounterFlushesTotal);

        server.Restore("sales");
        await h.PollAsync(); // reads 100 after 400: a reset, nothing counted for the interval
        Assert.Null(Sales(aggregator)!.CounterFlushesPerSecond);
        await h.PollAsync();
        Assert.Equal(200, Sales(aggregator)!.CounterFlushesTotal);
        Assert.True(Sales(aggregator)!.CounterFlushesPerSecond > 0);

        server.DropDatabase("sales");
        await h.PollAsync();
        Assert.Null(Sales(aggregator));
        Assert.Contains(h.Logger.Lines, l => l.EventId == 505);
    }

    [Fact]
    public async Task Impossible_counter_values_from_the_server_are_refused_counted_and_never_exported()
    {
        // Issue 20 item 1, through the real SqlClient: Log Flushes/sec reads -1, then 2^63 - 1, then sane values again.
        var rejected = new List<RejectedReading>();
        var aggregator = new LogFlushAggregator(rejected: rejected.Add);
        await using var server = new ScriptedSqlServer();
        await using var h = new PollerHarness(server, next: aggregator);
        await h.PollAsync();
        await h.PollAsync();
        var sales = server.Database("sales");
        sales.FlushesPerPoll = 0;
        sales.PercentLogUsed = -50;
        sales.Flushes = -1;
        await h.PollAsync();
        sales.Flushes = long.MaxValue;
        sales.PercentLogUsed = 1_000;
        await h.PollAsync();
        sales.Flushes = 400;
        sales.PercentLogUsed = 30;
        await h.PollAsync();

        Assert.Equal(100 + 200, Sales(aggregator)!.CounterFlushesTotal); // 100 -> 200, then 200 -> 400: nothing else
        // The used size follows the percentage (-4,092 KB); _Total's sums are refused too, and counted.
        Assert.Equal(
            [("Log File(s) Used Size (KB)", -4_092L), ("Log Flushes/sec", -1L), ("Percent Log Used", -50L), ("Log Flushes/sec", long.MaxValue), ("Percent Log Used", 1_000L)],
            rejected.Where(r => r.Subject == "sales").Select(r => (r.Name, r.Value)));
        Assert.Equal(rejected.Count, aggregator.SnapshotInstances().Single().LostMalformed);
        Assert.All(rejected, r => Assert.Equal("prod-1", r.Instance));
    }

    [Fact]
    public async Task A_clock_jump_backwards_gives_no_negative_rate_and_no_false_restart()
    {
        var aggregator = new LogFlushAggregator();
        await using var server = new ScriptedSqlServer();
        await using var h = new PollerHarness(server, next: aggregator);
        await h.PollAsync();
        h.Time.Advance(TimeSpan.FromHours(-1));
        await h.PollAsync();
        var rate = Sales(aggregator)!.CounterFlushesPerSecond;
        await h.PollAsync();

        Assert.True(rate is null or >= 0, $"rate {rate}");
        Assert.Equal(200, Sales(aggregator)!.CounterFlushesTotal);
        Assert.Equal(0, aggregator.SnapshotInstances().Single().Restarts);
    }

    [Fact]
    public async Task A_missing_permission_is_named_counted_and_logged_once_while_it_lasts()
    {
        await using var server = new ScriptedSqlServer();
        server.DenyPermission("VIEW SERVER STATE");
        await using var h = new PollerHarness(server);
        await h.PollAsync();
        await h.PollAsync();

        var failures = h.Logger.Lines.Where(l => l.EventId == 501).ToList();
        Assert.Equal(11, failures.Count); // start time, counters, waits, file stats, session drops, the session's cost, WRITELOG waiters, log writers, replicas, log files, log space: once each
        Assert.All(failures, l => Assert.Contains("VIEW SERVER STATE permission was denied", l.Message, StringComparison.Ordinal));
        Assert.Equal(22, h.Health.Errors("prod-1", InstancePoller.Component, SqlErrorKinds.Permission));
        Assert.False(h.Health.IsUp("prod-1", InstancePoller.Component));
        Assert.NotEmpty(h.Poller.Databases); // sys.databases needs no server state: still read
        Assert.Empty(h.Sink.Values<CounterRow>());

        server.GrantAll();
        await h.PollAsync();
        Assert.True(h.Health.IsUp("prod-1", InstancePoller.Component));
        Assert.Equal(11, h.Logger.Lines.Count(l => l.EventId == 502));
        Assert.NotEmpty(h.Sink.Values<CounterRow>());
    }
}
