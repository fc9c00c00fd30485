using System.Buffers;
using System.Text.Json;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;

namespace LogFlushMonitor.Recording;

/// <summary>
/// Records samples as NDJSON: one JSON object per line, UTF-8, <c>"type"</c> first. <see cref="NdjsonReplay"/>
/// reads it back into the same samples.
/// </summary>
/// <remarks>
/// <para>Schema. Times are ISO-8601 UTC with 7 fractional digits (<c>2026-11-22T12:00:00.0000000Z</c>);
/// durations are microseconds (fractional when finer than 1 µs); unknown fields are ignored by the reader, so
/// fields may be added. Optional fields are marked (opt).</para>
/// <list type="table">
/// <listheader><term>type</term><description>fields</description></listheader>
/// <item><term>flush</term><description>log_flush_start: <c>t, instance, db_id, db</c> (opt, absent when unknown),
/// <c>write_size</c> (bytes), <c>block</c> (log_block_id, opt), <c>seq</c> (event_sequence, opt, 0 = none).</description></item>
/// <item><term>flush_complete</term><description>log_flush_complete: as flush, plus <c>duration_us</c>;
/// <c>write_size</c> opt.</description></item>
/// <item><term>wait</term><description>a completed wait: <c>t, instance, db_id, db</c> (opt), <c>wait_type, duration_us, seq</c> (opt),
/// <c>app</c> (opt: the client_app_name action, absent when the session did not collect it, "" when the application sent none),
/// <c>query_hash</c> (opt: the query_hash action as <c>0x</c> and 16 hex digits, absent when the session did not collect it).</description></item>
/// <item><term>counter</term><description>a sys.dm_os_performance_counters row: <c>t, instance, object</c> (after the
/// colon), <c>counter, counter_instance, value, cntr_type, base</c> (opt, 0).</description></item>
/// <item><term>wait_stats</term><description>a sys.dm_os_wait_stats row: <c>t, instance, wait_type, waiting_tasks,
/// wait_time_ms, max_wait_time_ms</c> (opt), <c>signal_wait_time_ms</c> (opt).</description></item>
/// <item><term>file_stats</term><description>a log file's sys.dm_io_virtual_file_stats row: <c>t, instance, db_id, db,
/// file_id, num_of_writes, num_of_bytes_written, io_stall_write_ms</c>.</description></item>
/// <item><term>server_start</term><description><c>t, instance, start_time</c> (sqlserver_start_time).</description></item>
/// <item><term>poll_completed</term><description><c>t, instance, kind</c>: <c>counters</c>, <c>wait_stats</c>, <c>file_stats</c>,
/// <c>writelog_waiting</c>, <c>log_writers</c> or <c>hadr_replicas</c>.</description></item>
/// <item><term>log_writers</term><description>one application's open transactions in one database at a poll: <c>t, instance, db_id, db,
/// app</c> (program_name, or "other"), <c>transactions, log_bytes_used, log_bytes_reserved</c>; then a <c>poll_completed</c> of kind <c>log_writers</c>.</description></item>
/// <item><term>hadr_replica</term><description>one database on one availability replica: <c>t, instance, db_id, db, ag, replica, role,
/// availability_mode, synchronization_state</c> (opt), and the figures, each absent when the server left it NULL:
/// <c>log_send_queue_kb, log_send_rate_kb_per_s, redo_queue_kb, redo_rate_kb_per_s, secondary_lag_s, last_hardened_age_s</c>;
/// then a <c>poll_completed</c> of kind <c>hadr_replicas</c>.</description></item>
/// <item><term>database</term><description>a database's name as sys.databases lists it: <c>t, instance, db_id, db</c>.</description></item>
/// <item><term>flush_bucket</term><description><c>count</c> flushes of <c>write_size</c> bytes counted by a server-side
/// histogram: <c>t, instance, db_id, db</c> (opt), <c>write_size, count</c>.</description></item>
/// <item><term>writelog_waiting</term><description>sessions of one database waiting on WRITELOG at a poll
/// (sys.dm_os_waiting_tasks with sys.dm_exec_requests): <c>t, instance, db_id, db, sessions, longest_wait_ms</c> (the
/// longest current wait, 0 when none waits). A poll writes one per watched database, then a <c>poll_completed</c> of kind
/// <c>writelog_waiting</c>. Recordings made before this type existed have none: replayed, they show no waiters.</description></item>
/// <item><term>loss</term><description>events a source knew it lost: <c>t</c> (opt: the time of the previous line),
/// <c>instance, kind</c> (<c>sequence_gap</c>, <c>channel_full</c>, <c>server_dropped</c>, <c>malformed</c>), <c>count</c>.</description></item>
/// </list>
/// <para>Example: <c>{"type":"flush","t":"2026-11-22T12:00:00.0000000Z","instance":"sql1","db_id":5,"db":"shop","write_size":512,"block":123,"seq":1}</c></para>
/// <para>Thread-safe: every member may be called from any thread (one lock). Lines are buffered; call
/// <see cref="Flush"/> or <see cref="Dispose"/> to write them out. Writing a line allocates nothing.</para>
/// </remarks>
public sealed class NdjsonSampleWriter : ISampleSink, IDisposable
{
    private const int DrainBytes = 64 * 1024;

