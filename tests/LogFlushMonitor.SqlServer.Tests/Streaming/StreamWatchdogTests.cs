using System.Text.RegularExpressions;
using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Signals;
using LogFlushMonitor.SqlServer.Connections;
using LogFlushMonitor.SqlServer.Tests.Scripted;

namespace LogFlushMonitor.SqlServer.Tests.Streaming;

/// <summary>
/// Issue 20 item 4: a live stream whose path stops forwarding without closing raised no error, so the stream stayed
/// "up" and silent for ever while the server flushed. The instance runs against the scripted server through a
/// <see cref="FaultProxy"/> that stalls only the stream's connection (the polls flow on), on the real clock with short
/// watchdog settings. Before the watchdog none of these streams reconnected: the read blocked with the socket open.
/// </summary>
public sealed class StreamWatchdogTests
{
    private const string StreamStatement = "fn_MSxe_read_event_stream";

    [Fact]
    public async Task A_stream_silent_while_the_server_flushes_is_ended_counted_and_read_again()
    {
        await using var rig = await Rig.StartAsync();
        await rig.DeliverAsync(1, 300);

        Assert.True(rig.Proxy.StallMarked(), "the stream's connection was not found");
        await rig.Server.EventStream.Writer.WriteAsync([.. Row(301, 100)]); // stuck in the stalled connection

        await StreamRows.Eventually(() => rig.Server.RequestsFor(StreamStatement).Count >= 2, $"a second stream request after the stall; the log:\n{rig.Logger.Everything}", 30);
        Assert.Equal(1, rig.Instance.Watchdog.Stalls);
        Assert.Equal(1, rig.Health.Errors("prod", SourceComponents.Stream, SqlErrorKinds.Stalled));
        var line = Assert.Single(rig.Logger.Lines, l => l.EventId == 5118);
        Assert.Contains("log flushes", line.Message, StringComparison.Ordinal);
        Assert.Contains("prod", line.Message, StringComparison.Ordinal);

        // The new connection flows: what the server sends now arrives. (The scripted server's handler of the dead
        // connection would go on taking rows from the one channel both streams read: end it, as a server finally does.)
        Assert.Equal(1, rig.Proxy.CutStalled());
        await rig.DeliverAsync(401, 200, expectedTotal: 500);
        Assert.Equal(1, rig.Instance.Stream.Abandoned);
    }

    [Fact]
    public async Task A_row_stopped_in_the_middle_is_a_stall_even_on_a_server_that_flushes_nothing()
    {
        await using var rig = await Rig.StartAsync(flushesPerPoll: 0);
        await rig.DeliverAsync(1, 100);

        // One full event buffer (tens of KB, sent in 4 KB TDS packets): the proxy lets 8 KB of it through, then nothing.
        var buffer = StreamRows.Flushes(101, 2_000, perBuffer: 2_000).First(r => r.Type == 0);
        Assert.True(buffer.Data.Length > 16 * 1024, $"a buffer of {buffer.Data.Length} bytes");
        Assert.True(rig.Proxy.StallMarked(afterServerBytes: 8 * 1024), "the stream's connection was not found");
        await rig.Server.EventStream.Writer.WriteAsync([buffer.Type, buffer.Data]);

        await StreamRows.Eventually(() => rig.Server.RequestsFor(StreamStatement).Count >= 2, $"a second stream request after the stall; the log:\n{rig.Logger.Everything}", 30);
        var line = Assert.Single(rig.Logger.Lines, l => l.EventId == 5118);
        Assert.Contains("row it had begun", line.Message, StringComparison.Ordinal);
        Assert.Equal(1, rig.Health.Errors("prod", SourceComponents.Stream, SqlErrorKinds.Stalled));
    }

    [Fact]
    public async Task A_quiet_stream_on_a_quiet_server_and_a_stream_that_keeps_up_are_never_taken_for_stalls()
    {
        // Quiet: Log Flushes/sec does not move, the stream says nothing for well over latency + margin.
        await using (var quiet = await Rig.StartAsync(flushesPerPoll: 0))
        {
            await Task.Delay(TimeSpan.FromSeconds(4));
            Assert.True(quiet.CounterPolls() >= 10, $"only {quiet.CounterPolls()} counter polls");
            Assert.Equal(0, quiet.Instance.Watchdog.Stalls);
            Assert.Single(quiet.Server.RequestsFor(StreamStatement));
        }

        // Busy and keeping up: the server flushes at every poll and the stream delivers every 300 ms.
        await using var busy = await Rig.StartAsync();
        await busy.DeliverAsync(1, 10);
        var next = 11L;
        var until = DateTime.UtcNow + TimeSpan.FromSeconds(4);
        while (DateTime.UtcNow < until)
        {
            await busy.Server.EventStream.Writer.WriteAsync([.. Row(next, 10)]);
            next += 10;
            await Task.Delay(300);
        }

        Assert.Equal(0, busy.Instance.Watchdog.Stalls);
        Assert.Single(busy.Server.RequestsFor(StreamStatement));
        Assert.DoesNotContain(busy.Logger.Lines, l => l.EventId == 5118);
    }

