using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.SqlServer.Tests.Scripted;

namespace LogFlushMonitor.SqlServer.Tests.Polling;

public class DatabaseNameTests
{
    [Fact]
    public async Task The_poller_passes_on_every_watched_database_name_from_sys_databases()
    {
        await using var server = new ScriptedSqlServer();
        var names = new NameSink();
        await using var harness = new PollerHarness(server, o => o.Name = "prod-1", next: names);

        await harness.PollAsync();

        Assert.Contains(("prod-1", 5, "sales"), names.Names);
        Assert.Contains(("prod-1", 2, "tempdb"), names.Names);
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

    private sealed class NameSink : ISampleSink
    {
        public List<(string Instance, int Id, string Name)> Names { get; } = [];

        public void OnDatabaseName(string instance, int databaseId, string name) => Names.Add((instance, databaseId, name));

        public void OnLogFlush(in LogFlushEvent flush)
        {
        }

        public void OnWait(in WaitEvent wait)
        {
        }

        public void OnCounter(in CounterSample counter)
        {
        }

        public void OnWaitStats(in WaitStatsSample waitStats)
        {
        }

        public void OnFileStats(in FileStatsSample fileStats)
        {
        }

        public void OnServerStart(in ServerStartSample start)
        {
        }

        public void OnPollCompleted(in PollCompleted completed)
        {
        }

        public void OnSourceLoss(string instance, LossKind kind, long count)
        {
        }
    }
}
