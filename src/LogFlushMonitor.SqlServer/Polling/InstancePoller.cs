using System.Data;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.SqlServer.Connections;
using LogFlushMonitor.SqlServer.Resilience;
using Microsoft.Data.SqlClient;
using Microsoft.Extensions.Logging;

namespace LogFlushMonitor.SqlServer.Polling;

/// <summary>
/// Polls one instance's DMVs into an <see cref="IPollSink"/> over one connection, reused between polls and
/// opened again when broken. A poll reads, in order: the start time (so Core sees a restart before the rows),
/// sys.databases, the counters, the log waits, the log files, the event session's drops, the sessions waiting on
/// WRITELOG now, and (not on Azure SQL Database) the availability-group replicas.
/// </summary>
/// <remarks>Not thread-safe: one loop per instance calls <see cref="PollOnceAsync"/>.</remarks>
public sealed class InstancePoller : IAsyncDisposable
{
    /// <summary>The component name reported to <see cref="SourceHealth"/>.</summary>
    public const string Component = SourceComponents.Poller;

    private readonly string _connectionString;
    private readonly SourceHealth _health;
    private readonly ILogger _logger;
    private readonly (string Name, Func<SqlConnection, CancellationToken, Task> Poll)[] _kinds;
    private readonly Dictionary<string, string> _failing = new(StringComparer.Ordinal);
    private readonly DatabasePoller _databases;
    private readonly XeDropsPoller _xeDrops;
    private readonly CounterPoller _counters;
    private bool _countersMissing;
    private IReadOnlyList<string> _missingDatabases = [];
    private SqlConnection? _connection;

    /// <summary>Creates a poller; nothing connects until the first poll.</summary>
    /// <param name="instance">The instance's options (name, databases, session, Azure).</param>
    /// <param name="connectionString">The resolved connection string (never logged).</param>
    /// <param name="fleet">Fleet options: command and connect timeouts.</param>
    /// <param name="sink">Where samples go (the pipeline).</param>
    /// <param name="health">Where successes and errors by kind are counted.</param>
    /// <param name="logger">Log lines name the instance, never the connection string.</param>
    /// <param name="time">The clock for sample timestamps.</param>
    public InstancePoller(SqlServerInstanceOptions instance, string connectionString, SqlServerSourceOptions fleet, IPollSink sink, SourceHealth health, ILogger logger, TimeProvider time)
    {
        Name = instance.Name;
        _connectionString = SqlConnections.WithConnectTimeout(connectionString, fleet.ConnectTimeout);
        _health = health;
        _logger = logger;
        var context = new PollContext(instance.Name, sink, time, Math.Max(1, (int)Math.Ceiling(fleet.CommandTimeout.TotalSeconds)));
        var filter = new DatabaseFilter(instance.IncludeDatabases, instance.ExcludeDatabases);
        _databases = new DatabasePoller(context, filter, logger);
        _xeDrops = new XeDropsPoller(context, instance.SessionName, instance.Azure, logger);
        var counters = _counters = new CounterPoller(context, filter, CounterSelection.Create(fleet.Counters), logger, instance.Azure ? null : () => _databases.Databases);
        var waits = new WaitStatsPoller(context, logger, instance.Azure);
        var files = new FileStatsPoller(context, filter, logger, instance.Azure);
        var start = new ServerStartPoller(context);
        var writelogWaiters = new WriteLogWaitersPoller(context, filter, instance.Azure, () => instance.Azure ? [] : _databases.Databases);
        var logWriters = new LogWritersPoller(context, filter);
        var replicas = new HadrReplicaPoller(context, filter, logger);
        _kinds = instance.Azure
            ? [(CountersKind, counters.PollAsync), ("waits", waits.PollAsync), ("file_stats", files.PollAsync), ("xe_drops", _xeDrops.PollAsync),
               ("writelog_waiters", writelogWaiters.PollAsync), ("log_writers", logWriters.PollAsync)]
            : [("start_time", start.PollAsync), ("databases", _databases.PollAsync), (CountersKind, counters.PollAsync),
               ("waits", waits.PollAsync), ("file_stats", files.PollAsync), ("xe_drops", _xeDrops.PollAsync), ("writelog_waiters", writelogWaiters.PollAsync),
               ("log_writers", logWriters.PollAsync), ("hadr_replicas", replicas.PollAsync)];
    }

