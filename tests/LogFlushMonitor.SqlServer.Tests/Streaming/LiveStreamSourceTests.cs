using System.Diagnostics;
using System.Threading.Channels;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Pipeline;
using LogFlushMonitor.Core.XEvents;
using LogFlushMonitor.SqlServer.Connections;
using LogFlushMonitor.SqlServer.Tests.Sessions;
using LogFlushMonitor.TdsTestServer;
using LogFlushMonitor.XEvent.Binary;
using LogFlushMonitor.XEvent.TestSupport;

namespace LogFlushMonitor.SqlServer.Tests.Streaming;

public sealed class LiveStreamSourceTests
{
    private static SqlServerInstanceOptions Options(CollectionMode mode = CollectionMode.Auto) =>
        new() { Name = "prod1", SessionName = "lfm_test", Mode = mode, IncludeDatabases = ["sales"] };

    [Fact]
    public async Task Real_file_buffers_and_log_flush_buffers_become_samples_in_a_real_aggregator()
    {
        await using var server = new XeScriptedServer();
        var real = StreamRows.SplitXel(TestData.RealXelFile);
        var flushes = StreamRows.Flushes(1, 300);
        foreach (var (type, data) in real.Concat(flushes))
        {
            await server.StreamRows.Writer.WriteAsync([type, data]);
        }

        var aggregator = new LogFlushAggregator();
        var pipeline = new SamplePipeline(aggregator);
        var health = new SourceHealth();
        using var instance = TestInstance.Create(Options(), server.ConnectionString(), pipeline.DroppingWriter, pipeline.Polls, health);
        var source = instance.Stream;
        using var cts = new CancellationTokenSource();
        var consume = pipeline.RunAsync(cts.Token);
        var run = source.RunAsync(cts.Token);

        await StreamRows.Eventually(() => source.Reader.BuffersRead == real.Count + flushes.Count, "every buffer");
        await pipeline.WaitForDrainAsync(TimeSpan.FromSeconds(10));
        await cts.CancelAsync();
        Assert.False(await run.WaitAsync(TimeSpan.FromSeconds(10)));
        await consume;

        Assert.Equal(149 + 300, source.Reader.EventsDecoded); // the real file's 149 events decode too (they are not flushes)
        Assert.Equal(300, source.Reader.Flushes);
        Assert.Equal(0, source.Reader.BuffersSkipped);
        var direct = new XEventSampleMapper("direct", new LogFlushAggregator());
        using (var file = XelReader.Open(TestData.RealXelFile))
        {
            file.ReadAll(ref direct, CancellationToken.None);
        }

        Assert.Equal(direct.SequenceLost, source.Reader.SequenceLost); // what the file itself lacks; the stream adds no loss
        var sales = aggregator.Snapshot().Single(d => d.DatabaseId == 5);
        Assert.Equal(300, sales.WriteSizes.Count);
        Assert.True(health.IsUp("prod1", "stream"));
        Assert.True(health.IsUp("prod1", "session"));
        Assert.Equal("lfm_test", server.Server.Requests.Single(r => r.Text.Contains("fn_MSxe_read_event_stream", StringComparison.Ordinal)).Parameter("name"));
    }

    [Fact]
    public async Task A_connection_cut_mid_buffer_reconnects_rereads_metadata_and_counts_the_lost_events_as_a_sequence_gap()
    {
        await using var server = new XeScriptedServer();
        var first = StreamRows.Flushes(1, 200); // header, metadata, events 1-100, events 101-200
        var beforeCut = first.Take(first.Count - 1).ToList();
        var lastLength = first[^1].Data.Length;
        var second = StreamRows.Flushes(201, 100);
        var columns = new[] { TdsColumn.Int("type"), TdsColumn.VarBinaryMax("data") };
        server.StreamScript = n => n switch
        {
            // Everything before the last buffer arrives, then the socket closes halfway through it.
            0 => TdsResponse.Empty().Cut(beforeCut.Sum(r => r.Data.Length) + 2_000 + (lastLength / 2))
                .ResultSet(columns, first.Select(r => new object?[] { r.Type, r.Data })),
            1 => XeScriptedServer.Stream(Rows(second)),
            _ => null,
        };

        var aggregator = new LogFlushAggregator();
        var pipeline = new SamplePipeline(aggregator);
        var health = new SourceHealth();
        using var instance = TestInstance.Create(Options(), server.ConnectionString(), pipeline.DroppingWriter, pipeline.Polls, health);
        var source = instance.Stream;
        using var cts = new CancellationTokenSource();
        var consume = pipeline.RunAsync(cts.Token);
        var run = source.RunAsync(cts.Token);

        await StreamRows.Eventually(() => source.Reader.Flushes == 200, "the events after the reconnect");
        await pipeline.WaitForDrainAsync(TimeSpan.FromSeconds(10));
        await cts.CancelAsync();
        await run.WaitAsync(TimeSpan.FromSeconds(10));
        await consume;

        Assert.Equal(2, source.Reader.Connections);
        Assert.Equal(2, server.StatementsWith("sys.dm_xe_objects").Count); // capabilities checked again on the new connection
        Assert.Equal(2, server.StreamRequests);
        Assert.Equal(100, source.Reader.SequenceLost); // events 101-200 died with the connection
        Assert.Equal(200, aggregator.Snapshot().Single(d => d.DatabaseId == 5).WriteSizes.Count);
        Assert.Equal(1, health.Errors("prod1", "stream", SqlErrorKinds.Disconnected));
        Assert.Equal(0, source.Reader.BuffersSkipped); // the partial buffer was never decoded
    }

