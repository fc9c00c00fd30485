using LogFlushMonitor.Core.Signals;
using System.Text;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Recording;

namespace LogFlushMonitor.Simulation.Tests.Ndjson;

/// <summary>
/// A recording carries what the in-flight metrics need: the waiting sessions as writelog_waiting lines, and every flush
/// event with its block, which the replay pairs again on the way. Recordings made before carry no waiters and replay as
/// they always did.
/// </summary>
public class NdjsonStallTests
{
    private static readonly DateTime T0 = ScenarioShapeTests.T0;

    [Fact]
    public async Task Writelog_waiters_and_their_poll_completion_are_recorded_and_replayed_as_themselves()
    {
        var at = T0.AddSeconds(40);
        var stalled = new WriteLogWaitersRow(5, "shop", 8, 40_000);
        using var stream = new MemoryStream();
        using (var writer = new NdjsonSampleWriter(stream, leaveOpen: true))
        {
            writer.OnBatch(SignalRegistry.WriteLogWaiters.Batch("sql1", at, [stalled], endsPoll: true));
        }

        var text = Encoding.UTF8.GetString(stream.ToArray());
        Assert.Equal(
            """
            {"type":"writelog_waiting","t":"2026-11-22T12:00:40.0000000Z","instance":"sql1","db_id":5,"db":"shop","sessions":8,"longest_wait_ms":40000}
            {"type":"poll_completed","t":"2026-11-22T12:00:40.0000000Z","instance":"sql1","kind":"writelog_waiting"}

            """.Replace("\r\n", "\n"),
            text);

        stream.Position = 0;
        var replayed = new RecordingSink();
        var summary = await NdjsonReplay.ReplayAsync(stream, "memory", replayed);
        Assert.Equal(0, summary.Errors);
        Assert.Equal([new Polled<WriteLogWaitersRow>("sql1", at, stalled), new PollEnded(SignalRegistry.WriteLogWaiters, "sql1", at)], replayed.All);
    }

    [Theory]
    [InlineData("""{"type":"writelog_waiting","t":"2026-11-22T12:00:00Z","instance":"sql1","db_id":5,"db":"shop","sessions":8}""", "missing field(s) for type writelog_waiting: longest_wait_ms")]
    [InlineData("""{"type":"writelog_waiting","t":"2026-11-22T12:00:00Z","instance":"sql1","db_id":5,"sessions":8,"longest_wait_ms":1}""", "missing field(s) for type writelog_waiting: db")]
    [InlineData("""{"type":"writelog_waiting","t":"2026-11-22T12:00:00Z","instance":"sql1","db_id":5,"db":"shop","sessions":-1,"longest_wait_ms":1}""", "invalid field 'sessions'")]
    [InlineData("""{"type":"writelog_waiting","t":"2026-11-22T12:00:00Z","instance":"sql1","db_id":5,"db":"shop","sessions":3000000000,"longest_wait_ms":1}""", "invalid field 'sessions'")]
    [InlineData("""{"type":"writelog_waiting","t":"2026-11-22T12:00:00Z","instance":"sql1","db_id":5,"db":"shop","sessions":1,"longest_wait_ms":-5}""", "invalid field 'longest_wait_ms'")]
    public async Task A_bad_writelog_waiting_line_is_named_skipped_and_counted(string line, string problem)
    {
        var errors = new List<NdjsonReplayError>();
        var sink = new RecordingSink();
        var summary = await NdjsonReplay.ReplayAsync(new MemoryStream(Encoding.UTF8.GetBytes(line)), "bad.ndjson", sink, new NdjsonReplayOptions { OnError = errors.Add });

        Assert.Equal(1, summary.Errors);
        Assert.StartsWith(problem, Assert.Single(errors).Message, StringComparison.Ordinal);
        Assert.Empty(sink.Rows<WriteLogWaitersRow>());
        Assert.Equal(new RecordedLoss("sql1", LossKind.Malformed, 1), Assert.Single(sink.Of<RecordedLoss>()));
    }

    [Fact]
    public async Task A_recorded_stall_replays_as_outstanding_flushes_and_waiting_sessions_at_the_recording_s_own_time()
    {
        using var stream = new MemoryStream();
        using (var writer = new NdjsonSampleWriter(stream, leaveOpen: true))
        {
            // 40 s into the stall when the recording ends (its last lines are the poll at 70 s).
            SimulationScenarios.Create("log-stall", LightWorkload.Options).Run(T0, TimeSpan.FromSeconds(70), writer);
        }

        stream.Position = 0;
        var aggregator = new LogFlushAggregator();
        var summary = await NdjsonReplay.ReplayAsync(stream, "stall.ndjson", new RecordingSink(aggregator) { Keep = false }, new NdjsonReplayOptions { RebaseToNow = true });
        Assert.Equal(0, summary.Errors);

        var shop = Assert.Single(aggregator.Snapshot(), d => d.Database == "shop");
        Assert.Equal(8, shop.OutstandingFlushes);
        Assert.InRange(shop.OldestOutstandingFlushSeconds!.Value, 39.9, 40.1); // the recording's time, not the wall clock's
        Assert.Equal((8, 40.0), (shop.WriteLogWaitingSessions, Math.Round(shop.WriteLogLongestWaitSeconds!.Value)));
    }

    [Fact]
    public async Task A_recording_made_before_the_waiting_tasks_existed_replays_without_waiters_or_errors()
    {
        const string Old = """
            {"type":"flush","t":"2026-11-22T12:00:00.0000000Z","instance":"sql1","db_id":5,"db":"shop","write_size":512,"block":123,"seq":1}
            {"type":"flush_complete","t":"2026-11-22T12:00:00.0002500Z","instance":"sql1","db_id":5,"db":"shop","write_size":0,"block":123,"seq":2,"duration_us":250}
            {"type":"poll_completed","t":"2026-11-22T12:00:05.0000000Z","instance":"sql1","kind":"file_stats"}
            """;
        var aggregator = new LogFlushAggregator();
        var summary = await NdjsonReplay.ReplayAsync(new MemoryStream(Encoding.UTF8.GetBytes(Old)), "old.ndjson", new RecordingSink(aggregator));

        Assert.Equal(new NdjsonReplaySummary(3, 3, 0), summary);
        var shop = Assert.Single(aggregator.Snapshot());
        Assert.Equal((0, (int?)null), (shop.OutstandingFlushes, shop.WriteLogWaitingSessions));
        Assert.Equal(1, shop.FlushDurations.Count);
    }
}
