using LogFlushMonitor.Core.Advice;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Pipeline;
using LogFlushMonitor.SqlServer.Tests.Sessions;
using LogFlushMonitor.TdsTestServer;
using LogFlushMonitor.XEvent.TestSupport;

namespace LogFlushMonitor.SqlServer.Tests.Streaming;

/// <summary>
/// Flushes that start and do not complete on a live stream: paired on the reading thread, read by the aggregation at
/// collection time (not through the channel), ageing on the server's clock while the stream is silent.
/// </summary>
public sealed class StreamStallTests
{
    private static readonly DateTime Start = StreamRows.Start;

    private static SqlServerInstanceOptions Options() => new() { Name = "prod1", SessionName = "lfm_test", Mode = CollectionMode.Stream, IncludeDatabases = ["sales"] };

    /// <summary>Ten flushes of sales that complete, then eight that start at Start + 1 s and never complete.</summary>
    private static List<(int Type, byte[] Data)> TenPairsThenEightStarts() =>
        XelWriter.WriteLiveStreamBuffers(Start, w =>
        {
            ulong seq = 1;
            for (var i = 1; i <= 10; i++)
            {
                w.LogFlushStart(Start.AddMilliseconds(i), 5, null, 512, (ulong)i, seq++);
                w.LogFlushComplete(Start.AddMilliseconds(i).AddTicks(1500), 5, null, (ulong)i, 0, seq++);
            }

            for (var i = 11; i <= 18; i++)
            {
                w.LogFlushStart(Start.AddSeconds(1).AddMilliseconds(i - 11), 5, null, 512, (ulong)i, seq++);
            }

            w.Flush();
        }).ToList();

    [Fact]
    public async Task Starts_without_their_complete_age_on_the_server_s_clock_while_the_stream_is_silent_and_go_when_it_stops()
    {
        await using var server = new XeScriptedServer();
        var rows = TenPairsThenEightStarts();
        foreach (var (type, data) in rows)
        {
            await server.StreamRows.Writer.WriteAsync([type, data]);
        }

        // Our clock is 7 minutes behind the server's: the age must not care.
        var local = new ManualTimeProvider(new DateTimeOffset(Start.AddMinutes(-7)));
        var aggregator = new LogFlushAggregator();
        var pipeline = new SamplePipeline(aggregator);
        var instance = TestInstance.Create(Options(), server.ConnectionString(), pipeline.DroppingWriter, pipeline.Polls, new SourceHealth(local), time: local);
        var source = instance.Stream;
        using var cts = new CancellationTokenSource();
        var consume = pipeline.RunAsync(cts.Token);
        var run = source.RunAsync(cts.Token);
        await StreamRows.Eventually(() => source.Reader.BuffersRead == rows.Count, "every buffer");
        await pipeline.WaitForDrainAsync(TimeSpan.FromSeconds(10));

        var sales = aggregator.Snapshot().Single(d => d.DatabaseId == 5);
        Assert.Equal(8, sales.OutstandingFlushes);
        Assert.InRange(sales.OldestOutstandingFlushSeconds!.Value, 0, 0.01); // the newest event is the last start

        local.Advance(TimeSpan.FromSeconds(40)); // nothing arrives: the stall goes on
        sales = aggregator.Snapshot().Single(d => d.DatabaseId == 5);
        Assert.Equal(8, sales.OutstandingFlushes);
        Assert.InRange(sales.OldestOutstandingFlushSeconds!.Value, 39.99, 40.01);
        Assert.Equal("8 flushes outstanding for 40 s", Advisor.Stall(sales));
        Assert.Equal(10, sales.FlushDurations.Count); // the ten pairs were measured; the eight starts are not flushes yet

        await cts.CancelAsync();
        await run.WaitAsync(TimeSpan.FromSeconds(10));
        await consume;
        instance.Dispose(); // the stream is gone: its outstanding flushes are no longer reported
        Assert.Null(aggregator.Snapshot().Single(d => d.DatabaseId == 5).OutstandingFlushes);
    }

    [Fact]
    public async Task Starts_outstanding_when_the_connection_drops_are_retired_at_once_not_left_ageing_until_the_reconnect()
    {
        await using var server = new XeScriptedServer();
        var rows = TenPairsThenEightStarts();
        server.StreamScript = n => n == 0 ? XeScriptedServer.Stream(rows) : null; // the result set ends: the stream is lost

        // The reconnect waits on this clock, which the test never moves: the monitor stays disconnected.
        var local = new ManualTimeProvider(new DateTimeOffset(Start));
        var aggregator = new LogFlushAggregator();
        var pipeline = new SamplePipeline(aggregator);
        using var instance = TestInstance.Create(Options(), server.ConnectionString(), pipeline.DroppingWriter, pipeline.Polls, new SourceHealth(local), time: local);
        var source = instance.Stream;
        using var cts = new CancellationTokenSource();
        var consume = pipeline.RunAsync(cts.Token);
        var run = source.RunAsync(cts.Token);
        await StreamRows.Eventually(() => source.Reader.OutstandingRetiredAtConnectionEnd == 8, "the dropped connection's starts retired");
        await pipeline.WaitForDrainAsync(TimeSpan.FromSeconds(10));

        // Without a stream nothing is known to be outstanding: a quiet database must not read as stalled while the
        // monitor is disconnected, however long that lasts.
        local.Advance(TimeSpan.FromSeconds(40));
        Assert.Equal(1, source.Reader.Connections);
        var sales = aggregator.Snapshot().Single(d => d.DatabaseId == 5);
        Assert.Equal(0, sales.OutstandingFlushes);
        Assert.Null(Advisor.Stall(sales));
        await cts.CancelAsync();
        await run.WaitAsync(TimeSpan.FromSeconds(10));
        await consume;
    }

    [Fact]
    public async Task A_reconnect_retires_the_starts_outstanding_when_the_connection_dropped()
    {
        await using var server = new XeScriptedServer();
        var rows = TenPairsThenEightStarts();
        var columns = new[] { TdsColumn.Int("type"), TdsColumn.VarBinaryMax("data") };
        var reconnected = System.Threading.Channels.Channel.CreateUnbounded<object?[]>(); // stays open, sends nothing
        server.StreamScript = n => n switch
        {
            0 => XeScriptedServer.Stream(rows), // the result set ends: the stream is lost and reconnects
            1 => XeScriptedServer.Stream(reconnected.Reader),
            _ => null,
        };

        var aggregator = new LogFlushAggregator();
        var pipeline = new SamplePipeline(aggregator);
        using var instance = TestInstance.Create(Options(), server.ConnectionString(), pipeline.DroppingWriter, pipeline.Polls, new SourceHealth());
        var source = instance.Stream;
        using var cts = new CancellationTokenSource();
        var consume = pipeline.RunAsync(cts.Token);
        var run = source.RunAsync(cts.Token);
        await StreamRows.Eventually(() => source.Reader.Connections == 2 && server.StreamRequests == 2, "the reconnect");

        Assert.Equal(8, source.Reader.OutstandingRetiredAtConnectionEnd);
        Assert.Equal(0, aggregator.Snapshot().Single(d => d.DatabaseId == 5).OutstandingFlushes);
        await cts.CancelAsync();
        await run.WaitAsync(TimeSpan.FromSeconds(10));
        await consume;
    }
}
