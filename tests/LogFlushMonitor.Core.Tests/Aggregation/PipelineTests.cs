using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Pipeline;
using LogFlushMonitor.Core.Samples;

namespace LogFlushMonitor.Core.Tests.Aggregation;

public class PipelineTests
{
    private static readonly DateTime T0 = new(2026, 11, 22, 0, 0, 0, DateTimeKind.Utc);

    [Fact]
    public async Task Events_flow_through_the_channel_and_are_drained_on_complete()
    {
        var agg = new LogFlushAggregator();
        var pipeline = new SamplePipeline(agg, capacity: 100_000);
        var consumer = pipeline.RunAsync(CancellationToken.None);
        for (var i = 0; i < 50_000; i++)
        {
            pipeline.OnLogFlush(new LogFlushEvent("sql1", 5, "shop", 512, (ulong)i, T0));
        }

        pipeline.Complete();
        await consumer.WaitAsync(TimeSpan.FromSeconds(10));
        Assert.Equal(50_000, Assert.Single(agg.Snapshot()).WriteSizes.Count);
        Assert.Equal(0, pipeline.Dropped);
    }

    [Fact]
    public void A_full_channel_drops_and_counts_instead_of_blocking_the_source()
    {
        var agg = new LogFlushAggregator();
        var pipeline = new SamplePipeline(agg, capacity: 10); // no consumer running
        for (var i = 0; i < 25; i++)
        {
            pipeline.OnLogFlush(new LogFlushEvent("sql1", 5, "shop", 512, (ulong)i, T0));
        }

        Assert.Equal(15, pipeline.Dropped);
        Assert.Equal(10, pipeline.Accepted);
        Assert.Equal(15, agg.SnapshotInstances().Single().LostChannelFull);
    }

    [Fact]
    public async Task A_waiting_source_is_held_back_instead_of_losing_events()
    {
        var agg = new LogFlushAggregator();
        var pipeline = new SamplePipeline(agg, capacity: 16);
        var consumer = pipeline.RunAsync(CancellationToken.None);
        var producer = Task.Run(() =>
        {
            for (var i = 0; i < 20_000; i++)
            {
                pipeline.Waiting.OnLogFlush(new LogFlushEvent("sql1", 5, "shop", 512, (ulong)i, T0));
            }
        });
        await producer.WaitAsync(TimeSpan.FromSeconds(30));
        pipeline.Complete();
        await consumer.WaitAsync(TimeSpan.FromSeconds(10));

        Assert.Equal(0, pipeline.Dropped);
        Assert.Equal(20_000, Assert.Single(agg.Snapshot()).WriteSizes.Count);
    }
}