    [Fact]
    public async Task After_a_server_restart_the_stopped_session_is_started_and_its_new_numbering_is_not_a_loss()
    {
        await using var server = new XeScriptedServer();
        server.StreamScript = n => n switch
        {
            0 => XeScriptedServer.Stream(Rows(StreamRows.Flushes(1, 100))),
            1 => XeScriptedServer.Stream(Rows(StreamRows.Flushes(1, 50))), // a restarted session numbers from 1 again
            _ => null,
        };
        var aggregator = new LogFlushAggregator();
        var pipeline = new SamplePipeline(aggregator);
        using var instance = TestInstance.Create(Options(), server.ConnectionString(), pipeline.DroppingWriter, pipeline.Polls, new SourceHealth());
        var source = instance.Stream;
        using var cts = new CancellationTokenSource();
        var consume = pipeline.RunAsync(cts.Token);
        var run = source.RunAsync(cts.Token);
        await StreamRows.Eventually(() => source.Reader.Flushes == 100, "the first events");

        // The instance restarts: STARTUP_STATE = OFF leaves the session defined but stopped, and every connection drops.
        server.SetSession("lfm_test", defined: true, running: false);
        server.Server.DropConnections();
        await StreamRows.Eventually(() => source.Reader.Flushes == 150, "the events after the restart");
        await pipeline.WaitForDrainAsync(TimeSpan.FromSeconds(10));
        await cts.CancelAsync();
        await run.WaitAsync(TimeSpan.FromSeconds(10));
        await consume;

        Assert.Equal((true, true), server.Session("lfm_test"));
        Assert.Equal(2, server.StatementsWith("STATE = START").Count);
        Assert.Equal(0, source.Reader.SequenceLost);
        Assert.Equal(150, aggregator.Snapshot().Single(d => d.DatabaseId == 5).WriteSizes.Count);
    }

    [Fact]
    public async Task A_slow_consumer_never_blocks_the_read_and_every_dropped_event_is_counted()
    {
        await using var server = new XeScriptedServer();
        var rows = StreamRows.Flushes(1, 1000);
        server.StreamScript = _ => XeScriptedServer.Stream(rows);
        var pipeline = new SamplePipeline(new LogFlushAggregator(), capacity: 16); // nobody consumes
        using var instance = TestInstance.Create(Options(), server.ConnectionString(), pipeline.DroppingWriter, pipeline.Polls, new SourceHealth());
        var source = instance.Stream;
        using var cts = new CancellationTokenSource();
        var run = source.RunAsync(cts.Token);

        await StreamRows.Eventually(() => source.Reader.Flushes == 1000, "all events read");
        await cts.CancelAsync();
        await run.WaitAsync(TimeSpan.FromSeconds(10));

        Assert.Equal(16, pipeline.Accepted);
        Assert.Equal(1000 - 16, pipeline.Dropped);
    }

