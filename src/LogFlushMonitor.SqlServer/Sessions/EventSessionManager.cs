using System.Globalization;
using Dapper;
using LogFlushMonitor.Core.XEvents;
using LogFlushMonitor.SqlServer.Sql;
using LogFlushMonitor.SqlServer.Streaming;
using Microsoft.Data.SqlClient;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace LogFlushMonitor.SqlServer.Sessions;

/// <summary>What <see cref="EventSessionManager.EnsureAsync"/> had to do.</summary>
public enum SessionAction
{
    /// <summary>The session was defined and running.</summary>
    None,

    /// <summary>The session was defined but stopped: it was started.</summary>
    Started,

    /// <summary>The session did not exist: it was created and started.</summary>
    Created,
}

/// <summary>
/// Owns an instance's Extended Events sessions: reads the server's XE capabilities, resolves the watched
/// databases to ids, creates a session when absent, starts it when stopped (a DBA may have dropped or stopped it:
/// every reconnect checks again), and stops or drops it at shutdown.
/// </summary>
/// <remarks>Stateless between calls apart from options; one instance per watched SQL Server instance.</remarks>
public sealed class EventSessionManager
{
    /// <summary>"The event session, "name", already exists."</summary>
    private const int AlreadyExists = 25631;

    /// <summary>"The event session has already been started."</summary>
    private const int AlreadyStarted = 25705;

    private readonly SqlServerInstanceOptions _instance;
    private readonly ILogger _logger;

    /// <summary>Creates a manager for <paramref name="instance"/>; the session name is validated here.</summary>
    public EventSessionManager(SqlServerInstanceOptions instance, ILogger? logger = null)
    {
        _instance = instance;
        _logger = logger ?? NullLogger.Instance;
        SessionName = XeSessionName.Validate(instance.SessionName);
    }

    /// <summary>The live-stream session's name (validated).</summary>
    public string SessionName { get; }

    /// <summary>Command timeout of catalog queries and DDL, in seconds.</summary>
    public int CommandTimeoutSeconds { get; init; } = 30;

    /// <summary>Reads what the server's XE catalog offers (events, fields, actions, the WRITELOG key, units).</summary>
    public async Task<XeCapabilities> ReadCapabilitiesAsync(SqlConnection connection, CancellationToken cancellationToken)
    {
        var objects = (await connection.QueryAsync<XeCatalogRows.Object>(XeSql.Objects, cancellationToken, commandTimeout: CommandTimeoutSeconds).ConfigureAwait(false))
            .Select(o => (o.PackageName, o.ObjectName, o.ObjectType)).ToList();
        var columns = (await connection.QueryAsync<XeCatalogRows.Column>(XeSql.EventColumns, cancellationToken, commandTimeout: CommandTimeoutSeconds).ConfigureAwait(false))
            .Select(c => (c.PackageName, c.ObjectName, c.ColumnName, c.TypeName, c.Description)).ToList();
        var keys = (await connection.QueryAsync<long>(XeSql.WriteLogKeys, cancellationToken, commandTimeout: CommandTimeoutSeconds).ConfigureAwait(false)).Distinct().Order().ToList();
        var hadrKeys = (await connection.QueryAsync<long>(XeSql.HadrSyncCommitKeys, cancellationToken, commandTimeout: CommandTimeoutSeconds).ConfigureAwait(false)).Distinct().Order().ToList();
        var logWaitKeys = (await connection.QueryAsync<long>(XeSql.LogWaitKeys, cancellationToken, commandTimeout: CommandTimeoutSeconds).ConfigureAwait(false)).Distinct().Order().ToList();

        bool Has(string package, string name, string type) =>
            objects.Any(o => o.PackageName == package && o.ObjectName == name && string.Equals(o.ObjectType, type, StringComparison.OrdinalIgnoreCase));
        (string PackageName, string ObjectName, string ColumnName, string? TypeName, string? Description)? Column(string evt, string name) =>
            columns.Where(c => c.ObjectName == evt && c.ColumnName == name).Select(c => ((string, string, string, string?, string?)?)c).FirstOrDefault();

        var waitEvent = Has("sqlos", "wait_completed", "event") ? "sqlos.wait_completed" : Has("sqlos", "wait_info", "event") ? "sqlos.wait_info" : null;
        var defaults = new XEventUnits();
        var capabilities = new XeCapabilities
        {
            HasFlushStart = Has("sqlserver", "log_flush_start", "event"),
            HasFlushComplete = Has("sqlserver", "log_flush_complete", "event"),
            FlushStartHasDatabaseId = Column("log_flush_start", "database_id") is not null,
            FlushStartHasWriteSize = Column("log_flush_start", "write_size") is not null,
            FlushStartHasLogBlockId = Column("log_flush_start", "log_block_id") is not null,
            FlushCompleteHasDatabaseId = Column("log_flush_complete", "database_id") is not null,
            WaitEvent = waitEvent,
            WriteLogKeys = keys,
            HadrSyncCommitKeys = hadrKeys,
            LogWaitKeys = logWaitKeys,
            HasDatabaseIdAction = Has("sqlserver", "database_id", "action"),
            HasEventSequenceAction = Has("package0", "event_sequence", "action"),
            HasClientAppNameAction = Has("sqlserver", "client_app_name", "action"),
            HasQueryHashAction = Has("sqlserver", "query_hash", "action"),
            HasHistogramTarget = Has("package0", "histogram", "target"),
            Units = new XEventUnits
            {
                FlushComplete = XeCapabilities.UnitFromDescription(Column("log_flush_complete", "duration")?.Description, defaults.FlushComplete),
                WaitCompleted = XeCapabilities.UnitFromDescription(Column("wait_completed", "duration")?.Description, defaults.WaitCompleted),
                WaitInfo = XeCapabilities.UnitFromDescription(Column("wait_info", "duration")?.Description, defaults.WaitInfo),
            },
        };
        XeLog.Capabilities(_logger, _instance.Name, waitEvent ?? "none", string.Join(",", keys), capabilities.HasFlushComplete,
            (waitEvent == "sqlos.wait_info" ? capabilities.Units.WaitInfo : capabilities.Units.WaitCompleted).ToString());
        return capabilities;
    }

