using System.Data;
using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;
using LogFlushMonitor.SqlServer.Connections;
using LogFlushMonitor.SqlServer.Resilience;
using LogFlushMonitor.SqlServer.Sessions;
using Microsoft.Data.SqlClient;

namespace LogFlushMonitor.SqlServer.Streaming;

/// <summary>
/// The live stream of one instance (a part of <see cref="SqlServerInstance"/>, which owns its connection string,
/// session manager, failure reporter and retry policy): connect, check capabilities, make sure the session exists and
/// runs (a DBA may have dropped or stopped it), read the stream; a failed attempt is retried through the instance's
/// <see cref="InstanceRetry"/>. A connection that delivered buffers and then broke ends the attempt without a failure
/// for the policy: the next connection is made after <see cref="SqlServerSourceOptions.ReconnectDelay"/>, and the
/// backoff grows only while nothing works. Error 25726 (too slow) is always backed off and counted: in Auto mode enough
/// of them within the window end the stream so the instance can fall back to histogram mode. The instance's
/// <see cref="StreamWatchdog"/> ends a connection that went silent while the server kept flushing.
/// </summary>
public sealed class LiveStreamSource : IDisposable
{
    /// <summary>The SourceHealth component of the stream.</summary>
    public const string StreamComponent = SourceComponents.Stream;

    /// <summary>The SourceHealth component of session checks and DDL.</summary>
    public const string SessionComponent = SourceComponents.Session;

    private readonly SqlServerInstance _owner;
    private readonly Queue<DateTimeOffset> _tooSlow = new();
    private readonly IPollSink _names;
    private Reading? _current;
    private DatabaseSelection? _selection;
    private long _abandoned;

    /// <summary>
    /// Creates the stream of <paramref name="owner"/>; <paramref name="sink"/> must never wait (the pipeline's dropping
    /// writer). Each connection hands <paramref name="names"/> the names of the databases the session covers before the
    /// first buffer is read, so events keyed by database_id are named from the first one.
    /// </summary>
    internal LiveStreamSource(SqlServerInstance owner, IEventSink sink, IPollSink names)
    {
        _owner = owner;
        _names = names;
        Reader = new EventStreamReader(owner.Name, sink, owner.Health, owner.Logger)
        {
            Time = owner.Time,
            MaxBufferBytes = owner.Fleet.MaxStreamBufferBytes,
            OnStreamOpened = () => owner.Reporter.Recovered(StreamComponent),
        };
    }

    /// <summary>Whether the last attempt opened its connection (false after a connection attempt failed).</summary>
    public bool Reachable { get; private set; }

    /// <summary>Whether this stream made sure its session existed and ran at least once (so it may have to stop it).</summary>
    public bool SessionEnsured { get; private set; }

    /// <summary>The reader (counters of buffers, events, losses, progress).</summary>
    public EventStreamReader Reader { get; }

    /// <summary>Reconnections after a failure (each waited a backoff delay).</summary>
    public long Reconnects => Volatile.Read(ref _reconnects);

    /// <summary>The backoff delay chosen before the latest reconnection.</summary>
    public TimeSpan LastReconnectDelay { get; private set; }

    /// <summary>Disconnections for slowness (25726) so far.</summary>
    public long TooSlowDisconnects { get; private set; }

    /// <summary>Whether a connection is reading the stream now.</summary>
    public bool Connected => Volatile.Read(ref _current) is not null;

    /// <summary>The connection reading the stream now, if any.</summary>
    internal SqlConnection? CurrentConnection => Volatile.Read(ref _current)?.Connection;

    /// <summary>Stalled reads given up so far (each leaves a thread blocked until the operating system ends its socket).</summary>
    public long Abandoned => Interlocked.Read(ref _abandoned);

    private long _reconnects;

    /// <summary>
    /// Streams until cancelled (returns false) or, in Auto mode, until the server disconnected us as too slow
    /// <see cref="SqlServerSourceOptions.FallbackErrorCount"/> times within the window (returns true: fall back).
    /// </summary>
    public async Task<bool> RunAsync(CancellationToken cancellationToken)
    {
        _owner.Watchdog.Start();
        try
        {
            while (true)
            {
                var outcome = await _owner.Retry.ExecuteAsync((attempt, ct) => AttemptAsync(attempt, ct), SessionComponent, cancellationToken, Retrying).ConfigureAwait(false);
                if (outcome == Outcome.Cancelled)
                {
                    return false;
                }

                if (outcome == Outcome.FallBack)
                {
                    return true;
                }

                // The connection worked and ended: a new one after the first delay, the backoff starting afresh.
                await Task.Delay(_owner.Fleet.ReconnectDelay, _owner.Time, cancellationToken).ConfigureAwait(false);
            }
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            return false;
        }
    }