    [Fact]
    public async Task Repeated_25726_backs_off_and_then_asks_an_Auto_instance_to_fall_back()
    {
        await using var server = new XeScriptedServer();
        var rows = StreamRows.Flushes(1, 10);
        server.StreamScript = _ =>
        {
            // Some buffers, then the server gives up on us mid-stream.
            var channel = Channel.CreateUnbounded<object?[]>();
            foreach (var (type, data) in rows)
            {
                channel.Writer.TryWrite([type, data]);
            }

            channel.Writer.Complete(new TdsErrorException(25726, "The event stream was disconnected: too many outstanding events.", severity: 16));
            return XeScriptedServer.Stream(channel.Reader);
        };
        var health = new SourceHealth();
        var pipeline = new SamplePipeline(new LogFlushAggregator());
        using var instance = TestInstance.Create(Options(), server.ConnectionString(), pipeline.DroppingWriter, pipeline.Polls, health);
        var source = instance.Stream;

        var fellBack = await source.RunAsync(CancellationToken.None).WaitAsync(TimeSpan.FromSeconds(20));

        Assert.True(fellBack);
        Assert.Equal(3, source.TooSlowDisconnects);
        Assert.Equal(2, source.Reconnects); // each 25726 waited a backoff delay, even after buffers arrived
        Assert.Equal(3, server.StreamRequests);
        Assert.Equal(3, health.Errors("prod1", "stream", SqlErrorKinds.StreamTooSlow));
    }

    [Fact]
    public async Task In_Stream_mode_25726_never_falls_back()
    {
        await using var server = new XeScriptedServer();
        server.StreamScript = _ => TdsResponse.Failure(25726, "too many outstanding events");
        var pipe = new SamplePipeline(new LogFlushAggregator());
        using var instance = TestInstance.Create(Options(CollectionMode.Stream), server.ConnectionString(), pipe.DroppingWriter, pipe.Polls, new SourceHealth());
        var source = instance.Stream;
        using var cts = new CancellationTokenSource();
        var run = source.RunAsync(cts.Token);

        await StreamRows.Eventually(() => source.TooSlowDisconnects >= 4, "four disconnections");
        await cts.CancelAsync();

        Assert.False(await run.WaitAsync(TimeSpan.FromSeconds(10)));
    }

    [Fact]
    public async Task Reconnect_delays_grow_with_jitter_and_stay_under_the_cap_in_virtual_time()
    {
        await using var server = new XeScriptedServer();
        server.StreamScript = _ => TdsResponse.Failure(40613, "Database is not currently available."); // transient: backs off from the base
        var time = new ManualTimeProvider();
        var cap = TimeSpan.FromSeconds(10);
        var fleet = new SqlServerSourceOptions { ReconnectDelay = TimeSpan.FromSeconds(1), MaxReconnectDelay = cap };
        var pipeline = new SamplePipeline(new LogFlushAggregator());
        using var instance = TestInstance.Create(Options(CollectionMode.Stream), server.ConnectionString(), pipeline.DroppingWriter, pipeline.Polls, new SourceHealth(), fleet, time);
        var source = instance.Stream;
        using var cts = new CancellationTokenSource();
        var run = source.RunAsync(cts.Token);

        var delays = new List<TimeSpan>();
        for (var i = 1; i <= 10; i++)
        {
            await StreamRows.Eventually(() => source.Reconnects == i && time.PendingTimers > 0, $"backoff {i}");
            Assert.Equal(i, server.StreamRequests); // nothing retries before the clock moves
            delays.Add(source.LastReconnectDelay);
            time.Advance(source.LastReconnectDelay);
        }

        await cts.CancelAsync();
        Assert.False(await run.WaitAsync(TimeSpan.FromSeconds(10)));
        Assert.All(delays, d => Assert.InRange(d, TimeSpan.Zero, cap));
        Assert.True(delays.Skip(5).Average(d => d.TotalSeconds) > delays[0].TotalSeconds, string.Join(", ", delays));
        Assert.True(delays.Distinct().Count() > 1, "jittered delays differ");
    }

    [Fact]
    public async Task Cancel_during_a_blocking_read_returns_within_seconds()
    {
        await using var server = new XeScriptedServer();
        foreach (var (type, data) in StreamRows.Flushes(1, 10))
        {
            await server.StreamRows.Writer.WriteAsync([type, data]);
        }

        var pipe = new SamplePipeline(new LogFlushAggregator());
        using var instance = TestInstance.Create(Options(), server.ConnectionString(), pipe.DroppingWriter, pipe.Polls, new SourceHealth());
        var source = instance.Stream;
        using var cts = new CancellationTokenSource();
        var run = source.RunAsync(cts.Token);
        await StreamRows.Eventually(() => source.Reader.Flushes == 10 && server.StreamWaits > 0, "the first events, then a stream with nothing more to send");

        var clock = Stopwatch.StartNew();
        await cts.CancelAsync();
        var fellBack = await run.WaitAsync(TimeSpan.FromSeconds(10));

        Assert.False(fellBack);
        Assert.True(clock.Elapsed < TimeSpan.FromSeconds(3), $"took {clock.Elapsed}");
        Assert.Equal(1, server.StreamRequests);
    }