    /// <summary>Resolves IncludeDatabases / ExcludeDatabases to ids with parameterised queries.</summary>
    public async Task<DatabaseSelection> ResolveDatabasesAsync(SqlConnection connection, CancellationToken cancellationToken)
    {
        if (_instance.IncludeDatabases.Count > 0)
        {
            var rows = await ByName(connection, _instance.IncludeDatabases.Except(_instance.ExcludeDatabases, StringComparer.OrdinalIgnoreCase), cancellationToken).ConfigureAwait(false);
            if (rows.Count == 0)
            {
                XeLog.NoIncludedDatabase(_logger, _instance.Name, _instance.IncludeDatabases.Count);
            }

            return new DatabaseSelection(DatabaseFilterKind.Include, [.. rows.Select(r => r.DatabaseId).Order()], Names(rows, XeSql.AllDatabases));
        }

        var all = (await connection.QueryAsync<XeCatalogRows.Database>(XeSql.UserDatabases, cancellationToken, commandTimeout: CommandTimeoutSeconds).ConfigureAwait(false))
            .Select(d => (d.DatabaseId, d.Name)).ToList();
        if (_instance.ExcludeDatabases.Count == 0)
        {
            return new DatabaseSelection(DatabaseFilterKind.AllUser, [], Names(all, XeSql.UserDatabases));
        }

        var excluded = await ByName(connection, _instance.ExcludeDatabases, cancellationToken).ConfigureAwait(false);
        var excludedIds = Names(excluded, XeSql.AllDatabases).Keys.ToHashSet();
        return new DatabaseSelection(DatabaseFilterKind.Exclude, [.. excludedIds.Order()],
            Names(all.Where(r => !excludedIds.Contains(r.DatabaseId)), XeSql.UserDatabases));
    }

    /// <summary>
    /// The databases a catalog read listed, by id. An id listed twice, or one SQL Server never assigns (outside 0 to
    /// 32767), is an answer no server gives: a named protocol failure of the statement (retried at the backoff cap), never
    /// a crash, and the session is not built from it.
    /// </summary>
    private static Dictionary<int, string> Names(IEnumerable<(int DatabaseId, string Name)> rows, string statement)
    {
        var names = new Dictionary<int, string>();
        foreach (var (id, name) in rows)
        {
            if (!Core.Samples.DatabaseIds.IsValid(id))
            {
                throw new Core.Signals.StatementAnswerException($"sys.databases (the event session's database list): database_id {id} ({name}) is not one SQL Server assigns (0 to {Core.Samples.DatabaseIds.Max}); statement: {FirstLine(statement)}");
            }

            if (!names.TryAdd(id, name))
            {
                throw new Core.Signals.StatementAnswerException($"sys.databases (the event session's database list): database_id {id} is listed twice ({names[id]}, {name}); statement: {FirstLine(statement)}");
            }
        }

        return names;
    }

    private static string FirstLine(string statement) => statement.Trim().Split('\n')[0].Trim();