    /// <summary>
    /// Gives up the connection now reading (the watchdog found it stalled): the stream reconnects at once. Returns false
    /// when no connection was reading.
    /// </summary>
    /// <remarks>
    /// A read blocked on a path that stopped forwarding cannot be woken: SqlClient's <c>SqlCommand.Cancel</c> sends an
    /// attention that never crosses the stalled path, and <c>SqlConnection.Dispose</c> blocks until the read returns
    /// (measured against a stalled proxy: both still blocked after 5 s). So the read is abandoned, not ended: its thread
    /// stays blocked until the operating system ends the socket (TCP keep-alive on a dead path), the reader hands the
    /// next connection fresh state so a late wake-up of the old read can deliver nothing, and the old connection is
    /// disposed on that thread once its read returns.
    /// </remarks>
    internal bool Abort()
    {
        if (Interlocked.Exchange(ref _current, null) is not { } reading)
        {
            return false;
        }

        return reading.Stalled.TrySetResult();
    }

    /// <inheritdoc />
    public void Dispose() => Reader.Dispose();

    private async ValueTask<Outcome> AttemptAsync(InstanceRetry.Attempt attempt, CancellationToken cancellationToken)
    {
        attempt.Component = SessionComponent;
        var sessions = _owner.Sessions;
        var buffersBefore = Reader.BuffersRead;
        var connection = await _owner.DataSource.OpenAsync(reachable => Reachable = reachable, cancellationToken).ConfigureAwait(false);
        var abandoned = false;
        try
        {
            try
            {
                var capabilities = await sessions.ReadCapabilitiesAsync(connection, cancellationToken).ConfigureAwait(false);
                var databases = await sessions.ResolveDatabasesAsync(connection, cancellationToken).ConfigureAwait(false);
                PassOnNames(databases);
                var action = await sessions.EnsureAsync(connection, sessions.SessionName, () => sessions.BuildStreamSessionDdl(capabilities, databases), cancellationToken).ConfigureAwait(false);
                SessionEnsured = true;
                _owner.Health.Succeeded(_owner.Name, SessionComponent);
                _owner.Reporter.Recovered(SessionComponent);
                attempt.Component = StreamComponent;
                Reader.BeginConnection(capabilities.Units, sessionRestarted: action != SessionAction.None);
                if (Reader.Connections == 1)
                {
                    // The aggregation reads this stream's outstanding flushes at collection time, until Dispose closes it.
                    _names.OnBatch(SignalRegistry.OutstandingFlushes.Row(_owner.Name, _owner.Time.GetUtcNow().UtcDateTime, Reader.Outstanding));
                    _names.OnBatch(SignalRegistry.StreamRows.Row(_owner.Name, _owner.Time.GetUtcNow().UtcDateTime, Reader.Rows));
                }

                XeLog.StreamConnected(_owner.Logger, _owner.Name, sessions.SessionName, Reader.Connections);

                // The read blocks between buffers for as long as the stream lives: give it its own thread.
                var reading = new Reading(connection);
                Volatile.Write(ref _current, reading);
                StreamEnd end;
                try
                {
                    var read = Task.Factory.StartNew(() => Reader.Read(connection, sessions.SessionName, cancellationToken),
                        CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default);
                    if (await Task.WhenAny(read, reading.Stalled.Task).ConfigureAwait(false) != read)
                    {
                        abandoned = true;
                        Abandon(read, connection);
                        throw new StreamStalledException(_owner.Watchdog.Reason);
                    }

                    end = await read.ConfigureAwait(false);
                }
                finally
                {
                    Interlocked.CompareExchange(ref _current, null, reading);
                }

                if (end == StreamEnd.Cancelled || cancellationToken.IsCancellationRequested)
                {
                    return Outcome.Cancelled;
                }

                if (_owner.Watchdog.Fired(connection))
                {
                    throw new StreamStalledException(_owner.Watchdog.Reason);
                }

                XeLog.StreamEnded(_owner.Logger, _owner.Name);
                var ended = new SessionMissingException("The server ended the live stream (the session was stopped or dropped).");
                if (Reader.BuffersRead > buffersBefore)
                {
                    ReportLost(ended, lost: false);
                    return Outcome.Lost;
                }

                throw ended; // nothing arrived: back off before trying again
            }
            catch (Exception caught) when (caught is not SessionMissingException && !cancellationToken.IsCancellationRequested)
            {
                // A read the watchdog ended fails with whatever SqlClient raises for a closed connection: say what happened.
                var e = _owner.Watchdog.Fired(connection) && caught is not StreamStalledException ? new StreamStalledException(_owner.Watchdog.Reason, caught) : caught;
                var lost = abandoned || connection.State != ConnectionState.Open;
                attempt.ConnectionLost = lost;
                var failure = FailureClassifier.Classify(e, lost);
                if (failure.Kind == SqlErrorKinds.StreamTooSlow)
                {
                    TooSlowDisconnects++;
                    if (ShouldFallBack())
                    {
                        _owner.Reporter.Failed(StreamComponent, e, failure, _tooSlow.Count, TimeSpan.Zero);
                        return Outcome.FallBack;
                    }

                    throw; // back off: reconnecting at once would only be dropped again (25726 is never a stall)
                }

                // A connection that delivered buffers and then broke is retried at once, but only for a transient
                // failure: a persistent one ("needs a fix") would fail the same way, so it goes through the backoff,
                // whose log line then names the delay actually waited (not "next attempt in 00:00:01" beside
                // "retried at the backoff cap").
                if (Reader.BuffersRead > buffersBefore && failure.Class != FailureClass.Persistent)
                {
                    ReportLost(e, lost);
                    return Outcome.Lost;
                }

                if (ReferenceEquals(e, caught))
                {
                    throw;
                }

                throw e;
            }
        }
        finally
        {
            if (!abandoned)
            {
                await connection.DisposeAsync().ConfigureAwait(false);
            }
        }
    }

