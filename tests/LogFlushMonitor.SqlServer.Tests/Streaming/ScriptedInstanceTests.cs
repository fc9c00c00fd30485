using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Pipeline;
using LogFlushMonitor.SqlServer.Connections;
using LogFlushMonitor.SqlServer.Tests.Scripted;

namespace LogFlushMonitor.SqlServer.Tests.Streaming;

/// <summary>The event source against the shared <see cref="ScriptedSqlServer"/> (its faults apply to XE statements too).</summary>
public sealed class ScriptedInstanceTests
{
    [Fact]
    public async Task A_lost_permission_is_reported_as_such_and_the_stream_resumes_once_granted()
    {
        await using var server = new ScriptedSqlServer();
        var aggregator = new LogFlushAggregator();
        var pipeline = new SamplePipeline(aggregator);
        var health = new SourceHealth();
        var options = new SqlServerInstanceOptions { Name = "prod1", SessionName = "lfm_test", Mode = CollectionMode.Stream, IncludeDatabases = ["sales"] };
        using var cts = new CancellationTokenSource();
        var consume = pipeline.RunAsync(cts.Token);
        using var source = TestInstance.Create(options, server.ConnectionString(), pipeline.DroppingWriter, pipeline.Polls, health);
        var run = source.RunEventsAsync(cts.Token);
        foreach (var (type, data) in StreamRows.Flushes(1, 100))
        {
            await server.EventStream.Writer.WriteAsync([type, data]);
        }

        await StreamRows.Eventually(() => source.Stream.Reader.Flushes == 100, "the first flushes");
        Assert.Equal((true, true), server.EventSession("lfm_test"));
        Assert.Contains(server.RequestsFor("CREATE EVENT SESSION"), r => r.Text.Contains("[wait_type] = (190)", StringComparison.Ordinal));

        server.DenyPermission("VIEW SERVER STATE");
        server.Server.DropConnections();
        await StreamRows.Eventually(() => health.Errors("prod1", "session", SqlErrorKinds.Permission) >= 2, "permission errors");
        Assert.False(health.IsUp("prod1", "session"));

        server.GrantAll();
        foreach (var (type, data) in StreamRows.Flushes(101, 100))
        {
            await server.EventStream.Writer.WriteAsync([type, data]);
        }

        await StreamRows.Eventually(() => source.Stream.Reader.Flushes == 200, "the flushes after the grant");
        await pipeline.WaitForDrainAsync(TimeSpan.FromSeconds(10));
        await cts.CancelAsync();
        await run.WaitAsync(TimeSpan.FromSeconds(15));
        await consume;

        Assert.True(health.IsUp("prod1", "stream"));
        Assert.Equal(0, source.Stream.Reader.SequenceLost);
        Assert.Equal(200, aggregator.Snapshot().Single(d => d.DatabaseId == 5).WriteSizes.Count);
        Assert.Equal((true, false), server.EventSession("lfm_test")); // stopped at shutdown
    }
}
