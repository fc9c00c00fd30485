using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;
using LogFlushMonitor.SqlServer.Tests.Scripted;

namespace LogFlushMonitor.SqlServer.Tests.Polling;

public class DatabaseNameTests
{
    [Fact]
    public async Task The_poller_passes_on_every_watched_database_name_from_sys_databases()
    {
        await using var server = new ScriptedSqlServer();
        await using var harness = new PollerHarness(server, o => o.Name = "prod-1");

        await harness.PollAsync();

        var names = harness.Sink.Rows<DatabaseRow>().Select(d => (d.Instance, d.Row.DatabaseId, d.Row.Name)).ToList();
        Assert.Contains(("prod-1", 5, "sales"), names);
        Assert.Contains(("prod-1", 2, "tempdb"), names);
    }

    [Fact]
    public async Task Sys_databases_names_the_event_series_that_carry_only_a_database_id()
    {
        await using var server = new ScriptedSqlServer();
        var aggregator = new LogFlushAggregator();
        await using var harness = new PollerHarness(server, o => o.Name = "prod-1", next: aggregator);
        aggregator.OnLogFlush(new LogFlushEvent("prod-1", 5, null, 512, 1, DateTime.UtcNow)); // as the live stream delivers it
        Assert.Equal("id:5", Assert.Single(aggregator.Snapshot(), d => d.DatabaseId == 5).Database);

        await harness.PollAsync();

        Assert.Equal("sales", Assert.Single(aggregator.Snapshot(), d => d.DatabaseId == 5).Database);
    }
}
