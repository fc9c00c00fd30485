using System.Buffers;
using System.Data;
using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.XEvents;
using LogFlushMonitor.SqlServer.Sql;
using LogFlushMonitor.XEvent.Binary;
using LogFlushMonitor.XEvent;
using Microsoft.Data.SqlClient;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Logging;

namespace LogFlushMonitor.SqlServer.Streaming;

/// <summary>How one connection's read of the live stream ended without an exception.</summary>
public enum StreamEnd
{
    /// <summary>Cancellation stopped it (SqlCommand.Cancel; the SqlException it raises is a normal stop).</summary>
    Cancelled,

    /// <summary>The server ended the result set (the session was stopped or dropped).</summary>
    Ended,

    /// <summary>The read was given up (<see cref="EventStreamReader.Abandon"/>) and woke later: what it read was dropped.</summary>
    Abandoned,
}

/// <summary>
/// Reads <c>sys.fn_MSxe_read_event_stream</c> on one connection at a time: each row's <c>data</c> is read with
/// SequentialAccess into one pooled buffer that grows as needed (bounded by <see cref="MaxBufferBytes"/>), decoded
/// by <see cref="XEventBufferDecoder"/> into <see cref="XEventSampleMapper"/>, which hands samples to a sink that
/// never waits (the pipeline drops and counts when full: the server disconnects a reader that falls behind).
/// </summary>
/// <remarks>
/// <para>Each row is decided by its <c>type</c> column (<see cref="LiveStreamRowType"/>): 0 and 1 are event and metadata
/// buffers (decoded by their own header), 2 marks a new stream or file (its data is not parsed: a fresh metadata state
/// starts), 3 is an index buffer (nothing to read). A row of another type, or one that cannot be decoded, is counted as
/// malformed (<see cref="LossKind.Malformed"/>), logged once with its type, length and first 32 bytes, and skipped: no
/// single row fails the stream (a reconnect would read the same kind of row again).</para>
/// One thread reads at a time. Every connection starts with a fresh decoder (the stream resends its metadata). The
/// mapper, and so the event_sequence baseline, lives across connections of one session: events the session
/// numbered while we were disconnected show up as a gap, i.e. are counted as lost. Only when the session itself
/// (re)started does the numbering restart, and then the caller says so (<see cref="BeginConnection"/>).
/// </remarks>
public sealed class EventStreamReader : IDisposable
{
    private readonly string _instance;
    private readonly IEventSink _sink;
    private readonly SourceHealth? _health;
    private readonly ILogger _logger;
    private readonly XEventBufferDecoder _decoder;
    private XEventSampleMapper? _mapper;
    private XEventUnits? _units;
    private readonly Lock _gate = new();
    private byte[] _buffer;
    private int _generation;
    private long _lastProgressTicks;
    private bool _inRow;
    private long _previousMapperFlushes;
    private long _previousMapperWaits;
    private long _previousMapperLost;
    private bool _malformedLogged;
    private bool _duplicatesLogged;

    /// <summary>Creates a reader delivering samples of <paramref name="instance"/> to <paramref name="sink"/> (which must not wait).</summary>
    public EventStreamReader(string instance, IEventSink sink, SourceHealth? health = null, ILogger? logger = null, int initialBufferBytes = 1 << 20)
    {
        _instance = instance;
        _sink = sink;
        _health = health;
        _logger = logger ?? NullLogger.Instance;
        _decoder = new XEventBufferDecoder(instance);
        _buffer = ArrayPool<byte>.Shared.Rent(Math.Max(4096, initialBufferBytes));
        Outstanding = new OutstandingFlushSource(instance, () => Volatile.Read(ref _mapper)?.Latency.Pairs, () => Clock.Now(Time.GetUtcNow().UtcDateTime));
    }

    /// <summary>The server's now as the events tell it: what outstanding flushes age on.</summary>
    public StreamClock Clock { get; } = new();

    /// <summary>
    /// The flushes this stream saw start and not complete, for the aggregation to read at collection time (the current
    /// mapper's pair table, on <see cref="Clock"/>). Closed when the reader is disposed.
    /// </summary>
    public OutstandingFlushSource Outstanding { get; }

    /// <summary>
    /// Outstanding starts retired when a connection ended: the events in flight then are lost (completes among them),
    /// so those starts no longer show a stall.
    /// </summary>
    public long OutstandingRetiredAtConnectionEnd { get; private set; }

