using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.SqlServer.Sessions;
using Microsoft.Data.SqlClient;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using Polly;

namespace LogFlushMonitor.SqlServer.Streaming;

/// <summary>
/// Streams one instance's events until cancelled: connect, check capabilities, make sure the session exists and
/// runs (a DBA may have dropped or stopped it), read the live stream; on failure reconnect with capped, jittered
/// backoff (Polly, on the injected <see cref="TimeProvider"/>). A connection that delivered buffers before it broke
/// is retried at once after <see cref="EventSourceSettings.ReconnectDelay"/>, so the backoff grows only while
/// nothing works. Error 25726 (too slow) is always backed off and counted: in Auto mode enough of them within the
/// window end the stream so the caller can fall back to histogram mode.
/// </summary>
public sealed class LiveStreamSource : IDisposable
{
    /// <summary>The SourceHealth component of the stream.</summary>
    public const string StreamComponent = SourceComponents.Stream;

    /// <summary>The SourceHealth component of session checks and DDL.</summary>
    public const string SessionComponent = SourceComponents.Session;

    private readonly SqlServerInstanceOptions _instance;
    private readonly string _connectionString;
    private readonly SourceHealth _health;
    private readonly EventSourceSettings _settings;
    private readonly TimeProvider _time;
    private readonly ILogger _logger;
    private readonly EventSessionManager _sessions;
    private readonly Queue<DateTimeOffset> _tooSlow = new();
    private readonly ResiliencePipeline _retry;
    private readonly IPollSink? _names;

    /// <summary>
    /// Creates the source; <paramref name="sink"/> must never wait (the pipeline's dropping writer). When
    /// <paramref name="names"/> is given, each connection hands it the names of the databases the session covers before
    /// the first buffer is read, so events keyed by database_id are named from the first one (a series renamed later
    /// would leave its first counts under "id:N").
    /// </summary>
    public LiveStreamSource(SqlServerInstanceOptions instance, string connectionString, IEventSink sink, SourceHealth health,
        EventSourceSettings? settings = null, TimeProvider? time = null, ILogger? logger = null, IPollSink? names = null)
    {
        _instance = instance;
        _names = names;
        _connectionString = connectionString;
        _health = health;
        _settings = settings ?? new EventSourceSettings();
        _time = time ?? TimeProvider.System;
        _logger = logger ?? NullLogger.Instance;
        _sessions = new EventSessionManager(instance, _logger) { CommandTimeoutSeconds = _settings.CommandTimeoutSeconds };
        Reader = new EventStreamReader(instance.Name, sink, health, _logger) { MaxBufferBytes = _settings.MaxBufferBytes };
        _retry = ReconnectPipeline.Build(_settings, _time, (delay, attempt) =>
        {
            Reconnects++;
            LastReconnectDelay = delay;
            XeLog.Reconnecting(_logger, _instance.Name, delay, attempt);
        });
    }

    /// <summary>The reader (counters of buffers, events, losses).</summary>
    public EventStreamReader Reader { get; }

    /// <summary>The session manager this source uses.</summary>
    public EventSessionManager Sessions => _sessions;

    /// <summary>Reconnections after a failure (each waited a backoff delay).</summary>
    public long Reconnects { get; private set; }

    /// <summary>The backoff delay chosen before the latest reconnection.</summary>
    public TimeSpan LastReconnectDelay { get; private set; }

    /// <summary>Disconnections for slowness (25726) so far.</summary>
    public long TooSlowDisconnects { get; private set; }

    /// <summary>
    /// Streams until cancelled (returns false) or, in Auto mode, until the server disconnected us as too slow
    /// <see cref="EventSourceSettings.FallbackErrorCount"/> times within the window (returns true: fall back).
    /// </summary>
    public async Task<bool> RunAsync(CancellationToken cancellationToken)
    {
        while (true)
        {
            Outcome outcome;
            try
            {
                outcome = await _retry.ExecuteAsync(AttemptAsync, cancellationToken).ConfigureAwait(false);
            }
            catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
            {
                return false;
            }

            switch (outcome)
            {
                case Outcome.Cancelled:
                    return false;
                case Outcome.FallBack:
                    return true;
                default:
                    try
                    {
                        await Task.Delay(_settings.ReconnectDelay, _time, cancellationToken).ConfigureAwait(false);
                    }
                    catch (OperationCanceledException)
                    {
                        return false;
                    }

                    break;
            }
        }
    }

