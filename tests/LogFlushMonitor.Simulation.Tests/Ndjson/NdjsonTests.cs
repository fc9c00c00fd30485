using LogFlushMonitor.Core.Signals;
using System.Text;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Recording;

namespace LogFlushMonitor.Simulation.Tests.Ndjson;

public class NdjsonTests
{
    private static readonly DateTime T0 = ScenarioShapeTests.T0;

    private static string Write(Action<NdjsonSampleWriter> write)
    {
        using var stream = new MemoryStream();
        using (var writer = new NdjsonSampleWriter(stream, leaveOpen: true))
        {
            write(writer);
        }

        return Encoding.UTF8.GetString(stream.ToArray());
    }

    private static async Task<(RecordingSink Sink, NdjsonReplaySummary Summary, List<NdjsonReplayError> Errors)> Replay(string text, NdjsonReplayOptions? options = null)
    {
        var sink = new RecordingSink();
        var errors = new List<NdjsonReplayError>();
        options = (options ?? new NdjsonReplayOptions()) with { OnError = errors.Add };
        using var stream = new MemoryStream(Encoding.UTF8.GetBytes(text));
        var summary = await NdjsonReplay.ReplayAsync(stream, "test.ndjson", sink, options);
        return (sink, summary, errors);
    }

    [Fact]
    public void Lines_have_the_documented_shape()
    {
        var text = Write(w =>
        {
            w.OnLogFlush(new LogFlushEvent("sql1", 5, "shop", 512, 123, T0, null, 1));
            w.OnLogFlush(new LogFlushEvent("sql1", 5, "shop", 0, 123, T0.AddTicks(2500), TimeSpan.FromTicks(2500), 2));
            w.OnWait(new WaitEvent("sql1", "WRITELOG", TimeSpan.FromTicks(1234), 5, null, T0.AddMilliseconds(1), 3));
            w.OnBatch(SignalRegistry.Counters.Row("sql1", T0, new CounterRow("Databases", "Log Flushes/sec", "shop", 123, PerfCounterType.BulkCount)));
            w.OnBatch(SignalRegistry.WaitStats.End("sql1", T0));
            w.OnSourceLoss("sql1", LossKind.SequenceGap, 3);
        });

        Assert.Equal(
            """
            {"type":"flush","t":"2026-11-22T12:00:00.0000000Z","instance":"sql1","db_id":5,"db":"shop","write_size":512,"block":123,"seq":1}
            {"type":"flush_complete","t":"2026-11-22T12:00:00.0002500Z","instance":"sql1","db_id":5,"db":"shop","write_size":0,"block":123,"seq":2,"duration_us":250}
            {"type":"wait","t":"2026-11-22T12:00:00.0010000Z","instance":"sql1","db_id":5,"wait_type":"WRITELOG","duration_us":123.4,"seq":3}
            {"type":"counter","t":"2026-11-22T12:00:00.0000000Z","instance":"sql1","object":"Databases","counter":"Log Flushes/sec","counter_instance":"shop","value":123,"cntr_type":272696576,"base":0}
            {"type":"poll_completed","t":"2026-11-22T12:00:00.0000000Z","instance":"sql1","kind":"wait_stats"}
            {"type":"loss","t":"2026-11-22T12:00:00.0000000Z","instance":"sql1","kind":"sequence_gap","count":3}

            """.Replace("\r\n", "\n"),
            text);
    }