    /// <summary>The largest buffer accepted (a bigger one fails the connection instead of growing memory without bound).</summary>
    public int MaxBufferBytes { get; init; } = 64 << 20;

    /// <summary>
    /// Called once per connection when the stream works: the server answered the stream request, or the request has
    /// been pending for <see cref="OpenedAfter"/> without an error (an idle instance sends no event).
    /// </summary>
    public Action? OnStreamOpened { get; init; }

    /// <summary>How long a stream request may wait for the server's first answer before the stream counts as open (10 s).</summary>
    public TimeSpan OpenedAfter { get; set; } = TimeSpan.FromSeconds(10);

    /// <summary>The clock of <see cref="LastProgressUtc"/> and of when a buffer arrived (for <see cref="Clock"/>); the instance's.</summary>
    public TimeProvider Time { get; init; } = TimeProvider.System;

    /// <summary>
    /// When the current connection's read last made progress: the request was sent, or bytes of a row arrived. The
    /// watchdog compares it with what the server says it did meanwhile.
    /// </summary>
    public DateTimeOffset LastProgressUtc => new(Interlocked.Read(ref _lastProgressTicks), TimeSpan.Zero);

    /// <summary>Whether the read is in the middle of a row (its data is arriving): a server sends a row's packets back to back.</summary>
    public bool InRow => Volatile.Read(ref _inRow);

    /// <summary>Rows (buffers) read so far, over all connections.</summary>
    public long BuffersRead { get; private set; }

    /// <summary>Bytes of <c>data</c> read so far.</summary>
    public long BytesRead { get; private set; }

    /// <summary>Rows that could not be decoded, or of an unknown type, that were skipped (each counted as a malformed loss).</summary>
    public long BuffersSkipped { get; private set; }

    /// <summary>Header rows (type 2) seen: each starts a fresh metadata state.</summary>
    public long HeaderRows { get; private set; }

    /// <summary>Every row received, by its type, over all connections (the aggregation reads it: sqlserver.monitor.stream.rows).</summary>
    public LiveStreamRowTally Rows { get; } = new();

    /// <summary>The mapper of the current connection (its flush pairing: outstanding starts per database, the duration unit).</summary>
    public XEventSampleMapper? Mapper => _mapper;

    /// <summary>Called once per mapper when the start/complete pairs settle the unit of log_flush_complete.duration.</summary>
    public Action<DurationUnitDecision>? OnUnitSettled { get; init; }

    /// <summary>Event records decoded so far (of every kind).</summary>
    public long EventsDecoded => _decoder.EventCount;

    /// <summary>Connections begun.</summary>
    public long Connections { get; private set; }

    /// <summary>Size of the pooled read buffer now.</summary>
    public int BufferCapacity => _buffer.Length;

    /// <summary>log_flush_start and log_flush_complete events mapped so far.</summary>
    public long Flushes => _previousMapperFlushes + (_mapper is null ? 0 : _mapper.FlushStarts + _mapper.FlushCompletes);

    /// <summary>Wait events mapped so far.</summary>
    public long Waits => _previousMapperWaits + (_mapper?.Waits ?? 0);

    /// <summary>Events missing from event_sequence so far.</summary>
    public long SequenceLost => _previousMapperLost + (_mapper?.SequenceLost ?? 0);

    /// <summary>
    /// Prepares for a new connection: a fresh decoder state (metadata is re-read from the stream) and the units
    /// the catalog reported. When <paramref name="sessionRestarted"/> the event_sequence numbering restarted too.
    /// </summary>
    public void BeginConnection(XEventUnits units, bool sessionRestarted)
    {
        Connections++;
        _decoder.Reset();
        Clock.Restart();
        if (_mapper is not null)
        {
            lock (_gate)
            {
                // A read given up (Abandon) did not retire its connection's starts: they are as lost as any.
                OutstandingRetiredAtConnectionEnd += _mapper.Latency.Pairs.RetireAll();
            }
        }
        if (_mapper is null || _units != units)
        {
            if (_mapper is not null)
            {
                _previousMapperFlushes += _mapper.FlushStarts + _mapper.FlushCompletes;
                _previousMapperWaits += _mapper.Waits;
                _previousMapperLost += _mapper.SequenceLost;
            }

            _mapper = new XEventSampleMapper(_instance, _sink, units);
            _mapper.Latency.OnSettled = d =>
            {
                XeLog.UnitSettled(_logger, _instance, d.ToString());
                OnUnitSettled?.Invoke(d);
            };
            _units = units;
        }
        else if (sessionRestarted)
        {
            _mapper.ResetSequence();
        }
    }