    /// <summary>
    /// The CREATE EVENT SESSION statement of the live-stream session for this server's capabilities; with
    /// <paramref name="histogramSlots"/>, a histogram target on log_flush_start's write_size too (<c>check --capture</c>
    /// reads both from one temporary session).
    /// </summary>
    public string BuildStreamSessionDdl(XeCapabilities capabilities, DatabaseSelection databases, int? histogramSlots = null)
    {
        if (!capabilities.HasFlushStart)
        {
            throw new NotSupportedException("This server's XE catalog has no sqlserver.log_flush_start event.");
        }

        var azure = _instance.Azure;
        string? DbPredicate(string source) => azure ? null : databases.Predicate(source);
        var sequence = capabilities.HasEventSequenceAction ? new[] { "package0.event_sequence" } : [];
        var dbAction = capabilities.HasDatabaseIdAction ? new[] { "sqlserver.database_id" } : [];
        var events = new List<XeEventClause>
        {
            capabilities.FlushStartHasDatabaseId
                ? new XeEventClause("sqlserver.log_flush_start", sequence, DbPredicate("[database_id]"))
                : new XeEventClause("sqlserver.log_flush_start", [.. dbAction, .. sequence], DbPredicate("[sqlserver].[database_id]")),
        };
        if (capabilities.HasFlushComplete)
        {
            events.Add(capabilities.FlushCompleteHasDatabaseId
                ? new XeEventClause("sqlserver.log_flush_complete", sequence, DbPredicate("[database_id]"))
                : new XeEventClause("sqlserver.log_flush_complete", [.. dbAction, .. sequence], DbPredicate("[sqlserver].[database_id]")));
        }

        if (capabilities.CanCollectWriteLog)
        {
            // The keys come from sys.dm_xe_map_values on this server; they differ between versions. HADR_SYNC_COMMIT rides
            // along with WRITELOG: the two halves of a commit on a synchronous replica, told apart by the event's map text;
            // so do LOGBUFFER and the log-rate governor's forms, the commit budget's other parts per database.
            var waitType = "(" + string.Join(" OR ", capabilities.WriteLogKeys.Concat(capabilities.HadrSyncCommitKeys).Concat(capabilities.LogWaitKeys).Distinct()
                .Select(k => string.Create(CultureInfo.InvariantCulture, $"[wait_type] = ({k})"))) + ")";
            var parts = new List<string> { waitType };
            if (capabilities.WaitEvent == "sqlos.wait_info")
            {
                parts.Add("[opcode] = (1)"); // end of the wait: the only one with a duration
            }

            if (DbPredicate("[sqlserver].[database_id]") is { } db)
            {
                parts.Add(db);
            }

            // client_app_name attributes WRITELOG time to applications (top 5 per database); on the wait event only, whose
            // rate is that of commits that waited, never on the flush events.
            var app = capabilities.HasClientAppNameAction ? new[] { "sqlserver.client_app_name" } : [];
            // query_hash (uint64) attributes the same waits to statements (top 5 per database); the hash is a number the
            // action reads from the task's request, no text: docs/sqlserver.md, "Statements".
            var statement = capabilities.HasQueryHashAction ? new[] { "sqlserver.query_hash" } : [];
            events.Add(new XeEventClause(capabilities.WaitEvent!, [.. dbAction, .. app, .. statement, .. sequence], "(" + string.Join(" AND ", parts) + ")"));
        }

        var target = histogramSlots is { } slots && capabilities.HasHistogramTarget ? XeSql.HistogramTarget(slots) : null;
        return XeSql.CreateSession(XeSessionName.Quote(SessionName), azure, events, target, _instance.MaxMemoryKb, _instance.MaxDispatchLatencySeconds);
    }

    /// <summary>
    /// The CREATE EVENT SESSION statement of a histogram session: log_flush_start (filtered on one database
    /// when <paramref name="databaseId"/> is given, else on <paramref name="databases"/> when given) into a
    /// package0.histogram target on write_size.
    /// </summary>
    public string BuildHistogramSessionDdl(string sessionName, int? databaseId, DatabaseSelection? databases, int slots)
    {
        var predicate = _instance.Azure ? null
            : databaseId is { } id ? string.Create(CultureInfo.InvariantCulture, $"([database_id] = ({id}))")
            : databases?.Predicate("[database_id]");
        var events = new[] { new XeEventClause("sqlserver.log_flush_start", [], predicate) };
        return XeSql.CreateSession(XeSessionName.Quote(sessionName), _instance.Azure, events, XeSql.HistogramTarget(slots), _instance.MaxMemoryKb, _instance.MaxDispatchLatencySeconds);
    }

