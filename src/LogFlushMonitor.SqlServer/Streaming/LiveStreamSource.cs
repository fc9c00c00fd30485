using System.Data;
using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.SqlServer.Connections;
using LogFlushMonitor.SqlServer.Resilience;
using LogFlushMonitor.SqlServer.Sessions;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using Polly;

namespace LogFlushMonitor.SqlServer.Streaming;

/// <summary>
/// Streams one instance's events until cancelled: connect, check capabilities, make sure the session exists and
/// runs (a DBA may have dropped or stopped it), read the live stream; on failure reconnect through
/// <see cref="SourceRetryPipeline"/> (capped, jittered backoff on the injected <see cref="TimeProvider"/>). A connection that delivered buffers before it broke
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
    private readonly SourceFailureReporter _reporter;
    private readonly IPollSink? _names;
    private string _failedComponent = SessionComponent;
    private bool _lostConnection;

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
        _reporter = new SourceFailureReporter(instance.Name, health, _logger);
        Reader = new EventStreamReader(instance.Name, sink, health, _logger)
        {
            Time = _time,
            MaxBufferBytes = _settings.MaxBufferBytes,
            OpenedAfter = _settings.StreamOpenedAfter,
            OnStreamOpened = () => _reporter.Recovered(StreamComponent),
        };
        Backoff = new ReconnectBackoff(_settings.ReconnectDelay, _settings.MaxReconnectDelay);
        _retry = SourceRetryPipeline.Build(Backoff, _time, _reporter, () => _failedComponent, e => FailureClassifier.Classify(e, _lostConnection), delay =>
        {
            Reconnects++;
            LastReconnectDelay = delay;
        });
    }

    /// <summary>The backoff between failed attempts.</summary>
    public ReconnectBackoff Backoff { get; }

    /// <summary>Whether the last attempt opened its connection (false after a connection attempt failed).</summary>
    public bool Reachable { get; private set; }

    /// <summary>Whether this source made sure its session existed and ran at least once (so it may have to stop it).</summary>
    public bool SessionEnsured { get; private set; }

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
        _failedComponent = SessionComponent;
        _lostConnection = false;
        var buffersBefore = Reader.BuffersRead;
        var connection = await SqlConnections.OpenAsync(_connectionString, reachable => Reachable = reachable, cancellationToken).ConfigureAwait(false);
        await using (connection.ConfigureAwait(false))
        {
            try
            {
                var capabilities = await _sessions.ReadCapabilitiesAsync(connection, cancellationToken).ConfigureAwait(false);
                var databases = await _sessions.ResolveDatabasesAsync(connection, cancellationToken).ConfigureAwait(false);
                PassOnNames(databases);
                var action = await _sessions.EnsureAsync(connection, _sessions.SessionName, () => _sessions.BuildStreamSessionDdl(capabilities, databases), cancellationToken).ConfigureAwait(false);
                SessionEnsured = true;
                _health.Succeeded(_instance.Name, SessionComponent);
                _reporter.Recovered(SessionComponent);
                _failedComponent = StreamComponent;
                Reader.BeginConnection(capabilities.Units, sessionRestarted: action != SessionAction.None);
                if (Reader.Connections == 1)
                {
                    // The aggregation reads this stream's outstanding flushes at collection time, until Dispose closes it.
                    _names?.OnOutstandingFlushes(Reader.Outstanding);
                }

                XeLog.StreamConnected(_logger, _instance.Name, _sessions.SessionName, Reader.Connections);

                // The read blocks between buffers for as long as the stream lives: give it its own thread.
                var end = await Task.Factory.StartNew(() => Reader.Read(connection, _sessions.SessionName, cancellationToken),
                    CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default).ConfigureAwait(false);
                if (end == StreamEnd.Cancelled || cancellationToken.IsCancellationRequested)
                {
                    return Outcome.Cancelled;
                }

                XeLog.StreamEnded(_logger, _instance.Name);
                var ended = new SessionMissingException("The server ended the live stream (the session was stopped or dropped).");
                if (Reader.BuffersRead > buffersBefore)
                {
                    ReportLost(ended);
                    return Outcome.Lost;
                }

                throw ended; // nothing arrived: back off before trying again
            }
            catch (Exception e) when (e is not SessionMissingException && !cancellationToken.IsCancellationRequested)
            {
                _lostConnection = connection.State != ConnectionState.Open;
                var failure = FailureClassifier.Classify(e, _lostConnection);
                if (failure.Kind == SqlErrorKinds.StreamTooSlow)
                {
                    TooSlowDisconnects++;
                    if (ShouldFallBack())
                    {
                        _reporter.Failed(StreamComponent, e, failure, _tooSlow.Count, TimeSpan.Zero);
                        return Outcome.FallBack;
                    }

                    throw; // back off: reconnecting at once would only be dropped again
                }

                // A connection that delivered buffers and then broke is retried at once, but only for a transient
                // failure: a persistent one ("needs a fix") would fail the same way, so it goes through the backoff,
                // whose log line then names the delay actually waited (not "next attempt in 00:00:01" beside
                // "retried at the backoff cap").
                if (Reader.BuffersRead > buffersBefore && failure.Class != FailureClass.Persistent)
                {
                    ReportLost(e);
                    return Outcome.Lost;
                }

                throw;
            }
        }
    }

    /// <summary>A connection that delivered buffers broke: reconnected after the first delay, the backoff starting afresh.</summary>
    private void ReportLost(Exception e)
    {
        _reporter.Failed(_failedComponent, e, FailureClassifier.Classify(e, _lostConnection), 1, _settings.ReconnectDelay);
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
}