    [Fact]
    public async Task A_stopped_session_ends_the_stream_and_the_next_connection_starts_it_again()
    {
        await using var server = new XeScriptedServer();
        var rows = StreamRows.Flushes(1, 10);
        server.StreamScript = n =>
        {
            if (n == 0)
            {
                server.SetSession("lfm_test", defined: true, running: false); // a DBA stops it: the stream ends
                return XeScriptedServer.Stream(rows);
            }

            return null;
        };
        var pipe = new SamplePipeline(new LogFlushAggregator());
        using var instance = TestInstance.Create(Options(), server.ConnectionString(), pipe.DroppingWriter, pipe.Polls, new SourceHealth());
        var source = instance.Stream;
        using var cts = new CancellationTokenSource();
        var run = source.RunAsync(cts.Token);

        await StreamRows.Eventually(() => server.StreamRequests == 2, "the second stream");
        await cts.CancelAsync();
        await run.WaitAsync(TimeSpan.FromSeconds(10));

        Assert.Single(server.StatementsWith("CREATE EVENT SESSION"));
        Assert.Equal(2, server.StatementsWith("STATE = START").Count);
        Assert.Equal((true, true), server.Session("lfm_test"));
    }

    [Fact]
    public async Task An_idle_stream_is_up_once_the_server_accepts_it_also_after_a_cut()
    {
        // A quiet instance sends no event for hours: after a reconnect its stream must not look down (the
        // LogFlushMonitorSourceDown alert fires on sqlserver_monitor_up == 0 for 5 minutes).
        await using var server = new XeScriptedServer();
        var columns = new[] { TdsColumn.Int("type"), TdsColumn.VarBinaryMax("data") };
        server.StreamScript = n => n == 0
            ? TdsResponse.Empty().Cut(0).ResultSet(columns, []) // the connection dies before the stream starts
            : null; // then the default stream: open, and no event ever comes
        var health = new SourceHealth();
        var logger = new LogFlushMonitor.SqlServer.Tests.Scripted.CapturingLogger();
        var pipe = new SamplePipeline(new LogFlushAggregator());
        using var instance = TestInstance.Create(Options(), server.ConnectionString(), pipe.DroppingWriter, pipe.Polls, health, logger: logger);
        var source = instance.Stream;
        source.Reader.OpenedAfter = TimeSpan.FromMilliseconds(300);
        using var cts = new CancellationTokenSource();
        var run = source.RunAsync(cts.Token);

        await StreamRows.Eventually(() => server.StreamRequests == 2 && server.StreamWaits > 0, "the second, idle stream");
        await StreamRows.Eventually(() => health.IsUp("prod1", "stream"), "the idle stream reported up");
        Assert.Equal(1, health.Errors("prod1", "stream", SqlErrorKinds.Disconnected));
        Assert.Equal(0, source.Reader.BuffersRead); // no event came, yet the stream is up
        Assert.Contains(logger.Lines, l => l.EventId == 532 && l.Message.Contains("stream works again after 1 failed attempt(s)", StringComparison.Ordinal));
        await cts.CancelAsync();
        await run.WaitAsync(TimeSpan.FromSeconds(10));
    }