    /// <summary>
    /// Makes sure <paramref name="sessionName"/> exists and runs: creates it with <paramref name="createDdl"/> when
    /// absent (a DBA may have dropped it) and starts it when stopped.
    /// </summary>
    public async Task<SessionAction> EnsureAsync(SqlConnection connection, string sessionName, Func<string> createDdl, CancellationToken cancellationToken)
    {
        var quoted = XeSessionName.Quote(sessionName);
        var state = await SessionStateAsync(connection, sessionName, cancellationToken).ConfigureAwait(false);
        if (state.Defined == 1 && state.Running == 1)
        {
            return SessionAction.None;
        }

        var action = SessionAction.Started;
        if (state.Defined != 1)
        {
            try
            {
                await connection.ExecuteAsync(createDdl(), cancellationToken, commandTimeout: CommandTimeoutSeconds).ConfigureAwait(false);
                XeLog.SessionCreated(_logger, _instance.Name, sessionName);
                action = SessionAction.Created;
            }
            catch (SqlException e) when (e.Number == AlreadyExists)
            {
                // Another replica created it meanwhile, or the catalog hid it from us (Azure scopes visibility by permission).
            }
        }

        try
        {
            await connection.ExecuteAsync(XeSql.StartSession(quoted, _instance.Azure), cancellationToken, commandTimeout: CommandTimeoutSeconds).ConfigureAwait(false);
        }
        catch (SqlException e) when (e.Number == AlreadyStarted)
        {
            return action == SessionAction.Created ? action : SessionAction.None;
        }

        if (action == SessionAction.Started)
        {
            XeLog.SessionStarted(_logger, _instance.Name, sessionName);
        }

        return action;
    }

    /// <summary>At shutdown: drops the session when DropSessionOnStop, else stops it (left defined for the next start).</summary>
    public async Task StopAsync(SqlConnection connection, string sessionName, CancellationToken cancellationToken)
    {
        var state = await SessionStateAsync(connection, sessionName, cancellationToken).ConfigureAwait(false);
        var quoted = XeSessionName.Quote(sessionName);
        if (state.Defined == 1 && _instance.DropSessionOnStop)
        {
            // DROP ends a running session too.
            await connection.ExecuteAsync(XeSql.DropSession(quoted, _instance.Azure), cancellationToken, commandTimeout: CommandTimeoutSeconds).ConfigureAwait(false);
            XeLog.SessionDropped(_logger, _instance.Name, sessionName);
        }
        else if (state.Running == 1)
        {
            await connection.ExecuteAsync(XeSql.StopSession(quoted, _instance.Azure), cancellationToken, commandTimeout: CommandTimeoutSeconds).ConfigureAwait(false);
            XeLog.SessionStopped(_logger, _instance.Name, sessionName);
        }
    }

    /// <summary>Whether <paramref name="sessionName"/> is running now (another tool's measurement must know the monitor's is).</summary>
    public async Task<bool> IsRunningAsync(SqlConnection connection, string sessionName, CancellationToken cancellationToken) =>
        (await SessionStateAsync(connection, sessionName, cancellationToken).ConfigureAwait(false)).Running == 1;

    private async Task<(int Defined, int Running)> SessionStateAsync(SqlConnection connection, string sessionName, CancellationToken cancellationToken)
    {
        var state = _instance.Azure
            ? await connection.QuerySingleAsync<XeCatalogRows.SessionState>(XeSql.DatabaseSessionState, new { name = sessionName, cancellationToken }, commandTimeout: CommandTimeoutSeconds).ConfigureAwait(false)
            : await connection.QuerySingleAsync<XeCatalogRows.SessionState>(XeSql.ServerSessionState, new { name = sessionName, cancellationToken }, commandTimeout: CommandTimeoutSeconds).ConfigureAwait(false);
        return (state.Defined, state.Running);
    }

    /// <summary>The databases named in <paramref name="names"/> (any number, ignoring case, as the pollers compare), read whole and matched here.</summary>
    private async Task<List<(int DatabaseId, string Name)>> ByName(SqlConnection connection, IEnumerable<string> names, CancellationToken cancellationToken)
    {
        var wanted = names.ToHashSet(StringComparer.OrdinalIgnoreCase);
        return wanted.Count == 0 ? [] : (await connection.QueryAsync<XeCatalogRows.Database>(XeSql.AllDatabases, cancellationToken, commandTimeout: CommandTimeoutSeconds).ConfigureAwait(false))
            .Where(d => wanted.Contains(d.Name)).Select(d => (d.DatabaseId, d.Name)).ToList();
    }
}
