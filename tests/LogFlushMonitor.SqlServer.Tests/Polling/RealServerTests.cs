using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.SqlServer.Check;
using LogFlushMonitor.SqlServer.Polling;
using LogFlushMonitor.SqlServer.Tests.RealServer;
using LogFlushMonitor.SqlServer.Tests.Scripted;

namespace LogFlushMonitor.SqlServer.Tests.Polling;

/// <summary>The pollers and check against a real SQL Server: the one LOGFLUSHMONITOR_TEST_SQLSERVER names, else one in Docker.</summary>
[Collection(RealSqlServerCollection.Name)]
[Trait("Category", RealSqlServerCollection.Category)]
public class RealServerTests(RealSqlServerFixture server)
{
    private string ConnectionString() => server.Require();

    [SkippableFact]
    public async Task Pollers_read_counters_waits_files_and_start_time_from_a_real_server()
    {
        var cs = ConnectionString();
        var aggregator = new LogFlushAggregator();
        var sink = new RecordingSink(aggregator);
        var options = new SqlServerInstanceOptions { Name = "real", ConnectionString = cs };
        await using var poller = new InstancePoller(options, cs, new SqlServerSourceOptions(), sink, new SourceHealth(), new CapturingLogger(), TimeProvider.System);
        await poller.PollOnceAsync(CancellationToken.None);
        await Task.Delay(TimeSpan.FromSeconds(1));
        await poller.PollOnceAsync(CancellationToken.None);

        Assert.Contains(sink.Of<CounterSample>(), c => c is { CounterName: "Log Flushes/sec", CounterInstance: "_Total", CounterType: PerfCounterType.BulkCount });
        Assert.DoesNotContain(sink.Of<CounterSample>(), c => c.CounterInstance == "mssqlsystemresource");
        Assert.Contains(sink.Of<WaitStatsSample>(), w => w.WaitType == "WRITELOG");
        Assert.Contains(sink.Of<FileStatsSample>(), f => f.DatabaseName == "master");
        Assert.Equal(2, sink.Of<ServerStartSample>().Select(s => s.StartTimeUtc).Count(t => t == sink.Of<ServerStartSample>()[0].StartTimeUtc));
        Assert.Contains(poller.Databases, d => d is { Name: "tempdb", State: "ONLINE" });
        Assert.Equal(0, aggregator.SnapshotInstances().Single().Restarts);
    }

    [SkippableFact]
    public async Task Check_reads_the_version_and_permissions_of_a_real_server()
    {
        var cs = ConnectionString();
        var result = await InstanceChecker.CheckAsync(new SqlServerInstanceOptions { Name = "real", ConnectionString = cs }, new SqlServerSourceOptions(), null, CancellationToken.None);

        Assert.NotNull(result.ProductVersion);
        Assert.Contains(result.Permissions, p => p.Permission == "VIEW SERVER STATE" && p.Held is not null);
        Assert.NotNull(result.Encrypted);
    }
}