    private readonly Lock _gate = new();
    private readonly Stream _stream;
    private readonly bool _leaveOpen;
    private readonly ArrayBufferWriter<byte> _buffer = new(DrainBytes * 2);
    private readonly Utf8JsonWriter _json;

    // A signal's row is written by its contract into a buffer of its own, then copied after the line's own fields.
    private readonly ArrayBufferWriter<byte> _rowBuffer = new(1024);
    private readonly Utf8JsonWriter _row;
    private DateTime _lastTime;
    private bool _disposed;

    /// <summary>Writes to <paramref name="stream"/>, closing it on dispose unless <paramref name="leaveOpen"/>.</summary>
    public NdjsonSampleWriter(Stream stream, bool leaveOpen = false)
    {
        ArgumentNullException.ThrowIfNull(stream);
        _stream = stream;
        _leaveOpen = leaveOpen;
        _json = new Utf8JsonWriter(_buffer, new JsonWriterOptions { Indented = false, SkipValidation = false });
        _row = new Utf8JsonWriter(_rowBuffer, new JsonWriterOptions { Indented = false, SkipValidation = false });
    }

    /// <summary>Creates (or replaces) the file at <paramref name="path"/>.</summary>
    public NdjsonSampleWriter(string path)
        : this(new FileStream(path, FileMode.Create, FileAccess.Write, FileShare.Read, DrainBytes), leaveOpen: false)
    {
    }

    /// <summary>Lines written so far.</summary>
    public long Lines { get; private set; }

    /// <inheritdoc />
    public void OnLogFlush(in LogFlushEvent flush)
    {
        lock (_gate)
        {
            Begin(flush.IsComplete ? NdjsonNames.FlushComplete : NdjsonNames.Flush, flush.TimestampUtc, flush.Instance);
            _json.WriteNumber(NdjsonNames.DbId, flush.DatabaseId);
            if (flush.DatabaseName is { } db)
            {
                _json.WriteString(NdjsonNames.Db, db);
            }

            _json.WriteNumber(NdjsonNames.WriteSize, flush.WriteSize);
            _json.WriteNumber(NdjsonNames.Block, flush.LogBlockId);
            _json.WriteNumber(NdjsonNames.Seq, flush.Sequence);
            if (flush.Duration is { } d)
            {
                WriteMicroseconds(d);
            }

            End();
        }
    }

    /// <inheritdoc />
    public void OnWait(in WaitEvent wait)
    {
        lock (_gate)
        {
            Begin(NdjsonNames.Wait, wait.TimestampUtc, wait.Instance);
            _json.WriteNumber(NdjsonNames.DbId, wait.DatabaseId);
            if (wait.DatabaseName is { } db)
            {
                _json.WriteString(NdjsonNames.Db, db);
            }

            _json.WriteString(NdjsonNames.WaitType, wait.WaitType);
            WriteMicroseconds(wait.Duration);
            _json.WriteNumber(NdjsonNames.Seq, wait.Sequence);
            if (wait.ClientApp is { } app)
            {
                // Absent when the session did not collect client_app_name; "" when the application sent none.
                _json.WriteString(NdjsonNames.App, app);
            }

            if (wait.QueryHash is { } hash)
            {
                // Absent when the session did not collect query_hash; "0x0000000000000000" for a task without a statement hash.
                Span<char> text = stackalloc char[QueryHashes.Length];
                _json.WriteString(NdjsonNames.QueryHash, QueryHashes.Format(hash, text));
            }

            End();
        }
    }