    /// <summary>The instance name.</summary>
    public string Name { get; }

    /// <summary>The instance's databases as last read from sys.databases.</summary>
    public IReadOnlyList<DatabaseInfo> Databases => _databases.Databases;

    /// <summary>Event buffers the server dropped from our session since we started watching.</summary>
    public long DroppedBuffers => _xeDrops.DroppedBuffers;

    /// <summary>
    /// One poll of every kind. A kind the server refuses on its own (a missing permission) is counted and logged and
    /// the others still run; when the connection cannot be opened, breaks, times out or anything else fails, the
    /// connection is discarded and the exception propagates so the caller backs off.
    /// </summary>
    public async Task PollOnceAsync(CancellationToken cancellationToken)
    {
        LostConnection = false;
        var connection = await OpenAsync(cancellationToken).ConfigureAwait(false);
        var allGood = true;
        var countersRead = false;
        foreach (var (kind, poll) in _kinds)
        {
            try
            {
                await poll(connection, cancellationToken).ConfigureAwait(false);
                countersRead |= kind == CountersKind;
                if (_failing.Remove(kind))
                {
                    SqlServerLog.KindRecovered(_logger, Name, kind);
                }
            }
            catch (Exception e) when (e is SqlException or InvalidOperationException or IOException && !cancellationToken.IsCancellationRequested)
            {
                var lost = connection.State != ConnectionState.Open;
                var failure = FailureClassifier.Classify(e, lost);
                if (lost || e is not SqlException || failure.Class != FailureClass.Persistent)
                {
                    // The connection broke, or the failure is one a new connection after a backoff may cure: the caller retries.
                    LostConnection = lost;
                    await ResetAsync().ConfigureAwait(false);
                    throw;
                }

                allGood = false;
                _health.Failed(Name, Component, failure.Kind);
                var message = SqlServerLog.Safe(e);
                // Logged once while it lasts: a missing permission would otherwise repeat at every poll.
                if (!_failing.TryGetValue(kind, out var previous) || previous != message)
                {
                    _failing[kind] = message;
                    SqlServerLog.KindFailed(_logger, Name, kind, failure.Kind, message);
                }
            }
        }

        if (countersRead)
        {
            allGood &= CheckCounterCoverage();
        }

        if (allGood)
        {
            _health.Succeeded(Name, Component);
        }
    }

    private const string CountersKind = "counters";

    /// <summary>What each kind of poll reads, for <c>check</c>'s report of a statement that failed.</summary>
    internal static string StatementOf(string kind, bool azure) => kind switch
    {
        "start_time" => "sys.dm_os_sys_info (start time)",
        "databases" => "sys.databases (names, states)",
        CountersKind => "sys.dm_os_performance_counters (the Databases object)",
        "waits" => azure ? "sys.dm_db_wait_stats (log waits)" : "sys.dm_os_wait_stats (log waits)",
        "file_stats" => azure ? "sys.dm_io_virtual_file_stats and sys.database_files (log file I/O)" : "sys.dm_io_virtual_file_stats and sys.master_files (log file I/O)",
        "xe_drops" => azure ? "sys.dm_xe_database_sessions (event session drops)" : "sys.dm_xe_sessions (event session drops)",
        "log_writers" => "sys.dm_tran_database_transactions, sys.dm_tran_session_transactions and sys.dm_exec_sessions (the top log writers)",
        "writelog_waiters" => azure ? "sys.dm_os_waiting_tasks and sys.dm_exec_sessions (sessions waiting on WRITELOG)" : "sys.dm_os_waiting_tasks and sys.dm_exec_requests (sessions waiting on WRITELOG)",
        "hadr_replicas" => "sys.dm_hadr_database_replica_states with sys.availability_replicas, sys.availability_groups and sys.dm_hadr_availability_replica_states (availability replicas)",
        _ => kind,
    };

