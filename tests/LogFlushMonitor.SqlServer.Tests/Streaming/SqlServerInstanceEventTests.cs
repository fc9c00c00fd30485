using System.Buffers.Binary;
using System.Diagnostics;
using System.Threading.Channels;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Pipeline;
using LogFlushMonitor.SqlServer.Connections;
using LogFlushMonitor.SqlServer.Tests.Histogram;
using LogFlushMonitor.SqlServer.Tests.Sessions;
using LogFlushMonitor.SqlServer.Tests.Scripted;
using LogFlushMonitor.TdsTestServer;
using Microsoft.Extensions.Logging;
using Xunit.Abstractions;

namespace LogFlushMonitor.SqlServer.Tests.Streaming;

/// <summary>
/// Runs alone: its memory test reads the whole process's GC heap (GC.GetTotalMemory), which other test classes running
/// beside it would otherwise fill (it failed at 33 MB against a 32 MB bound while the rest of the suite ran).
/// </summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class ProcessHeapCollection
{
    public const string Name = "process heap";
}

[Collection(ProcessHeapCollection.Name)]
public sealed class SqlServerInstanceEventTests(ITestOutputHelper output)
{
    [Fact]
    public async Task An_Auto_instance_disconnected_as_too_slow_three_times_falls_back_to_histogram_mode_and_says_so()
    {
        await using var server = new XeScriptedServer();
        server.StreamScript = _ => TdsResponse.Failure(25726, "The event stream was disconnected: too many outstanding events.");
        server.HistogramXml = _ => HistogramTests.Xml(false, (512, 4));
        var aggregator = new LogFlushAggregator();
        var pipeline = new SamplePipeline(aggregator);
        var health = new SourceHealth();
        var options = new SqlServerInstanceOptions { Name = "prod1", SessionName = "lfm_test", IncludeDatabases = ["sales"] };
        var log = new CapturingLogger();
        using var source = TestInstance.Create(options, server.ConnectionString(), pipeline.DroppingWriter, pipeline.Polls, health, logger: log);
        using var cts = new CancellationTokenSource();
        var consume = pipeline.RunAsync(cts.Token);
        var run = source.RunEventsAsync(cts.Token);

        await StreamRows.Eventually(() => source.Histogram.Polls > 0, "histogram polls");
        Assert.Equal("histogram", health.Mode("prod1"));
        Assert.Equal((true, false), server.Session("lfm_test")); // the unread stream session is stopped
        Assert.Equal((true, true), server.Session("lfm_test_h5"));
        await cts.CancelAsync();
        await run.WaitAsync(TimeSpan.FromSeconds(15));
        await consume;

        Assert.Equal(3, source.Stream.TooSlowDisconnects);
        Assert.Equal(3, server.StreamRequests);
        Assert.Equal(3, health.Errors("prod1", "stream", SqlErrorKinds.StreamTooSlow));
        Assert.Equal((true, false), server.Session("lfm_test_h5")); // stopped at shutdown, left for the next start
        Assert.Equal(4, source.Histogram.FlushesDelivered);
        var fellBack = Assert.Single(log.Lines, l => l.EventId == 5115);
        Assert.Equal(LogLevel.Warning, fellBack.Level);
        Assert.Contains("prod1", fellBack.Message, StringComparison.Ordinal);
        Assert.DoesNotContain(TdsTestServer.TdsTestServer.DefaultPassword, log.Everything, StringComparison.Ordinal); // no connection string in any line
    }

    [Fact]
    public async Task Shutdown_drops_the_stream_session_when_DropSessionOnStop()
    {
        await using var server = new XeScriptedServer();
        var options = new SqlServerInstanceOptions { Name = "prod1", SessionName = "lfm_test", Mode = CollectionMode.Stream, DropSessionOnStop = true };
        var health = new SourceHealth();
        using var cts = new CancellationTokenSource();
        var pipeline = new SamplePipeline(new LogFlushAggregator());
        using var instance = TestInstance.Create(options, server.ConnectionString(), pipeline.DroppingWriter, pipeline.Polls, health);
        var run = instance.RunEventsAsync(cts.Token);
        await StreamRows.Eventually(() => server.StreamRequests == 1, "the stream");
        Assert.Equal("stream", health.Mode("prod1"));

        await cts.CancelAsync();
        await run.WaitAsync(TimeSpan.FromSeconds(15));

        Assert.Equal((false, false), server.Session("lfm_test"));
        Assert.Equal(["DROP EVENT SESSION [lfm_test] ON SERVER"], server.StatementsWith("DROP EVENT SESSION"));
    }