    /// <inheritdoc />
    public void Dispose() => Reader.Dispose();

    private async ValueTask<Outcome> AttemptAsync(CancellationToken cancellationToken)
    {
        var component = SessionComponent;
        var buffersBefore = Reader.BuffersRead;
        var connection = new SqlConnection(_connectionString);
        await using (connection.ConfigureAwait(false))
        {
            try
            {
                await connection.OpenAsync(cancellationToken).ConfigureAwait(false);
                var capabilities = await _sessions.ReadCapabilitiesAsync(connection, cancellationToken).ConfigureAwait(false);
                var databases = await _sessions.ResolveDatabasesAsync(connection, cancellationToken).ConfigureAwait(false);
                PassOnNames(databases);
                var action = await _sessions.EnsureAsync(connection, _sessions.SessionName, () => _sessions.BuildStreamSessionDdl(capabilities, databases), cancellationToken).ConfigureAwait(false);
                _health.Succeeded(_instance.Name, SessionComponent);
                component = StreamComponent;
                Reader.BeginConnection(capabilities.Units, sessionRestarted: action != SessionAction.None);
                XeLog.StreamConnected(_logger, _instance.Name, _sessions.SessionName, Reader.Connections);

                // The read blocks between buffers for as long as the stream lives: give it its own thread.
                var end = await Task.Factory.StartNew(() => Reader.Read(connection, _sessions.SessionName, cancellationToken),
                    CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default).ConfigureAwait(false);
                if (end == StreamEnd.Cancelled || cancellationToken.IsCancellationRequested)
                {
                    return Outcome.Cancelled;
                }

                XeLog.StreamEnded(_logger, _instance.Name);
                _health.Failed(_instance.Name, StreamComponent, SqlErrorKinds.SessionMissing);
                return Reader.BuffersRead > buffersBefore ? Outcome.Lost : throw new StreamEndedException();
            }
            catch (Exception e) when (e is not StreamEndedException && !cancellationToken.IsCancellationRequested)
            {
                var kind = SqlErrorKinds.Classify(e);
                var tooSlow = IsTooSlow(e);
                if (tooSlow)
                {
                    kind = SqlErrorKinds.StreamTooSlow;
                }

                _health.Failed(_instance.Name, component, kind);
                XeLog.StreamFailed(_logger, _instance.Name, kind, (e as SqlException)?.Number ?? 0, Polling.SqlServerLog.Safe(e), Reader.BuffersRead - buffersBefore);
                XeLog.StreamFailedDetails(_logger, _instance.Name, e);
                if (tooSlow)
                {
                    TooSlowDisconnects++;
                    if (ShouldFallBack())
                    {
                        return Outcome.FallBack;
                    }

                    throw; // back off: reconnecting at once would only be dropped again
                }

                if (Reader.BuffersRead > buffersBefore)
                {
                    return Outcome.Lost;
                }

                throw;
            }
        }
    }

    private void PassOnNames(DatabaseSelection databases)
    {
        if (_names is null)
        {
            return;
        }

        var now = _time.GetUtcNow().UtcDateTime;
        foreach (var (id, name) in databases.Names)
        {
            _names.OnDatabaseName(new DatabaseNameSample(_instance.Name, now, id, name));
        }
    }

    private static bool IsTooSlow(Exception e) =>
        e is SqlException s && s.Errors.Cast<SqlError>().Any(x => x.Number == 25726);

    private bool ShouldFallBack()
    {
        var now = _time.GetUtcNow();
        _tooSlow.Enqueue(now);
        while (_tooSlow.Count > 0 && now - _tooSlow.Peek() > _settings.FallbackWindow)
        {
            _tooSlow.Dequeue();
        }

        if (_instance.Mode != CollectionMode.Auto || _tooSlow.Count < _settings.FallbackErrorCount)
        {
            return false;
        }

        XeLog.FellBack(_logger, _instance.Name, _tooSlow.Count, _settings.FallbackWindow);
        return true;
    }

    private enum Outcome
    {
        Cancelled,
        Lost,
        FallBack,
    }

    /// <summary>The server ended the stream before any buffer arrived (the session is gone or stopped): retried with backoff.</summary>
    private sealed class StreamEndedException() : Exception("The server ended the live stream before any buffer arrived.");
}