    [Fact]
    public async Task Database_names_and_histogram_buckets_are_recorded_and_replayed_as_themselves()
    {
        var at = T0.AddSeconds(15);
        var name = new Polled<DatabaseRow>("sql1", T0, new DatabaseRow(7, "billing"));
        var bucket = new Polled<FlushBucketRow>("sql1", at, new FlushBucketRow(7, "billing", 4096, 1_234));
        var allDatabases = new Polled<FlushBucketRow>("sql1", at, new FlushBucketRow(0, null, 512, 9));
        var text = Write(w =>
        {
            w.OnBatch(SignalRegistry.Databases.Row("sql1", T0, name.Row));
            w.OnBatch(SignalRegistry.FlushBuckets.Batch("sql1", at, [bucket.Row, allDatabases.Row], endsPoll: false));
        });

        Assert.Equal(
            """
            {"type":"database","t":"2026-11-22T12:00:00.0000000Z","instance":"sql1","db_id":7,"db":"billing"}
            {"type":"flush_bucket","t":"2026-11-22T12:00:15.0000000Z","instance":"sql1","db_id":7,"db":"billing","write_size":4096,"count":1234}
            {"type":"flush_bucket","t":"2026-11-22T12:00:15.0000000Z","instance":"sql1","db_id":0,"write_size":512,"count":9}

            """.Replace("\r\n", "\n"),
            text);
        var (sink, summary, errors) = await Replay(text + """{"type":"flush_bucket","t":"2026-11-22T12:00:15Z","instance":"sql1","db_id":7,"write_size":512,"count":0}""");
        Assert.Equal([name, bucket, allDatabases, new RecordedLoss("sql1", LossKind.Malformed, 1)], sink.All);
        Assert.Equal(3, summary.Samples);
        Assert.Contains("'count'", Assert.Single(errors).Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Simulate_write_replay_equals_the_direct_simulation()
    {
        // Restart and event loss make every sample kind appear, loss lines included.
        var options = LightWorkload.Options with { EventLossRate = 0.002 };
        using var stream = new MemoryStream();
        long lines;
        RecordingSink direct;
        using (var writer = new NdjsonSampleWriter(stream, leaveOpen: true))
        {
            direct = new RecordingSink(writer);
            SimulationScenarios.Create("restart", options).Run(T0, TimeSpan.FromSeconds(45), direct);
            lines = writer.Lines;
        }

        stream.Position = 0;
        var replayed = new RecordingSink();
        var summary = await NdjsonReplay.ReplayAsync(stream, "memory", replayed);

        Assert.Equal(new NdjsonReplaySummary(lines, lines, 0), summary);
        Assert.Contains(direct.All, s => s is RecordedLoss);
        Assert.Contains(direct.All, s => s is LogFlushEvent { IsComplete: true });
        // Every sample is recorded: a wait's client application, the top log writers and their poll_completed included.
        Assert.Contains(direct.All, s => s is WaitEvent { ClientApp: not null });
        Assert.Contains(direct.All, s => s is Polled<LogWritersRow>);
        Assert.Contains(direct.All, s => s is PollEnded p && p.Signal == SignalRegistry.LogWriters);
        Assert.Equal(direct.All.Count, replayed.All.Count);
        Assert.Equal(direct.All, replayed.All);
    }

    [Fact]
    public async Task Mixed_write_replay_equals_the_direct_simulation_replicas_and_log_writers_included()
    {
        using var stream = new MemoryStream();
        RecordingSink direct;
        using (var writer = new NdjsonSampleWriter(stream, leaveOpen: true))
        {
            direct = new RecordingSink(writer);
            SimulationScenarios.Create("mixed", LightWorkload.Options).Run(T0, TimeSpan.FromSeconds(12), direct);
        }

        stream.Position = 0;
        var replayed = new RecordingSink();
        var summary = await NdjsonReplay.ReplayAsync(stream, "memory", replayed);

        Assert.Equal(0, summary.Errors);
        Assert.Contains(direct.All, s => s is Polled<ReplicaRow>);
        Assert.Contains(direct.All, s => s is PollEnded p && p.Signal == SignalRegistry.HadrReplicas);
        Assert.Contains(direct.All, s => s is Polled<LogWritersRow>);
        Assert.Equal(direct.All, replayed.All);
    }

    [Fact]
    public async Task Log_writers_and_replicas_are_written_as_documented_and_a_null_figure_stays_null()
    {
        WaitEvent wait = new("sql1", "WRITELOG", TimeSpan.FromMilliseconds(2), 5, "shop", T0, 3, "OrderService");
        WaitEvent noApp = new("sql1", "WRITELOG", TimeSpan.FromMilliseconds(1), 5, "shop", T0, 4, "");
        var writers = new Polled<LogWritersRow>("sql1", T0, new LogWritersRow(5, "shop", "OrderService", 3, 123_456, 200_000));
        var replica = new Polled<ReplicaRow>("sql1", T0, new ReplicaRow(5, "shop", "ag1", "sql2", "SECONDARY", "SYNCHRONOUS_COMMIT", "SYNCHRONIZED", 12, 3_000, null, 2_500, 0, 1));
        var unknown = new Polled<ReplicaRow>("sql1", T0, new ReplicaRow(5, "shop", "ag1", "sql3", "RESOLVING", "ASYNCHRONOUS_COMMIT", null, null, null, null, null, null, null));
        var text = Write(w =>
        {
            w.OnWait(wait);
            w.OnWait(noApp);
            w.OnBatch(SignalRegistry.LogWriters.Batch("sql1", T0, [writers.Row], endsPoll: true));
            w.OnBatch(SignalRegistry.HadrReplicas.Batch("sql1", T0, [replica.Row, unknown.Row], endsPoll: true));
        });

        Assert.Equal(
            """
            {"type":"wait","t":"2026-11-22T12:00:00.0000000Z","instance":"sql1","db_id":5,"db":"shop","wait_type":"WRITELOG","duration_us":2000,"seq":3,"app":"OrderService"}
            {"type":"wait","t":"2026-11-22T12:00:00.0000000Z","instance":"sql1","db_id":5,"db":"shop","wait_type":"WRITELOG","duration_us":1000,"seq":4,"app":""}
            {"type":"log_writers","t":"2026-11-22T12:00:00.0000000Z","instance":"sql1","db_id":5,"db":"shop","app":"OrderService","transactions":3,"log_bytes_used":123456,"log_bytes_reserved":200000}
            {"type":"poll_completed","t":"2026-11-22T12:00:00.0000000Z","instance":"sql1","kind":"log_writers"}
            {"type":"hadr_replica","t":"2026-11-22T12:00:00.0000000Z","instance":"sql1","db_id":5,"db":"shop","ag":"ag1","replica":"sql2","role":"SECONDARY","availability_mode":"SYNCHRONOUS_COMMIT","synchronization_state":"SYNCHRONIZED","log_send_queue_kb":12,"log_send_rate_kb_per_s":3000,"redo_rate_kb_per_s":2500,"secondary_lag_s":0,"last_hardened_age_s":1}
            {"type":"hadr_replica","t":"2026-11-22T12:00:00.0000000Z","instance":"sql1","db_id":5,"db":"shop","ag":"ag1","replica":"sql3","role":"RESOLVING","availability_mode":"ASYNCHRONOUS_COMMIT"}
            {"type":"poll_completed","t":"2026-11-22T12:00:00.0000000Z","instance":"sql1","kind":"hadr_replicas"}

            """.Replace("\r\n", "\n"),
            text);
        var (sink, _, errors) = await Replay(text
            + """{"type":"log_writers","t":"2026-11-22T12:00:00Z","instance":"sql1","db_id":5,"db":"shop","transactions":1,"log_bytes_used":1,"log_bytes_reserved":1}""" + "\n"
            + """{"type":"hadr_replica","t":"2026-11-22T12:00:00Z","instance":"sql1","db_id":5,"db":"shop","ag":"ag1","replica":"sql2","role":"PRIMARY","availability_mode":"SYNCHRONOUS_COMMIT","redo_queue_kb":"big"}""");
        Assert.Equal(
            [wait, noApp, writers, new PollEnded(SignalRegistry.LogWriters, "sql1", T0), replica, unknown, new PollEnded(SignalRegistry.HadrReplicas, "sql1", T0),
             new RecordedLoss("sql1", LossKind.Malformed, 1), new RecordedLoss("sql1", LossKind.Malformed, 1)],
            sink.All);
        Assert.Contains("app", errors[0].Message, StringComparison.Ordinal);
        Assert.Contains("'redo_queue_kb'", errors[1].Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task The_log_space_and_log_file_lines_are_written_as_documented_and_a_null_figure_stays_null()
    {
        var space = new Polled<LogSpaceRow>("sql1", T0, new LogSpaceRow(5, "shop", "FULL", "LOG_BACKUP", 8_380_416, 1_005_568, 4, 1, 524_288, 262_144, 7_800));
        var secondary = new Polled<LogSpaceRow>("sql1", T0, new LogSpaceRow(6, "copy", "FULL", null, null, null, null, null, null, null, 300));
        var file = new Polled<LogFileRow>("sql1", T0, new LogFileRow(5, "shop", 2, 1_023, -1, 8_192, false, "/var/opt/mssql/", 268_435_456_000, 128_849_018_880));
        var unreadable = new Polled<LogFileRow>("sql1", T0, new LogFileRow(6, "copy", 2, 1_023, 268_435_456, 10, true, null, null, null));
        var text = Write(w =>
        {
            w.OnBatch(SignalRegistry.LogFiles.Batch("sql1", T0, [file.Row, unreadable.Row], endsPoll: true));
            w.OnBatch(SignalRegistry.LogSpace.Batch("sql1", T0, [space.Row, secondary.Row], endsPoll: true));
        });

        Assert.Equal(
            """
            {"type":"log_file","t":"2026-11-22T12:00:00.0000000Z","instance":"sql1","db_id":5,"db":"shop","file_id":2,"size_pages":1023,"max_size_pages":-1,"growth":8192,"percent_growth":false,"volume":"/var/opt/mssql/","volume_total_bytes":268435456000,"volume_available_bytes":128849018880}
            {"type":"log_file","t":"2026-11-22T12:00:00.0000000Z","instance":"sql1","db_id":6,"db":"copy","file_id":2,"size_pages":1023,"max_size_pages":268435456,"growth":10,"percent_growth":true}
            {"type":"poll_completed","t":"2026-11-22T12:00:00.0000000Z","instance":"sql1","kind":"log_files"}
            {"type":"log_space","t":"2026-11-22T12:00:00.0000000Z","instance":"sql1","db_id":5,"db":"shop","recovery_model":"FULL","reason":"LOG_BACKUP","total_bytes":8380416,"active_bytes":1005568,"vlfs":4,"active_vlfs":1,"since_log_backup_bytes":524288,"since_checkpoint_bytes":262144,"log_backup_age_s":7800}
            {"type":"log_space","t":"2026-11-22T12:00:00.0000000Z","instance":"sql1","db_id":6,"db":"copy","recovery_model":"FULL","log_backup_age_s":300}
            {"type":"poll_completed","t":"2026-11-22T12:00:00.0000000Z","instance":"sql1","kind":"log_space"}

            """.Replace("\r\n", "\n"),
            text);
        var (sink, _, errors) = await Replay(text
            + """{"type":"log_file","t":"2026-11-22T12:00:00Z","instance":"sql1","db_id":5,"db":"shop","file_id":2,"size_pages":-8,"max_size_pages":-1,"growth":0,"percent_growth":false}""" + "\n"
            + """{"type":"log_space","t":"2026-11-22T12:00:00Z","instance":"sql1","db_id":5,"db":"shop","active_bytes":"lots"}""");
        Assert.Equal(
            [file, unreadable, new PollEnded(SignalRegistry.LogFiles, "sql1", T0), space, secondary, new PollEnded(SignalRegistry.LogSpace, "sql1", T0),
             new RecordedLoss("sql1", LossKind.Malformed, 1), new RecordedLoss("sql1", LossKind.Malformed, 1)],
            sink.All);
        Assert.Contains("'size_pages'", errors[0].Message, StringComparison.Ordinal);
        Assert.Contains("'active_bytes'", errors[1].Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_wait_recorded_before_the_app_field_replays_without_an_application()
    {
        var (sink, summary, _) = await Replay(
            """{"type":"wait","t":"2026-11-22T12:00:00.0000000Z","instance":"sql1","db_id":5,"db":"shop","wait_type":"WRITELOG","duration_us":2000,"seq":3}""");
        Assert.Equal(0, summary.Errors);
        Assert.Null(Assert.IsType<WaitEvent>(Assert.Single(sink.All)).ClientApp);
    }

    [Fact]
    public async Task Replay_into_the_aggregator_gives_the_same_statistics_as_the_simulation()
    {
        var path = Path.Combine(Path.GetTempPath(), $"lfm-{Guid.NewGuid():N}.ndjson");
        try
        {
            var direct = new LogFlushAggregator();
            using (var writer = new NdjsonSampleWriter(path))
            {
                SimulationScenarios.Create("mixed", LightWorkload.Options).Run(T0, TimeSpan.FromSeconds(12), new RecordingSink(writer) { Keep = false });
            }

            // The simulation is deterministic: a second run is the direct one.
            SimulationScenarios.Create("mixed", LightWorkload.Options).Run(T0, TimeSpan.FromSeconds(12), direct);

            var replayed = new LogFlushAggregator();
            var summary = await NdjsonReplay.ReplayFileAsync(path, new RecordingSink(replayed) { Keep = false });
            Assert.Equal(0, summary.Errors);
            static object Key(DatabaseSnapshot d) => (d.Instance, d.Database, d.WriteSizes.Count, d.WriteSizes.TotalBytes, d.CounterFlushesTotal, d.LogWriteLatencySeconds, d.FlushDurations.SumSeconds, d.Waits.Sum(w => w.Count));
            Assert.Equal(direct.Snapshot().Select(Key), replayed.Snapshot().Select(Key));

            // Who waits and who writes (issue 22 item 3) and the replicas (item 2) replay as they were live.
            static string Who(DatabaseSnapshot d) => $"{d.Instance}/{d.Database}: "
                + string.Join(", ", d.WriteLogApplications.Select(a => $"{a.Application}={a.Seconds:R}s/{a.Waits}"))
                + " | " + string.Join(", ", d.LogWriters.Select(w => $"{w.Application}={w.Transactions}/{w.LogBytesUsed}/{w.LogBytesReserved}"));
            var who = direct.Snapshot().Select(Who).ToList();
            Assert.Contains(direct.Snapshot(), d => d.WriteLogApplications.Count > 1);
            Assert.Contains(direct.Snapshot(), d => d.LogWriters.Count > 0);
            Assert.Equal(who, replayed.Snapshot().Select(Who));
            Assert.NotEmpty(direct.SnapshotReplicas());
            Assert.Equal(direct.SnapshotReplicas(), replayed.SnapshotReplicas());
        }
        finally
        {
            File.Delete(path);
        }
    }

    [Fact]
    public async Task Malformed_lines_are_reported_with_file_and_line_counted_and_the_rest_is_processed()
    {
        var path = Path.Combine(Path.GetTempPath(), $"lfm-{Guid.NewGuid():N}.ndjson");
        string[] lines =
        [
            "\uFEFF{\"type\":\"server_start\",\"t\":\"2026-11-22T12:00:00.0000000Z\",\"instance\":\"sql1\",\"start_time\":\"2026-11-20T00:00:00.0000000Z\"}\r",
            "{\"type\":\"flush\",\"t\":\"2026-11-22T12:00:00Z\",",
            "{\"type\":\"teleport\",\"t\":\"2026-11-22T12:00:00Z\",\"instance\":\"sql1\"}",
            "{\"type\":\"flush\",\"t\":\"2026-11-22T12:00:01.0000000Z\",\"instance\":\"sql1\",\"db\":\"shop\",\"write_size\":512}",
            "{\"type\":\"flush\",\"t\":\"2026-11-22T12:00:01.0000000Z\",\"instance\":\"sql2\",\"db_id\":5,\"write_size\":-1}",
            "",
            "{\"type\":\"flush\",\"t\":\"yesterday\",\"instance\":\"sql1\",\"db_id\":5,\"write_size\":512}",
            "[1,2]",
            "{\"type\":\"flush\",\"t\":\"2026-11-22T12:00:02.0000000Z\",\"instance\":\"sql1\",\"db_id\":5,\"db\":\"shop\",\"write_size\":1024,\"future_field\":{\"a\":[1]}}",
            "{\"type\":\"poll_completed\",\"t\":\"2026-11-22T12:00:03.0000000Z\",\"instance\":\"sql1\",\"kind\":\"counters\"}",
        ];
        await File.WriteAllTextAsync(path, string.Join("\n", lines));
        try
        {
            var sink = new RecordingSink();
            var errors = new List<NdjsonReplayError>();
            var summary = await NdjsonReplay.ReplayFileAsync(path, sink, new NdjsonReplayOptions { OnError = errors.Add });

            Assert.Equal(new NdjsonReplaySummary(10, 3, 6), summary);
            Assert.Equal([2L, 3, 4, 5, 7, 8], errors.Select(e => e.Line));
            Assert.All(errors, e => Assert.Equal(path, e.Source));
            Assert.StartsWith($"{path}:2: invalid JSON", errors[0].ToString());
            Assert.Contains("unknown type 'teleport'", errors[1].Message);
            Assert.Contains("db_id", errors[2].Message);
            Assert.Contains("write_size", errors[3].Message);
            Assert.Contains("'t'", errors[4].Message);
            Assert.Contains("expected a JSON object", errors[5].Message);

            // The rest was processed: BOM and CR stripped, an unknown field skipped, the last line without a newline read.
            Assert.Equal(new DateTime(2026, 11, 20, 0, 0, 0, DateTimeKind.Utc), Assert.Single(sink.Rows<ServerStartRow>()).Row.StartTimeUtc);
            Assert.Equal(1024u, Assert.Single(sink.FlushStarts).WriteSize);
            Assert.Single(sink.All.OfType<PollEnded>());
            var losses = sink.All.OfType<RecordedLoss>().ToList();
            Assert.All(losses, l => Assert.Equal(LossKind.Malformed, l.Kind));
            Assert.Equal(["replay", "sql1", "sql1", "sql2", "sql1", "replay"], losses.Select(l => l.Instance));
        }
        finally
        {
            File.Delete(path);
        }
    }

    [Fact]
    public async Task Replayed_strings_are_interned_so_one_name_is_one_object()
    {
        var text = Write(w => SimulationScenarios.Create("autocommit").Run(T0, TimeSpan.FromSeconds(1), w));
        var (sink, _, _) = await Replay(text);
        var flushes = sink.All.OfType<LogFlushEvent>().ToList();
        Assert.True(flushes.Count > 1000);
        Assert.All(flushes, f => Assert.Same(flushes[0].Instance, f.Instance));
        Assert.All(flushes, f => Assert.Same(flushes[0].DatabaseName, f.DatabaseName));
        var waits = sink.Waits;
        Assert.All(waits, w => Assert.Same(waits[0].WaitType, w.WaitType));
        Assert.All(sink.Counters, c => Assert.Same(flushes[0].Instance, c.Instance));
    }

    [Fact]
    public async Task Rebase_shifts_every_time_so_the_recording_starts_now()
    {
        var text = Write(w => SimulationScenarios.Create("autocommit", LightWorkload.Options).Run(T0, TimeSpan.FromSeconds(6), w));
        var now = new DateTimeOffset(2030, 1, 2, 3, 4, 5, TimeSpan.Zero);
        var (original, _, _) = await Replay(text);
        var (rebased, _, _) = await Replay(text, new NdjsonReplayOptions { RebaseToNow = true, Time = new ManualTimeProvider(now) });

        var shift = now.UtcDateTime - T0;
        Assert.Equal(now.UtcDateTime, rebased.Rows<ServerStartRow>().First().TimestampUtc);
        Assert.Equal(
            original.Rows<ServerStartRow>().Select(s => (s.TimestampUtc + shift, s.Row.StartTimeUtc + shift)),
            rebased.Rows<ServerStartRow>().Select(s => (s.TimestampUtc, s.Row.StartTimeUtc)));
        Assert.Equal(original.FlushStarts.Select(f => f.TimestampUtc + shift), rebased.FlushStarts.Select(f => f.TimestampUtc));
        Assert.All(rebased.FlushStarts, f => Assert.Equal(DateTimeKind.Utc, f.TimestampUtc.Kind));
    }

    [Fact]
    public async Task Paced_replay_delivers_each_sample_when_its_time_comes_at_the_speed_asked()
    {
        var text = Write(w =>
        {
            for (var i = 0; i < 4; i++)
            {
                w.OnLogFlush(new LogFlushEvent("sql1", 5, "shop", 512, (ulong)i, T0.AddSeconds(10 * i)));
            }
        });
        var time = new ManualTimeProvider(new DateTimeOffset(2030, 1, 1, 0, 0, 0, TimeSpan.Zero));
        var sink = new RecordingSink();
        using var stream = new MemoryStream(Encoding.UTF8.GetBytes(text));
        var replay = NdjsonReplay.ReplayAsync(stream, "paced", sink, new NdjsonReplayOptions { Speed = 2, Time = time });

        // At speed 2 the samples 10 s apart come 5 s apart.
        await Eventually.Until(() => time.PendingTimers == 1);
        Assert.Single(sink.All);
        time.Advance(TimeSpan.FromSeconds(4.9));
        Assert.Equal(1, time.PendingTimers); // timers fire inside Advance: not due yet, so nothing went out early
        Assert.Single(sink.All);
        time.Advance(TimeSpan.FromSeconds(0.1));
        await Eventually.Until(() => sink.All.Count == 2 && time.PendingTimers == 1);
        time.Advance(TimeSpan.FromSeconds(5));
        await Eventually.Until(() => sink.All.Count == 3 && time.PendingTimers == 1);
        time.Advance(TimeSpan.FromSeconds(5));
        var summary = await replay.WaitAsync(TimeSpan.FromSeconds(10));
        Assert.Equal(4, summary.Samples);
        Assert.Equal([0UL, 1, 2, 3], sink.FlushStarts.Select(f => f.LogBlockId));
    }

    [Fact]
    public async Task Cancelling_a_replay_stops_it_promptly()
    {
        var text = Write(w =>
        {
            w.OnLogFlush(new LogFlushEvent("sql1", 5, "shop", 512, 1, T0));
            w.OnLogFlush(new LogFlushEvent("sql1", 5, "shop", 512, 2, T0.AddHours(1)));
        });
        var time = new ManualTimeProvider(DateTimeOffset.UnixEpoch);
        using var cts = new CancellationTokenSource();
        var sink = new RecordingSink();
        using var stream = new MemoryStream(Encoding.UTF8.GetBytes(text));
        var replay = NdjsonReplay.ReplayAsync(stream, "slow", sink, new NdjsonReplayOptions { Speed = 1, Time = time }, cts.Token);
        await Eventually.Until(() => time.PendingTimers == 1);
        await cts.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => replay.WaitAsync(TimeSpan.FromSeconds(5)));
        Assert.Single(sink.All);
    }

    [Fact]
    public async Task Sub_microsecond_durations_and_missing_database_names_round_trip()
    {
        LogFlushEvent[] flushes =
        [
            new("sql1", 7, null, 0, 9, T0.AddTicks(1), TimeSpan.FromTicks(1234567), 42),
            new("sql1", 7, "db \"quoted\" é", 4096, 10, T0.AddTicks(3), null, 0),
        ];
        var text = Write(w =>
        {
            foreach (var f in flushes)
            {
                w.OnLogFlush(f);
            }
        });
        var (sink, summary, errors) = await Replay(text);
        Assert.Empty(errors);
        Assert.Equal(flushes.Cast<object>(), sink.All);
    }
}