    [Fact]
    public async Task Half_a_million_flush_events_stream_through_SqlClient_and_are_all_mapped()
    {
        await using var server = new XeScriptedServer();
        const int Events = 500_000;
        var rows = StreamRows.Flushes(1, Events, perBuffer: int.MaxValue); // the writer cuts 64 KB buffers itself
        foreach (var (type, data) in rows)
        {
            server.StreamRows.Writer.TryWrite([type, data]);
        }

        var sink = new RecordingSink { Keep = false };
        var options = new SqlServerInstanceOptions { Name = "prod1", SessionName = "lfm_test", Mode = CollectionMode.Stream };
        using var instance = TestInstance.Create(options, server.ConnectionString(), sink, sink, new SourceHealth());
        var source = instance.Stream;
        using var cts = new CancellationTokenSource();
        var clock = Stopwatch.StartNew();
        var run = source.RunAsync(cts.Token);
        await StreamRows.Eventually(() => sink.Flushes == Events, "every event", 120);
        var elapsed = clock.Elapsed;
        await cts.CancelAsync();
        await run.WaitAsync(TimeSpan.FromSeconds(10));

        output.WriteLine($"{Events:N0} events in {rows.Count:N0} rows ({source.Reader.BytesRead / 1048576.0:F1} MB) in {elapsed.TotalSeconds:F2} s: {Events / elapsed.TotalSeconds:N0} events/s");
        Assert.Equal(0, source.Reader.SequenceLost);
        Assert.Equal(Events, source.Reader.Flushes);
    }

    [Fact]
    public async Task Streaming_200_MB_keeps_memory_flat()
    {
        await using var server = new XeScriptedServer();
        // One real event buffer padded with slack to 4 MB (the decoder reads only its data area): 50 of them = 200 MB.
        var rows = StreamRows.Flushes(1, 100);
        var events = rows[^1].Data;
        var big = new byte[4 << 20];
        events.CopyTo(big, 0);
        BinaryPrimitives.WriteUInt32LittleEndian(big.AsSpan(0x10), (uint)big.Length);
        const int Count = 50;
        var stream = Channel.CreateUnbounded<object?[]>();
        foreach (var (type, data) in rows.Take(rows.Count - 1))
        {
            stream.Writer.TryWrite([type, data]);
        }

        server.StreamScript = n => n == 0 ? XeScriptedServer.Stream(stream.Reader) : null;
        var sink = new RecordingSink { Keep = false };
        var options = new SqlServerInstanceOptions { Name = "prod1", SessionName = "lfm_test", Mode = CollectionMode.Stream };
        using var instance = TestInstance.Create(options, server.ConnectionString(), sink, sink, new SourceHealth());
        var source = instance.Stream;
        using var cts = new CancellationTokenSource();
        var run = source.RunAsync(cts.Token);
        await StreamRows.Eventually(() => source.Reader.BuffersRead == rows.Count - 1, "metadata");
        var before = GC.GetTotalMemory(forceFullCollection: true);
        var peak = before;
        var warm = before;
        var clock = Stopwatch.StartNew();
        for (var i = 0; i < Count; i++)
        {
            await stream.Writer.WriteAsync([0, big]);
            if (i % 10 == 9)
            {
                await StreamRows.Eventually(() => source.Reader.BuffersRead >= rows.Count - 1 + i + 1, "the buffers so far", 60);
                var now = GC.GetTotalMemory(forceFullCollection: true);
                if (i == 9)
                {
                    warm = now; // the read buffer has grown to fit a 4 MB row
                }

                peak = Math.Max(peak, now);
            }
        }

        await StreamRows.Eventually(() => source.Reader.BuffersRead == rows.Count - 1 + Count, "200 MB", 60);
        var elapsed = clock.Elapsed;
        await cts.CancelAsync();
        await run.WaitAsync(TimeSpan.FromSeconds(10));

        output.WriteLine($"200 MB in {elapsed.TotalSeconds:F1} s; heap before {before / 1024} KB, warm {warm / 1024} KB, peak {peak / 1024} KB; read buffer {source.Reader.BufferCapacity / 1024} KB");
        Assert.True(source.Reader.BytesRead >= 200L << 20);
        Assert.Equal(Count * 100, sink.Flushes - 0); // each padded buffer still holds its 100 events
        Assert.True(peak - warm < 8 << 20, $"heap grew by {(peak - warm) / 1024} KB over the last 160 MB"); // flat: no growth with volume
        Assert.True(peak - before < 32 << 20, $"heap grew by {(peak - before) / 1024} KB while streaming"); // bounded: a few buffers' worth
        Assert.True(source.Reader.BufferCapacity <= 8 << 20);
    }
}