    /// <summary>
    /// Leaves a stalled read behind (see <see cref="Abort"/>): the reader stops serving it, and its connection is
    /// disposed by the read's own thread once the operating system ends the socket.
    /// </summary>
    private void Abandon(Task<StreamEnd> read, SqlConnection connection)
    {
        Reader.Abandon();
        Interlocked.Increment(ref _abandoned);
        _ = read.ContinueWith(
            static (t, c) =>
            {
                _ = t.Exception; // observed: a dead socket's error is expected, and no longer anyone's to report
                ((SqlConnection)c!).Dispose();
            },
            connection, CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
    }

    /// <summary>The connection now reading, and the signal that gives it up.</summary>
    private sealed class Reading(SqlConnection connection)
    {
        public SqlConnection Connection { get; } = connection;

        public TaskCompletionSource Stalled { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);
    }

    /// <summary>A connection that delivered buffers broke: reconnected after the first delay, the backoff starting afresh.</summary>
    private void ReportLost(Exception e, bool lost)
    {
        _owner.Reporter.Failed(StreamComponent, e, FailureClassifier.Classify(e, lost), 1, _owner.Fleet.ReconnectDelay);
    }

    /// <summary>
    /// Whether the session of the current connection watches <paramref name="database"/> (a counter instance name): the
    /// watchdog compares the stream only with the flushes of these. master, model and msdb flush too (job history,
    /// backups) while no session event of ours can come from them.
    /// </summary>
    internal bool Watches(string database)
    {
        var selection = Volatile.Read(ref _selection);
        if (selection is null)
        {
            return false;
        }

        if (selection.Names.Count > 0 || selection.Kind == DatabaseFilterKind.Include)
        {
            foreach (var name in selection.Names.Values)
            {
                if (string.Equals(name, database, StringComparison.OrdinalIgnoreCase))
                {
                    return true;
                }
            }

            return false;
        }

        // Every user database and tempdb (database_id = 2 or > 4), names not listed: all but the three system databases.
        return database is not ("master" or "model" or "msdb");
    }

    private void PassOnNames(DatabaseSelection databases)
    {
        Volatile.Write(ref _selection, databases);
        _names.OnBatch(SignalRegistry.Databases.Batch(_owner.Name, _owner.Time.GetUtcNow().UtcDateTime, [.. databases.Names.Select(n => new DatabaseRow(n.Key, n.Value))], endsPoll: false));
    }

    /// <summary>Counts a reconnection the retry policy is about to wait for.</summary>
    private void Retrying(TimeSpan delay)
    {
        LastReconnectDelay = delay;
        Interlocked.Increment(ref _reconnects);
    }

    private bool ShouldFallBack()
    {
        var now = _owner.Time.GetUtcNow();
        var window = _owner.Fleet.FallbackWindow;
        _tooSlow.Enqueue(now);
        while (_tooSlow.Count > 0 && now - _tooSlow.Peek() > window)
        {
            _tooSlow.Dequeue();
        }

        if (_owner.Options.Mode != CollectionMode.Auto || _tooSlow.Count < _owner.Fleet.FallbackErrorCount)
        {
            return false;
        }

        XeLog.FellBack(_owner.Logger, _owner.Name, _tooSlow.Count, window);
        return true;
    }

    private enum Outcome
    {
        Cancelled,
        Lost,
        FallBack,
    }
}