    [Fact]
    public async Task Flushes_of_databases_the_session_does_not_watch_never_make_a_stall()
    {
        // msdb writes job history, master and model now and then: no session event of ours comes from them, and
        // databases outside an include list are no business of the stream either.
        await using var rig = await Rig.StartAsync(flushesPerPoll: 0, configure: o => o.IncludeDatabases = ["sales"], busy: ["msdb", "hr"]);
        await Task.Delay(TimeSpan.FromSeconds(4));

        Assert.True(rig.CounterPolls() >= 10, $"only {rig.CounterPolls()} counter polls");
        Assert.Equal(0, rig.Instance.Watchdog.UnseenFlushes);
        Assert.Equal(0, rig.Instance.Watchdog.Stalls);
        Assert.Single(rig.Server.RequestsFor(StreamStatement));
    }

    /// <summary>The event buffer of <paramref name="count"/> flushes, without the header rows a stream sends once at its start.</summary>
    private static object?[] Row(long first, int count)
    {
        var row = Assert.Single(StreamRows.Flushes(first, count, perBuffer: count), r => r.Type == 0);
        return [row.Type, row.Data];
    }

    /// <summary>One instance (stream mode, polls every 30 ms, dispatch latency 1 s) through a proxy that marks the stream.</summary>
    private sealed class Rig : IAsyncDisposable
    {
        private readonly CancellationTokenSource _stop = new();
        private Task _run = Task.CompletedTask;

        private Rig(ScriptedSqlServer server, FaultProxy proxy)
        {
            Server = server;
            Proxy = proxy;
        }

        public ScriptedSqlServer Server { get; }

        public FaultProxy Proxy { get; }

        public RecordingSink Events { get; } = new();

        public RecordingSink Polls { get; } = new();

        public SourceHealth Health { get; } = new();

        public CapturingLogger Logger { get; } = new();

        public SqlServerInstance Instance { get; private set; } = null!;

        public static async Task<Rig> StartAsync(long flushesPerPoll = 100, Action<SqlServerInstanceOptions>? configure = null, string[]? busy = null)
        {
            var server = new ScriptedSqlServer();
            foreach (var name in busy ?? [])
            {
                if (!server.Databases.Any(d => d.Name == name))
                {
                    server.AddDatabase(name);
                }
            }

            foreach (var database in server.Databases)
            {
                database.FlushesPerPoll = busy?.Contains(database.Name) == true ? 100 : flushesPerPoll;
            }

            var proxy = new FaultProxy(server.Server.Port);
            proxy.MarkWhenClientSends(StreamStatement);
            var rig = new Rig(server, proxy);
            var through = Regex.Replace(server.ConnectionString(), @"127\.0\.0\.1,\d+", $"127.0.0.1,{proxy.Port}");
            var options = new SqlServerInstanceOptions { Name = "prod", SessionName = "lfm_dog", Mode = CollectionMode.Stream, MaxDispatchLatencySeconds = 1 };
            configure?.Invoke(options);
            rig.Instance = TestInstance.Create(options, through, rig.Events, rig.Polls, rig.Health, logger: rig.Logger);
            rig.Instance.Watchdog.MidRowTimeout = TimeSpan.FromSeconds(1);
            rig.Instance.Watchdog.Margin = TimeSpan.FromMilliseconds(500);
            rig.Instance.Watchdog.CheckInterval = TimeSpan.FromMilliseconds(100);
            rig._run = rig.Instance.RunAsync(rig._stop.Token);
            await StreamRows.Eventually(() => proxy.HasMarked, "the stream's request");
            return rig;
        }

        public long CounterPolls() => Polls.PollEnds(SignalRegistry.Counters).Count;

        /// <summary>Writes <paramref name="count"/> flush events from <paramref name="first"/> and waits until the sink has them all.</summary>
        public async Task DeliverAsync(long first, int count, long? expectedTotal = null)
        {
            foreach (var (type, data) in StreamRows.Flushes(first, count))
            {
                await Server.EventStream.Writer.WriteAsync([type, data]);
            }

            var total = expectedTotal ?? count;
            await StreamRows.Eventually(() => Events.FlushStarts.Count >= total, $"{total} flush events");
        }

        public async ValueTask DisposeAsync()
        {
            await _stop.CancelAsync();
            Proxy.Resume();
            try
            {
                await _run.WaitAsync(TimeSpan.FromSeconds(20));
            }
            catch (TimeoutException e)
            {
                throw new TimeoutException($"the instance did not stop within 20 s; the log:\n{Logger.Everything}", e);
            }
            finally
            {
                Instance.Dispose();
                await Proxy.DisposeAsync();
                await Server.DisposeAsync();
                _stop.Dispose();
            }
        }
    }
}