    [Fact]
    public async Task Rows_are_read_by_type_header_rows_without_the_magic_unknown_types_and_undecodable_rows_are_counted_once_and_skipped()
    {
        // Type-2 rows carry no .xel file magic here (nothing public shows they do); a row of an unknown type and an
        // event row that cannot be decoded must each be counted as malformed and skipped without failing the stream.
        await using var server = new XeScriptedServer();
        var first = StreamRows.Flushes(1, 100, perBuffer: 50);
        var second = StreamRows.Flushes(101, 60, perBuffer: 30);
        Assert.Equal(2, first[0].Type);
        Assert.NotEqual(0xEFAB375Au, BitConverter.ToUInt32(first[0].Data));
        var unknown = (Type: 7, Data: Enumerable.Range(0, 64).Select(i => (byte)(0xA0 + i)).ToArray());
        var garbage = (Type: 0, Data: Enumerable.Repeat((byte)0x5A, 600).ToArray());
        var rows = first.Take(3).Append(unknown).Append(garbage).Concat(first.Skip(3)).Append((Type: 2, Data: (byte[])null!)).Concat(second).ToList();
        foreach (var (type, data) in rows)
        {
            await server.StreamRows.Writer.WriteAsync([type, data]);
        }

        var aggregator = new LogFlushAggregator();
        var pipeline = new SamplePipeline(aggregator);
        var health = new SourceHealth();
        var logger = new LogFlushMonitor.SqlServer.Tests.Scripted.CapturingLogger();
        using var instance = TestInstance.Create(Options(), server.ConnectionString(), pipeline.DroppingWriter, pipeline.Polls, health, logger: logger);
        var source = instance.Stream;
        using var cts = new CancellationTokenSource();
        var consume = pipeline.RunAsync(cts.Token);
        var run = source.RunAsync(cts.Token);

        await StreamRows.Eventually(() => source.Reader.BuffersRead == rows.Count, "every row");
        await pipeline.WaitForDrainAsync(TimeSpan.FromSeconds(10));
        await cts.CancelAsync();
        Assert.False(await run.WaitAsync(TimeSpan.FromSeconds(10)));
        await consume;

        Assert.Equal(160, source.Reader.Flushes);
        Assert.Equal(2, source.Reader.BuffersSkipped);
        Assert.Equal(3, source.Reader.HeaderRows); // two with data, one NULL
        Assert.Equal(1, server.StreamRequests); // no row failed the stream
        Assert.True(health.IsUp("prod1", "stream"));
        Assert.Equal(2, aggregator.SnapshotInstances().Single().LostMalformed);
        Assert.Equal(160, aggregator.Snapshot().Single(d => d.DatabaseId == 5).WriteSizes.Count);
        var line = Assert.Single(logger.Lines, l => l.EventId == 5116); // logged once, then only counted
        Assert.Contains("type 7, 64 bytes, starting A0A1A2A3", line.Message, StringComparison.Ordinal);
        Assert.Contains("unknown type 7", line.Message, StringComparison.Ordinal);

        // Issue 30 item 3: every row is counted by its type on /metrics, those skipped or not parsed included.
        var exported = aggregator.ReadLong("sqlserver.monitor.stream.rows")
            .ToDictionary(m => (string)m.Tags.ToArray().Single(t => t.Key == "row_type").Value!, m => m.Value);
        var sent = rows.GroupBy(r => r.Type is >= 0 and <= 3 ? r.Type.ToString(System.Globalization.CultureInfo.InvariantCulture) : "other")
            .ToDictionary(g => g.Key, g => (long)g.Count());
        foreach (var type in (string[])["0", "1", "2", "3", "other"])
        {
            Assert.Equal(sent.GetValueOrDefault(type), exported[type]);
        }

        Assert.Equal(1, exported["other"]);
        Assert.Equal(3, exported["2"]);
        Assert.Equal(rows.Count, exported.Values.Sum());
    }

    [Fact]
    public async Task Rows_dropped_as_sequence_duplicates_are_counted_and_logged_once()
    {
        // Issue 31, item 8: an event buffer sent twice repeats its event_sequence numbers; each repeat is counted as
        // malformed, and the log now says so once (they were counted but never logged).
        await using var server = new XeScriptedServer();
        var rows = StreamRows.Flushes(1, 100, perBuffer: 50);
        var repeated = rows[^1];
        rows = [.. rows, repeated, repeated];
        foreach (var (type, data) in rows)
        {
            await server.StreamRows.Writer.WriteAsync([type, data]);
        }

        var aggregator = new LogFlushAggregator();
        var pipeline = new SamplePipeline(aggregator);
        var logger = new LogFlushMonitor.SqlServer.Tests.Scripted.CapturingLogger();
        using var instance = TestInstance.Create(Options(), server.ConnectionString(), pipeline.DroppingWriter, pipeline.Polls, new SourceHealth(), logger: logger);
        var source = instance.Stream;
        using var cts = new CancellationTokenSource();
        var consume = pipeline.RunAsync(cts.Token);
        var run = source.RunAsync(cts.Token);

        await StreamRows.Eventually(() => source.Reader.BuffersRead == rows.Count, "every row");
        await pipeline.WaitForDrainAsync(TimeSpan.FromSeconds(10));
        await cts.CancelAsync();
        await run.WaitAsync(TimeSpan.FromSeconds(10));
        await consume;

        Assert.Equal(100, aggregator.SnapshotInstances().Single().LostMalformed);
        var line = Assert.Single(logger.Lines, l => l.EventId == 5123);
        Assert.Contains("50 live-stream event(s) carried an event_sequence number already seen", line.Message, StringComparison.Ordinal);
    }

    private static ChannelReader<object?[]> Rows(IEnumerable<(int Type, byte[] Data)> rows)
    {
        var channel = Channel.CreateUnbounded<object?[]>();
        foreach (var (type, data) in rows)
        {
            channel.Writer.TryWrite([type, data]);
        }

        return channel.Reader; // left open: the stream then blocks like a live one
    }
}