    /// <summary>
    /// Reads the stream of <paramref name="sessionName"/> on <paramref name="connection"/> until the server ends it
    /// or <paramref name="cancellationToken"/> fires (then <c>SqlCommand.Cancel</c> stops the blocked read within a
    /// round trip). Blocks the calling thread: run it on a dedicated one. Other failures (a cut connection, error
    /// 25726) propagate.
    /// </summary>
    public StreamEnd Read(SqlConnection connection, string sessionName, CancellationToken cancellationToken)
    {
        if (_mapper is null)
        {
            BeginConnection(new XEventUnits(), sessionRestarted: true);
        }

        var generation = Volatile.Read(ref _generation);
        Progress(generation);
        try
        {
            return ReadStream(connection, sessionName, generation, cancellationToken);
        }
        finally
        {
            // However the connection ended, the events in flight then are lost, and the completes of these starts may be
            // among them: kept, they would age while no stream runs (the reconnect's backoff, an unreachable server) and
            // a quiet database would page as stalled. A stall across the reconnect still shows in the waiting tasks, and
            // in the starts made after it. A read given up (Abandon) leaves that to the next connection's start.
            lock (_gate)
            {
                if (generation == _generation)
                {
                    OutstandingRetiredAtConnectionEnd += _mapper!.Latency.Pairs.RetireAll();
                }
            }
        }
    }

    private StreamEnd ReadStream(SqlConnection connection, string sessionName, int generation, CancellationToken cancellationToken)
    {
        using var command = new SqlCommand(XeSql.ReadEventStream, connection) { CommandTimeout = 0 };
        command.Parameters.Add("@name", SqlDbType.NVarChar, 128).Value = sessionName;
        using var registration = cancellationToken.Register(static c => ((SqlCommand)c!).Cancel(), command);
        try
        {
            // The stream works once the server has answered (its columns, or the first buffer), or once the request
            // has been pending for OpenedAfter without an error: a server that refuses a stream says so at once, and
            // an idle instance sends nothing for hours (it must not look down after a reconnect). SQL Server may hold
            // the columns back until the first event fills a packet.
            var opened = 0;
            void Opened()
            {
                if (Interlocked.Exchange(ref opened, 1) == 0 && !cancellationToken.IsCancellationRequested)
                {
                    _health?.Succeeded(_instance, SourceComponents.Stream);
                    OnStreamOpened?.Invoke();
                }
            }

            using var pending = new Timer(_ => Opened(), null, OpenedAfter, Timeout.InfiniteTimeSpan);
            using var reader = command.ExecuteReader(CommandBehavior.SequentialAccess);
            pending.Change(Timeout.InfiniteTimeSpan, Timeout.InfiniteTimeSpan);
            Opened();
            var finished = false;
            try
            {
                while (reader.Read())
                {
                    byte[] buffer;
                    lock (_gate)
                    {
                        if (generation != _generation)
                        {
                            return StreamEnd.Abandoned;
                        }

                        Progress(generation);
                        _inRow = true;
                        buffer = _buffer;
                    }

                    // SequentialAccess: the columns are read in order, type first.
                    var type = reader.IsDBNull(0) ? -1 : reader.GetInt32(0);
                    var data = ReadData(reader, buffer, generation);
                    var length = Math.Max(0, data);
                    lock (_gate)
                    {
                        // A read given up while this row arrived delivers nothing: the next connection owns the decoder.
                        if (generation != _generation)
                        {
                            return StreamEnd.Abandoned;
                        }

                        _inRow = false;
                        Rows.Count(type, data); // every row, whatever becomes of it
                        OnRow(type, length);
                        // Counted once decoded: whoever waits for N buffers read then sees what they held.
                        BuffersRead++;
                        BytesRead += length;
                    }

                    _health?.Succeeded(_instance, SourceComponents.Stream);
                }

                finished = true;
            }
            finally
            {
                lock (_gate)
                {
                    if (generation == _generation)
                    {
                        _inRow = false;
                    }
                }

                if (!finished)
                {
                    // Disposing a reader drains the rest of its result: on an endless stream only an attention ends that.
                    CancelQuietly(command);
                }
            }

            return StreamEnd.Ended;
        }
        catch (Exception e) when (cancellationToken.IsCancellationRequested && e is SqlException or InvalidOperationException or IOException)
        {
            return StreamEnd.Cancelled;
        }
    }