    /// <summary>
    /// Runs every kind of poll once on <paramref name="connection"/>, exactly as <see cref="PollOnceAsync"/> does, and
    /// returns each kind's failure (null when it worked) instead of retrying or logging: what <c>check</c> reports.
    /// </summary>
    internal async Task<IReadOnlyList<(string Kind, Exception? Failure)>> ProbeAsync(SqlConnection connection, CancellationToken cancellationToken)
    {
        var results = new List<(string, Exception?)>();
        foreach (var (kind, poll) in _kinds)
        {
            try
            {
                await poll(connection, cancellationToken).ConfigureAwait(false);
                results.Add((kind, null));
            }
            catch (Exception e) when (e is SqlException or InvalidOperationException && !cancellationToken.IsCancellationRequested)
            {
                results.Add((kind, e));
                if (connection.State != ConnectionState.Open)
                {
                    break;
                }
            }
        }

        return results;
    }

    /// <summary>
    /// No silence that hides a fault (docs/sqlserver.md): no counter rows at all is a failure of the poller
    /// (error.type counters_missing, down); a watched database without counters is a named problem (degraded). Each is
    /// logged once while it lasts. Returns false when the poll must not count as a success.
    /// </summary>
    private bool CheckCounterCoverage()
    {
        if (_counters.ObjectRows == 0)
        {
            _health.Failed(Name, Component, SqlErrorKinds.CountersMissing);
            _health.SetProblem(Name, Component, SqlErrorKinds.CountersMissing,
                "sys.dm_os_performance_counters has no row of the Databases object: the instance's performance counters are not registered", countError: false);
            if (!_countersMissing)
            {
                _countersMissing = true;
                SqlServerLog.CountersMissing(_logger, Name);
            }

            return false;
        }

        if (_countersMissing)
        {
            _countersMissing = false;
            _health.SetProblem(Name, Component, SqlErrorKinds.CountersMissing, null);
            SqlServerLog.KindRecovered(_logger, Name, CountersKind);
        }

        var missing = _counters.MissingDatabases;
        if (!missing.SequenceEqual(_missingDatabases, StringComparer.OrdinalIgnoreCase))
        {
            _missingDatabases = missing;
            if (missing.Count > 0)
            {
                SqlServerLog.DatabasesWithoutCounters(_logger, Name, string.Join(", ", missing));
            }
            else
            {
                SqlServerLog.DatabasesWithCounters(_logger, Name);
            }
        }

        _health.SetProblem(Name, Component, SqlErrorKinds.DatabaseMissing,
            missing.Count > 0 ? "watched databases without performance counters: " + string.Join(", ", missing) : null);
        return true;
    }

    /// <summary>Whether the last failed poll lost its connection (an exception of any type then means a broken connection).</summary>
    public bool LostConnection { get; private set; }

    /// <summary>Closes the connection.</summary>
    public async ValueTask DisposeAsync() => await ResetAsync().ConfigureAwait(false);

    private async Task<SqlConnection> OpenAsync(CancellationToken cancellationToken)
    {
        if (_connection is { State: ConnectionState.Open })
        {
            return _connection;
        }

        await ResetAsync().ConfigureAwait(false);
        var connection = await SqlConnections.OpenAsync(_connectionString, cancellationToken).ConfigureAwait(false);
        _connection = connection;
        SqlServerLog.Connected(_logger, Name, connection.ServerVersion);
        return connection;
    }

    private async Task ResetAsync()
    {
        if (_connection is { } c)
        {
            _connection = null;
            // A broken connection must not come back from the pool on the next open.
            SqlConnection.ClearPool(c);
            await c.DisposeAsync().ConfigureAwait(false);
        }
    }
}
