using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.SqlServer.Connections;
using LogFlushMonitor.SqlServer.Histogram;
using LogFlushMonitor.SqlServer.Sessions;
using Microsoft.Data.SqlClient;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace LogFlushMonitor.SqlServer.Streaming;

/// <summary>
/// Everything event-based for one instance, until cancelled: the live stream (Stream and Auto modes), the
/// automatic fallback of an Auto instance to histogram mode when the server keeps disconnecting the stream as too
/// slow (25726), histogram mode, and at the end stopping (or dropping, with DropSessionOnStop) the sessions used.
/// The fleet runs one per instance.
/// </summary>
public sealed class InstanceEventSource
{
    private readonly SqlServerInstanceOptions _instance;
    private readonly string _connectionString;
    private readonly IEventSink _streamSink;
    private readonly IPollSink _pollSink;
    private readonly SourceHealth _health;
    private readonly EventSourceSettings _settings;
    private readonly TimeProvider _time;
    private readonly ILogger _logger;

    /// <summary>Creates the source.</summary>
    /// <param name="instance">The instance's options.</param>
    /// <param name="connectionString">The resolved connection string (never logged).</param>
    /// <param name="streamSink">Receives the live stream's events; must never wait (the pipeline's dropping writer).</param>
    /// <param name="pollSink">Receives what goes straight to the aggregation: histogram mode's buckets and the names of the databases the stream covers.</param>
    /// <param name="health">Counts successes and errors by kind.</param>
    /// <param name="settings">Backoff, fallback and histogram settings.</param>
    /// <param name="time">Clock for backoff and polling.</param>
    /// <param name="logger">Lines name the instance, never its connection string.</param>
    public InstanceEventSource(SqlServerInstanceOptions instance, string connectionString, IEventSink streamSink, IPollSink pollSink, SourceHealth health,
        EventSourceSettings? settings = null, TimeProvider? time = null, ILogger? logger = null)
    {
        _instance = instance;
        _connectionString = connectionString;
        _streamSink = streamSink;
        _pollSink = pollSink;
        _health = health;
        _settings = settings ?? new EventSourceSettings();
        _time = time ?? TimeProvider.System;
        _logger = logger ?? NullLogger.Instance;
        XeSessionName.Validate(instance.SessionName);
    }

    /// <summary>The live stream, once running (null in Histogram mode).</summary>
    public LiveStreamSource? Stream { get; private set; }

    /// <summary>The histogram source, once running (after a fallback or in Histogram mode).</summary>
    public HistogramSource? Histogram { get; private set; }

    /// <summary>Runs until cancelled; then stops or drops the sessions it used (within <see cref="EventSourceSettings.ShutdownTimeout"/>).</summary>
    public async Task RunAsync(CancellationToken cancellationToken)
    {
        var used = new List<string>();
        try
        {
            if (_instance.Mode != CollectionMode.Histogram)
            {
                _health.SetMode(_instance.Name, CollectionModes.Stream);
                using var stream = new LiveStreamSource(_instance, _connectionString, _streamSink, _health, _settings, _time, _logger, names: _pollSink);
                Stream = stream;
                bool fallBack;
                try
                {
                    fallBack = await stream.RunAsync(cancellationToken).ConfigureAwait(false);
                }
                finally
                {
                    // Only a session this source made sure of needs stopping, and only a server that answered its last
                    // attempt is worth asking: shutdown must not wait a connect timeout for a dead one.
                    if (stream.SessionEnsured && stream.Reachable)
                    {
                        used.Add(stream.Sessions.SessionName);
                    }
                }

                if (!fallBack)
                {
                    return;
                }

                _health.FellBack(_instance.Name);
                // Nobody reads the stream session any more: stop (or drop) it so it costs the server nothing.
                await CleanUpAsync(used).ConfigureAwait(false);
                used.Clear();
            }

            _health.SetMode(_instance.Name, CollectionModes.Histogram);
            var histogram = new HistogramSource(_instance, _connectionString, _pollSink, _health, _settings, _time, _logger);
            Histogram = histogram;
            try
            {
                await histogram.RunAsync(cancellationToken).ConfigureAwait(false);
            }
            finally
            {
                if (histogram.Reachable)
                {
                    used.AddRange(histogram.SessionNames);
                }
            }
        }
        finally
        {
            await CleanUpAsync(used).ConfigureAwait(false);
        }
    }

    private async Task CleanUpAsync(List<string> sessions)
    {
        if (sessions.Count == 0)
        {
            return;
        }

        // The caller's token is cancelled by now: shutdown work gets its own bounded time.
        using var timeout = new CancellationTokenSource(_settings.ShutdownTimeout, _time);
        var manager = new EventSessionManager(_instance, _logger) { CommandTimeoutSeconds = Math.Max(1, (int)_settings.ShutdownTimeout.TotalSeconds) };
        try
        {
            var connectTimeout = _settings.ConnectTimeout < _settings.ShutdownTimeout ? _settings.ConnectTimeout : _settings.ShutdownTimeout;
            var connection = await SqlConnections.OpenAsync(SqlConnections.WithConnectTimeout(_connectionString, connectTimeout), timeout.Token).ConfigureAwait(false);
            await using (connection.ConfigureAwait(false))
            {
                foreach (var session in sessions)
                {
                    await manager.StopAsync(connection, session, timeout.Token).ConfigureAwait(false);
                }
            }
        }
        catch (Exception e) when (e is SqlException or InvalidOperationException or OperationCanceledException or IOException or TimeoutException)
        {
            foreach (var session in sessions)
            {
                XeLog.SessionCleanupFailed(_logger, _instance.Name, session, SqlErrorKinds.Classify(e));
            }
        }
    }
}