    /// <inheritdoc />
    public void Dispose()
    {
        Outstanding.Close();
        var buffer = Interlocked.Exchange(ref _buffer, []);
        if (buffer.Length > 0)
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }
    }

    private static void CancelQuietly(SqlCommand command)
    {
        try
        {
            command.Cancel();
        }
        catch (Exception e) when (e is SqlException or InvalidOperationException or IOException)
        {
            // The connection is already gone: nothing left to drain.
        }
    }

    /// <summary>
    /// Gives up the read now blocked (its path stalled and nothing wakes it): the next connection gets a buffer of its
    /// own, and the old read, should it ever wake, delivers nothing and ends with <see cref="StreamEnd.Abandoned"/>.
    /// The old buffer stays with the old read (never returned to the pool while it may still write into it).
    /// </summary>
    public void Abandon()
    {
        lock (_gate)
        {
            _generation++;
            _inRow = false;
            _buffer = ArrayPool<byte>.Shared.Rent(_buffer.Length);
        }
    }

    /// <summary>
    /// Copies the row's data column into <paramref name="buffer"/> (this read's), growing it as needed; returns the
    /// length, -1 for NULL. The row's bytes end up in <see cref="_buffer"/> unless the read was given up meanwhile.
    /// </summary>
    private int ReadData(SqlDataReader reader, byte[] buffer, int generation)
    {
        if (reader.IsDBNull(1))
        {
            return -1;
        }

        var length = 0;
        while (true)
        {
            if (length == buffer.Length)
            {
                buffer = Grow(buffer, generation);
            }

            var n = (int)reader.GetBytes(1, length, buffer, length, buffer.Length - length);
            if (n <= 0)
            {
                return length;
            }

            Progress(generation);
            length += n;
        }
    }

    /// <summary>Notes that the read made progress, unless it was given up (a late wake-up must not make a new stall look alive).</summary>
    private void Progress(int generation)
    {
        if (generation == Volatile.Read(ref _generation))
        {
            Interlocked.Exchange(ref _lastProgressTicks, Time.GetUtcNow().UtcTicks);
        }
    }

    private byte[] Grow(byte[] buffer, int generation)
    {
        if (buffer.Length >= MaxBufferBytes)
        {
            throw new InvalidDataException($"a live-stream buffer is larger than Sources:SqlServer:MaxStreamBufferBytes ({MaxBufferBytes:N0} bytes): raise that setting if the session's buffers are really this large (MAX_MEMORY / MAX_EVENT_SIZE), else the server sent a damaged row");
        }

        var bigger = ArrayPool<byte>.Shared.Rent((int)Math.Min((long)buffer.Length * 2, MaxBufferBytes));
        buffer.AsSpan().CopyTo(bigger);
        lock (_gate)
        {
            if (generation != _generation)
            {
                throw new OperationCanceledException("The live-stream read was given up (stalled).");
            }

            ArrayPool<byte>.Shared.Return(buffer);
            _buffer = bigger;
        }

        return bigger;
    }

    /// <summary>Decodes one row by its type (<see cref="XEventBufferDecoder.DecodeRow"/>); nothing a row holds fails the stream.</summary>
    private void OnRow(int type, int length)
    {
        var mapper = _mapper!;
        var damaged = mapper.DamagedSequences;
        try
        {
            if (_decoder.DecodeRow(type, _buffer.AsSpan(0, length), ref mapper) == XEventBufferKind.Header)
            {
                HeaderRows++;
            }

            if (mapper.DamagedSequences != damaged && !_duplicatesLogged)
            {
                // Counted already (loss.kind=malformed); said once, so a person sees why events went missing.
                _duplicatesLogged = true;
                XeLog.SequenceDuplicates(_logger, _instance, mapper.DamagedSequences - damaged);
            }

            Clock.Observe(mapper.LatestFlushEventUtc, Time.GetUtcNow().UtcDateTime);
        }
        catch (XelFormatException e)
        {
            // An unknown type or an unsupported version included: skipping is better than failing every reconnect on
            // the same kind of row.
            Skip(type, length, e.Problem);
        }
    }

    private void Skip(int type, int length, string problem)
    {
        BuffersSkipped++;
        _sink.OnSourceLoss(_instance, LossKind.Malformed, 1);
        if (!_malformedLogged)
        {
            _malformedLogged = true;
            XeLog.RowSkipped(_logger, _instance, type, length, Convert.ToHexString(_buffer, 0, Math.Min(32, length)), problem);
        }
    }
}
