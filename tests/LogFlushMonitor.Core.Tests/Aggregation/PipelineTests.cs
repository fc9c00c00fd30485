using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Pipeline;
using LogFlushMonitor.Core.Samples;

namespace LogFlushMonitor.Core.Tests.Aggregation;

public class PipelineTests
{
    private static readonly DateTime T0 = new(2026, 11, 22, 0, 0, 0, DateTimeKind.Utc);

    private static LogFlushEvent Flush(int i) => new("sql1", 5, "shop", 512, (ulong)i, T0);

    [Fact]
    public async Task Events_flow_through_the_channel_and_are_drained_on_complete()
    {
        var agg = new LogFlushAggregator();
        var pipeline = new SamplePipeline(agg, capacity: 100_000);
        var consumer = pipeline.RunAsync(CancellationToken.None);
        for (var i = 0; i < 50_000; i++)
        {
            pipeline.DroppingWriter.OnLogFlush(Flush(i));
        }

        pipeline.Complete();
        await consumer.WaitAsync(TimeSpan.FromSeconds(10));
        Assert.Equal(50_000, Assert.Single(agg.Snapshot()).WriteSizes.Count);
        Assert.Equal(0, pipeline.Dropped);
    }

    [Fact]
    public void The_dropping_writer_drops_and_counts_instead_of_blocking_the_source()
    {
        var agg = new LogFlushAggregator();
        var pipeline = new SamplePipeline(agg, capacity: 10); // no consumer running
        for (var i = 0; i < 25; i++)
        {
            pipeline.DroppingWriter.OnLogFlush(Flush(i));
        }

        Assert.Equal(15, pipeline.Dropped);
        Assert.Equal(10, pipeline.Accepted);
        Assert.Equal(15, agg.SnapshotInstances().Single().LostChannelFull);
    }

    [Fact]
    public async Task The_waiting_writer_holds_events_without_blocking_and_loses_none()
    {
        var agg = new LogFlushAggregator();
        var pipeline = new SamplePipeline(agg, capacity: 16);
        var writer = pipeline.CreateWaitingWriter();

        // No consumer yet: every call returns at once; what does not fit is held, not dropped.
        for (var i = 0; i < 100; i++)
        {
            writer.OnLogFlush(Flush(i));
        }

        Assert.Equal(16, pipeline.Accepted);
        Assert.Equal(0, pipeline.Dropped);
        var room = writer.WaitForRoomAsync(CancellationToken.None).AsTask();
        Assert.False(room.IsCompleted); // it waits, asynchronously, for the consumer

        var consumer = pipeline.RunAsync(CancellationToken.None);
        await room.WaitAsync(TimeSpan.FromSeconds(10));
        await pipeline.WaitForDrainAsync(TimeSpan.FromSeconds(10));
        pipeline.Complete();
        await consumer.WaitAsync(TimeSpan.FromSeconds(10));

        Assert.Equal(0, pipeline.Dropped);
        Assert.Equal(100, Assert.Single(agg.Snapshot()).WriteSizes.Count);
    }

    [Fact]
    public async Task A_waiting_writer_keeps_the_order_of_events_it_had_to_hold()
    {
        var order = new List<ulong>();
        var polls = new RecordingSink();
        var pipeline = new SamplePipeline(polls, polls, batch =>
        {
            foreach (var e in batch)
            {
                order.Add(e.Flush.LogBlockId);
            }
        }, capacity: 4);
        var writer = pipeline.CreateWaitingWriter();
        var consumer = pipeline.RunAsync(CancellationToken.None);
        for (var i = 0; i < 1_000; i++)
        {
            writer.OnLogFlush(Flush(i));
            if (i % 100 == 99)
            {
                await writer.WaitForRoomAsync(CancellationToken.None);
            }
        }

        await writer.WaitForRoomAsync(CancellationToken.None);
        pipeline.Complete();
        await consumer.WaitAsync(TimeSpan.FromSeconds(10));

        Assert.Equal(Enumerable.Range(0, 1_000).Select(i => (ulong)i), order);
    }

    [Fact]
    public async Task Events_a_stopping_source_still_holds_are_counted_as_lost()
    {
        var agg = new LogFlushAggregator();
        var pipeline = new SamplePipeline(agg, capacity: 4); // no consumer: nothing ever makes room
        var writer = pipeline.CreateWaitingWriter();
        for (var i = 0; i < 10; i++)
        {
            writer.OnLogFlush(Flush(i));
        }

        using var stop = new CancellationTokenSource();
        var room = writer.WaitForRoomAsync(stop.Token).AsTask();
        await stop.CancelAsync();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => room);
        Assert.Equal(6, pipeline.Dropped);
        Assert.Equal(6, agg.SnapshotInstances().Single().LostChannelFull);
    }

    [Fact]
    public async Task Waiting_for_the_drain_completes_when_the_consumer_applies_the_last_batch_and_times_out_otherwise()
    {
        var agg = new LogFlushAggregator();
        var pipeline = new SamplePipeline(agg);
        pipeline.DroppingWriter.OnLogFlush(Flush(1));

        // Nobody consumes: the wait ends at its timeout, in virtual time, naming what is left.
        var time = new ManualTimeProvider();
        var stuck = pipeline.WaitForDrainAsync(TimeSpan.FromSeconds(5), time);
        time.Advance(TimeSpan.FromSeconds(6));
        var timeout = await Assert.ThrowsAsync<TimeoutException>(() => stuck);
        Assert.Contains("1 events", timeout.Message, StringComparison.Ordinal);

        var drained = pipeline.WaitForDrainAsync(TimeSpan.FromSeconds(10));
        Assert.False(drained.IsCompleted);
        var consumer = pipeline.RunAsync(CancellationToken.None);
        await drained;
        Assert.Equal(1, pipeline.Applied);
        pipeline.Complete();
        await consumer;
    }
}
