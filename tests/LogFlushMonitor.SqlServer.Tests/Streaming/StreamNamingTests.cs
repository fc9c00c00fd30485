using System.Collections.Concurrent;
using System.Diagnostics.Metrics;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Core.Pipeline;
using LogFlushMonitor.SqlServer.Tests.Sessions;
using Microsoft.Extensions.DependencyInjection;

namespace LogFlushMonitor.SqlServer.Tests.Streaming;

/// <summary>
/// Tests that create the Meter "LogFlushMonitor": a MeterProvider listens to every meter of that name in the process,
/// so they run one at a time and no test's measurements reach another's provider.
/// </summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class MeterCollection
{
    public const string Name = "LogFlushMonitor meter";
}

[Collection(MeterCollection.Name)]
public sealed class StreamNamingTests
{
    private static SqlServerInstanceOptions Options() =>
        new() { Name = "prod1", SessionName = "lfm_test", Mode = CollectionMode.Stream, IncludeDatabases = ["sales"] };

    [Fact]
    public async Task Streamed_events_that_carry_only_a_database_id_are_exported_under_its_name_from_the_first_one()
    {
        await using var server = new XeScriptedServer();
        foreach (var (type, data) in StreamRows.Flushes(1, 50)) // database_id 5, no database_name action
        {
            await server.StreamRows.Writer.WriteAsync([type, data]);
        }

        using var services = new ServiceCollection().AddMetrics().BuildServiceProvider();
        var factory = services.GetRequiredService<IMeterFactory>();
        var recordedUnder = new ConcurrentQueue<string?>();
        using var listener = new MeterListener
        {
            InstrumentPublished = (instrument, l) =>
            {
                if (instrument.Name == "sqlserver.log.flush.write_size" && ReferenceEquals(instrument.Meter.Scope, factory))
                {
                    l.EnableMeasurementEvents(instrument);
                }
            },
        };
        listener.SetMeasurementEventCallback<long>((_, _, tags, _) =>
        {
            foreach (var tag in tags)
            {
                if (tag.Key == MetricAttributes.Database)
                {
                    recordedUnder.Enqueue(tag.Value as string);
                }
            }
        });
        listener.Start();
        var pipeline = new SamplePipeline(new LogFlushAggregator(new LogFlushMetrics(factory, new SourceHealth())));
        using var instance = TestInstance.Create(Options(), server.ConnectionString(), pipeline.DroppingWriter, pipeline.Polls, new SourceHealth());
        var source = instance.Stream;
        using var cts = new CancellationTokenSource();
        var consume = pipeline.RunAsync(cts.Token);
        var run = source.RunAsync(cts.Token);

        await Eventually.Until(() => source.Reader.Flushes == 50, "the streamed flushes");
        await pipeline.WaitForDrainAsync(TimeSpan.FromSeconds(30));
        await cts.CancelAsync();
        await run.WaitAsync(TimeSpan.FromSeconds(10));
        await consume;

        // The session's databases were named before the first buffer: no count was left behind under "id:5".
        Assert.Equal(50, recordedUnder.Count);
        Assert.All(recordedUnder, name => Assert.Equal("sales", name));
    }
}
