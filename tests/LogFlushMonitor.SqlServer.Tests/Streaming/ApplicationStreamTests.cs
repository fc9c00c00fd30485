using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Core.Pipeline;
using LogFlushMonitor.SqlServer.Tests.Scripted;
using LogFlushMonitor.XEvent.TestSupport;

namespace LogFlushMonitor.SqlServer.Tests.Streaming;

/// <summary>
/// WRITELOG time by client application through the real SqlClient and the real XE reader (issue 22 item 3): the session
/// asks for client_app_name on the wait event, the scripted server streams waits carrying it.
/// </summary>
public sealed class ApplicationStreamTests
{
    [Fact]
    public async Task Waits_of_eight_applications_and_a_hostile_one_fold_into_the_top_five_and_other_with_the_hostile_name_cut()
    {
        await using var server = new ScriptedSqlServer();
        var aggregator = new LogFlushAggregator();
        var pipeline = new SamplePipeline(aggregator);
        var options = new SqlServerInstanceOptions { Name = "prod1", SessionName = "lfm_test", Mode = CollectionMode.Stream, IncludeDatabases = ["sales"] };
        using var cts = new CancellationTokenSource();
        var consume = pipeline.RunAsync(cts.Token);
        using var source = TestInstance.Create(options, server.ConnectionString(), pipeline.DroppingWriter, pipeline.Polls, new SourceHealth());
        var run = source.RunEventsAsync(cts.Token);

        var hostile = "\"quoted\"\r\n\u0000\u001b[31m" + new string('é', 10_240);
        var rows = XelWriter.WriteLiveStreamBuffers(StreamRows.Start, w =>
        {
            ulong seq = 1;
            // The hostile application waits most (so it is chosen), then eight ordinary ones, 10 ms per wait.
            for (var i = 0; i < 20; i++)
            {
                w.WaitCompleted(StreamRows.Start.AddMilliseconds(i), (uint)server.WriteLogMapKey, 10, 5, seq++, databaseName: "sales", clientApp: hostile);
            }

            for (var app = 0; app < 8; app++)
            {
                for (var i = 0; i < 10 - app; i++)
                {
                    w.WaitCompleted(StreamRows.Start.AddMilliseconds(100 + (app * 10) + i), (uint)server.WriteLogMapKey, 10, 5, seq++, databaseName: "sales", clientApp: "app" + app);
                }
            }
        }, new XelWriterOptions { WaitTypes = new Dictionary<uint, string> { [(uint)server.WriteLogMapKey] = "WRITELOG" } });
        foreach (var (type, data) in rows)
        {
            await server.EventStream.Writer.WriteAsync([type, data]);
        }

        var total = 20 + Enumerable.Range(0, 8).Sum(a => 10 - a);
        await StreamRows.Eventually(() => source.Stream.Reader.Waits == total, "the waits");
        await pipeline.WaitForDrainAsync(TimeSpan.FromSeconds(10));
        await cts.CancelAsync();
        await run.WaitAsync(TimeSpan.FromSeconds(15));
        await consume;

        Assert.Contains(server.RequestsFor("CREATE EVENT SESSION"), r => r.Text.Contains("ACTION (sqlserver.database_id, sqlserver.client_app_name, sqlserver.query_hash, package0.event_sequence)", StringComparison.Ordinal));
        var apps = aggregator.Snapshot().Single(d => d.DatabaseId == 5).WriteLogApplications;
        Assert.Equal(6, apps.Count);
        Assert.Equal(hostile[..MetricAttributes.MaxValueLength], apps[0].Application); // cut; escaping is the exposition's
        Assert.Equal(0.200, apps[0].Seconds, 9);
        Assert.Equal(["app0", "app1", "app2", "app3"], apps.Skip(1).Select(a => a.Application).Where(a => a != "other").Order(StringComparer.Ordinal));
        var other = Assert.Single(apps, a => a.Application == "other");
        Assert.Equal(6 + 5 + 4 + 3, other.Waits); // app4..app7
        Assert.Equal(total, apps.Sum(a => a.Waits));
    }
}
