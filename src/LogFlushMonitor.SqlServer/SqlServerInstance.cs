using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.SqlServer.Connections;
using LogFlushMonitor.SqlServer.Histogram;
using LogFlushMonitor.SqlServer.Polling;
using LogFlushMonitor.SqlServer.Resilience;
using LogFlushMonitor.SqlServer.Sessions;
using LogFlushMonitor.SqlServer.Streaming;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace LogFlushMonitor.SqlServer;

/// <summary>
/// One watched SQL Server instance, and everything that runs for it: its data source (the connection string, resolved once,
/// and every connection opened to it: <see cref="SqlServerDataSource"/>), one
/// failure reporter, one event session manager, one retry policy (<see cref="InstanceRetry"/>), the poll loop
/// (<see cref="InstancePoller"/> every poll interval), the event loop (the live stream, the automatic fallback to the
/// server-side histogram, or histogram mode), the stream's watchdog, and at the end the stop (or drop) of the event
/// sessions it used. A fleet runs one per instance of its shard, each in its own tasks, so one instance never stalls
/// another.
/// </summary>
public sealed class SqlServerInstance : IDisposable
{
    private readonly IPollSink _polls;

    /// <summary>Creates the instance; nothing connects until <see cref="RunAsync"/>.</summary>
    /// <param name="options">The instance's settings.</param>
    /// <param name="fleet">The fleet's settings (timeouts, delays, intervals the instance does not override).</param>
    /// <param name="events">Receives the live stream's events; must never wait (the pipeline's dropping writer).</param>
    /// <param name="polls">Receives polled rows, histogram buckets and the names of the databases the stream covers.</param>
    /// <param name="health">Counts successes and errors by kind.</param>
    /// <param name="logger">Lines name the instance, never its connection string.</param>
    /// <param name="time">The clock of intervals, delays and timestamps.</param>
    /// <param name="environment">Environment lookup for ConnectionStringEnvironmentVariable (tests replace it).</param>
    /// <param name="random">The retry policy's random source in [0, 1) (tests give a fixed one).</param>
    /// <exception cref="InvalidOperationException">The connection string cannot be resolved (the message names the setting, never the value).</exception>
    public SqlServerInstance(SqlServerInstanceOptions options, SqlServerSourceOptions fleet, IEventSink events, IPollSink polls, SourceHealth health,
        ILogger? logger = null, TimeProvider? time = null, Func<string, string?>? environment = null, Func<double>? random = null)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(fleet);
        Options = options;
        Fleet = fleet;
        Health = health;
        Logger = logger ?? NullLogger.Instance;
        Time = time ?? TimeProvider.System;
        DataSource = SqlServerDataSource.Create(options, fleet, environment);
        Reporter = new SourceFailureReporter(options.Name, health, Logger);
        Sessions = new EventSessionManager(options, Logger) { CommandTimeoutSeconds = CommandTimeoutSeconds };
        Retry = new InstanceRetry(fleet.ReconnectDelay, fleet.MaxReconnectDelay, Time, Reporter, random);
        Watchdog = new StreamWatchdog(this);
        _polls = Watchdog.Tap(polls);
        Poller = new InstancePoller(DataSource, fleet, _polls, health, Logger, Time);
        Stream = new LiveStreamSource(this, events, polls);
        Histogram = new HistogramSource(this, polls);
    }

    /// <summary>The instance's name (sqlserver.instance.name).</summary>
    public string Name => Options.Name;

    /// <summary>The instance's settings.</summary>
    public SqlServerInstanceOptions Options { get; }

    /// <summary>The fleet's settings.</summary>
    public SqlServerSourceOptions Fleet { get; }

    /// <summary>The poll interval in force (the instance's own, else the fleet's).</summary>
    public TimeSpan PollInterval => Options.PollInterval ?? Fleet.PollInterval;

    /// <summary>Timeout of each statement, in whole seconds as SqlClient takes it.</summary>
    public int CommandTimeoutSeconds => Math.Max(1, (int)Math.Ceiling(Fleet.CommandTimeout.TotalSeconds));

    /// <summary>The one way to the instance: its connection string (a secret, never logged) and every connection opened to it.</summary>
    public SqlServerDataSource DataSource { get; }

    internal SourceHealth Health { get; }

    internal ILogger Logger { get; }

    internal TimeProvider Time { get; }

    /// <summary>The one reporter of this instance's failures (each logged once per change, counted by kind).</summary>
    public SourceFailureReporter Reporter { get; }

    /// <summary>The one manager of this instance's event sessions.</summary>
    public EventSessionManager Sessions { get; }

    /// <summary>The one retry policy of this instance.</summary>
    public InstanceRetry Retry { get; }

    /// <summary>The DMV polls.</summary>
    public InstancePoller Poller { get; }

    /// <summary>The live stream (Stream and Auto modes).</summary>
    public LiveStreamSource Stream { get; }

    /// <summary>The histogram targets (Histogram mode, or after an Auto instance fell back).</summary>
    public HistogramSource Histogram { get; }

    /// <summary>Watches the live stream for a stall that no error reveals.</summary>
    public StreamWatchdog Watchdog { get; }

    /// <summary>Runs the poll loop and the event loop until cancelled; then stops (or drops) the sessions used.</summary>
    public Task RunAsync(CancellationToken cancellationToken) =>
        Task.WhenAll(
            Task.Run(() => RunPollsAsync(cancellationToken), CancellationToken.None),
            Task.Run(() => RunEventsAsync(cancellationToken), CancellationToken.None));

    /// <summary>Polls every <see cref="PollInterval"/> until cancelled, retrying failed polls through <see cref="Retry"/>.</summary>
    public async Task RunPollsAsync(CancellationToken cancellationToken)
    {
        SqlServerLog.InstanceStarted(Logger, Name, PollInterval, DataSource.Target);
        if (DataSource.ConnectTimeoutNote is { } note)
        {
            SqlServerLog.ConnectTimeoutFromConnectionString(Logger, Name, note);
        }

        try
        {
            while (true)
            {
                await Retry.ExecuteAsync(
                    async (attempt, ct) =>
                    {
                        try
                        {
                            await Poller.PollOnceAsync(ct).ConfigureAwait(false);
                            return true;
                        }
                        finally
                        {
                            attempt.ConnectionLost = Poller.LostConnection;
                        }
                    },
                    InstancePoller.Component, cancellationToken).ConfigureAwait(false);
                Reporter.Recovered(InstancePoller.Component);
                // A delay after each poll, not a periodic timer: after a long outage a timer's missed tick would fire at
                // once and give the next rate an interval of a few milliseconds.
                await Task.Delay(PollInterval, Time, cancellationToken).ConfigureAwait(false);
            }
        }
        catch (Exception) when (cancellationToken.IsCancellationRequested)
        {
            // Stopping: SqlClient reports a cancelled command as a SqlException, not as OperationCanceledException.
        }
        finally
        {
            await Poller.DisposeAsync().ConfigureAwait(false);
        }
    }

    /// <summary>
    /// The event loop until cancelled: the live stream (Stream and Auto modes), the fallback of an Auto instance to
    /// histogram mode when the server keeps disconnecting the stream as too slow (25726), histogram mode; then the stop
    /// (or drop) of the sessions used, within <see cref="SqlServerSourceOptions.ShutdownTimeout"/>.
    /// </summary>
    public async Task RunEventsAsync(CancellationToken cancellationToken)
    {
        var used = new List<string>();
        try
        {
            if (Options.Mode != CollectionMode.Histogram)
            {
                Health.SetMode(Name, CollectionModes.Stream);
                bool fallBack;
                try
                {
                    fallBack = await Stream.RunAsync(cancellationToken).ConfigureAwait(false);
                }
                finally
                {
                    // Only a session this instance made sure of needs stopping, and only a server that answered its last
                    // attempt is worth asking: shutdown must not wait a connect timeout for a dead one.
                    if (Stream.SessionEnsured && Stream.Reachable)
                    {
                        used.Add(Sessions.SessionName);
                    }
                }

                if (!fallBack)
                {
                    return;
                }

                Health.FellBack(Name);
                // Nobody reads the stream session any more: stop (or drop) it so it costs the server nothing.
                await CleanUpAsync(used).ConfigureAwait(false);
                used.Clear();
            }

            Health.SetMode(Name, CollectionModes.Histogram);
            try
            {
                await Histogram.RunAsync(cancellationToken).ConfigureAwait(false);
            }
            finally
            {
                if (Histogram.Reachable)
                {
                    used.AddRange(Histogram.SessionNames);
                }
            }
        }
        finally
        {
            await CleanUpAsync(used).ConfigureAwait(false);
        }
    }

    /// <inheritdoc />
    public void Dispose()
    {
        Watchdog.Dispose();
        Stream.Dispose();
    }

    private async Task CleanUpAsync(List<string> sessions)
    {
        if (sessions.Count == 0)
        {
            return;
        }

        // The caller's token is cancelled by now: shutdown work gets its own bounded time (a statement that outlasts it
        // is cancelled with the token, whatever its command timeout).
        var shutdown = Fleet.ShutdownTimeout;
        using var timeout = new CancellationTokenSource(shutdown, Time);
        try
        {
            var connectTimeout = Fleet.ConnectTimeout < shutdown ? Fleet.ConnectTimeout : shutdown;
            var connection = await DataSource.OpenAsync(connectTimeout, timeout.Token).ConfigureAwait(false);
            await using (connection.ConfigureAwait(false))
            {
                foreach (var session in sessions)
                {
                    await Sessions.StopAsync(connection, session, timeout.Token).ConfigureAwait(false);
                }
            }
        }
        catch (Exception e) when (e is Microsoft.Data.SqlClient.SqlException or InvalidOperationException or OperationCanceledException or IOException or TimeoutException)
        {
            foreach (var session in sessions)
            {
                XeLog.SessionCleanupFailed(Logger, Name, session, SqlErrorKinds.Classify(e));
            }
        }
    }
}