    /// <summary>
    /// Writes each row of <paramref name="batch"/> as one line of its signal's type (<c>type</c>, <c>t</c>, <c>instance</c>,
    /// then the row's fields by the signal's contract), then, when the batch ends a poll and the signal has one, its
    /// <c>poll_completed</c> line. A signal that is not recorded (the outstanding flushes: a replay pairs the flush events
    /// again) writes nothing.
    /// </summary>
    public void OnBatch(SignalBatch batch)
    {
        ArgumentNullException.ThrowIfNull(batch);
        if (batch.Signal.Recording is not { } recording)
        {
            return;
        }

        lock (_gate)
        {
            for (var i = 0; i < batch.Count; i++)
            {
                _rowBuffer.ResetWrittenCount();
                _row.Reset(_rowBuffer);
                recording.WriteRow(_row, batch, i);
                _row.Flush();
                Begin(recording.EncodedLineType, batch.TimestampUtc, batch.Instance);
                _json.Flush();
                var fields = _rowBuffer.WrittenSpan;
                // The row's object without its opening brace follows the line's own fields: {"type":…,"instance":…, + "a":1}.
                if (fields.Length > 2)
                {
                    _buffer.GetSpan(1)[0] = (byte)',';
                    _buffer.Advance(1);
                    _buffer.Write(fields[1..]);
                }
                else
                {
                    _buffer.GetSpan(1)[0] = (byte)'}';
                    _buffer.Advance(1);
                }

                EndLine();
            }

            if (batch.EndsPoll && recording.CompletedKind is not null)
            {
                Begin(NdjsonNames.PollCompleted, batch.TimestampUtc, batch.Instance);
                _json.WriteString(NdjsonNames.Kind, recording.EncodedCompletedKind);
                End();
            }
        }
    }

    /// <inheritdoc />
    public void OnSourceLoss(string instance, LossKind kind, long count)
    {
        lock (_gate)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            _json.Reset();
            _json.WriteStartObject();
            _json.WriteString(NdjsonNames.Type, NdjsonNames.Loss);
            if (_lastTime != default)
            {
                WriteTime(NdjsonNames.T, _lastTime);
            }

            _json.WriteString(NdjsonNames.Instance, instance);
            _json.WriteString(NdjsonNames.Kind, LossKindNames.Of(kind));
            _json.WriteNumber(NdjsonNames.Count, count);
            End();
        }
    }

    /// <summary>Writes every buffered line to the stream and flushes it.</summary>
    public void Flush()
    {
        lock (_gate)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            Drain();
            _stream.Flush();
        }
    }

    /// <summary>Flushes, then closes the stream unless it was left open.</summary>
    public void Dispose()
    {
        lock (_gate)
        {
            if (_disposed)
            {
                return;
            }

            Drain();
            _stream.Flush();
            _disposed = true;
            _json.Dispose();
            _row.Dispose();
            if (!_leaveOpen)
            {
                _stream.Dispose();
            }
        }
    }

    private void Begin(JsonEncodedText type, DateTime time, string instance)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        _json.Reset();
        _json.WriteStartObject();
        _json.WriteString(NdjsonNames.Type, type);
        WriteTime(NdjsonNames.T, time);
        _lastTime = time;
        _json.WriteString(NdjsonNames.Instance, instance);
    }

    private void End()
    {
        _json.WriteEndObject();
        _json.Flush();
        EndLine();
    }

    private void EndLine()
    {
        _buffer.GetSpan(1)[0] = (byte)'\n';
        _buffer.Advance(1);
        Lines++;
        if (_buffer.WrittenCount >= DrainBytes)
        {
            Drain();
        }
    }

    private void Drain()
    {
        if (_buffer.WrittenCount > 0)
        {
            _stream.Write(_buffer.WrittenSpan);
            _buffer.ResetWrittenCount();
        }
    }

    private void WriteTime(JsonEncodedText name, DateTime time)
    {
        // Round-trip format ("O") on a UTC value: always 7 fractional digits and a Z, unlike the JSON writer's own.
        var utc = time.Kind == DateTimeKind.Local ? time.ToUniversalTime() : DateTime.SpecifyKind(time, DateTimeKind.Utc);
        Span<byte> text = stackalloc byte[40];
        utc.TryFormat(text, out var written, "O");
        _json.WriteString(name, text[..written]);
    }

    private void WriteMicroseconds(TimeSpan duration)
    {
        var ticks = duration.Ticks;
        if (ticks % 10 == 0)
        {
            _json.WriteNumber(NdjsonNames.DurationUs, ticks / 10);
        }
        else
        {
            _json.WriteNumber(NdjsonNames.DurationUs, ticks / 10.0);
        }
    }
}
