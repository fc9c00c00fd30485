using System.Globalization;
using System.Text;

namespace LogFlushMonitor.SqlServer.Sql;

/// <summary>
/// Every Extended Events statement of the project, one place per statement: capability checks against the XE
/// catalog, session state, session DDL, the live stream and the histogram target. Values from configuration
/// travel as parameters; the only things spliced into DDL are a validated, bracket-quoted session name and
/// integers (database ids and map keys read from the server, options), formatted invariantly.
/// </summary>
internal static class XeSql
{
    /// <summary>The XE objects we may use (events, actions, the histogram target) with their package.</summary>
    public const string Objects = """
        SELECT p.name AS PackageName, o.name AS ObjectName, o.object_type AS ObjectType
        FROM sys.dm_xe_objects AS o
        JOIN sys.dm_xe_packages AS p ON p.guid = o.package_guid
        WHERE o.object_type IN (N'event', N'action', N'target')
          AND p.name IN (N'sqlserver', N'sqlos', N'package0')
          AND o.name IN (N'log_flush_start', N'log_flush_complete', N'wait_completed', N'wait_info',
                         N'database_id', N'event_sequence', N'client_app_name', N'query_hash', N'histogram')
        """;

    /// <summary>The data fields of our events, with their descriptions (which name duration units on some versions).</summary>
    public const string EventColumns = """
        SELECT p.name AS PackageName, c.object_name AS ObjectName, c.name AS ColumnName,
               c.type_name AS TypeName, c.description AS Description
        FROM sys.dm_xe_object_columns AS c
        JOIN sys.dm_xe_packages AS p ON p.guid = c.object_package_guid
        WHERE c.column_type = N'data'
          AND c.object_name IN (N'log_flush_start', N'log_flush_complete', N'wait_completed', N'wait_info')
        """;

    /// <summary>The wait_types map key(s) of WRITELOG: the number differs between versions, so it is never assumed.</summary>
    public const string WriteLogKeys = """
        SELECT CAST(v.map_key AS bigint) AS MapKey
        FROM sys.dm_xe_map_values AS v
        WHERE v.name = N'wait_types' AND v.map_value = N'WRITELOG'
        """;

    /// <summary>
    /// The wait_types map key(s) of HADR_SYNC_COMMIT (a commit waiting for a synchronous availability-group secondary to
    /// harden its log), looked up like WRITELOG's: never assumed. No row where the wait type is unknown.
    /// </summary>
    public const string HadrSyncCommitKeys = """
        SELECT CAST(v.map_key AS bigint) AS MapKey
        FROM sys.dm_xe_map_values AS v
        WHERE v.name = N'wait_types' AND v.map_value = N'HADR_SYNC_COMMIT'
        """;

    /// <summary>
    /// The wait_types map keys of the log's other waits, collected beside WRITELOG so the commit budget has them per
    /// database (docs/sqlserver.md, "Where commit time goes"): LOGBUFFER, the log-rate governor's forms (LOG_RATE_GOVERNOR,
    /// POOL_, INSTANCE_; the availability feedback control's HADR_THROTTLE_LOG_RATE_*) and Hyperscale's RBIO_RG_* throttles.
    /// Looked up like WRITELOG's, never assumed; a server whose map lacks them answers fewer rows or none.
    /// </summary>
    public const string LogWaitKeys = """
        SELECT CAST(v.map_key AS bigint) AS MapKey
        FROM sys.dm_xe_map_values AS v
        WHERE v.name = N'wait_types'
          AND (v.map_value IN (N'LOGBUFFER', N'LOG_RATE_GOVERNOR', N'POOL_LOG_RATE_GOVERNOR', N'INSTANCE_LOG_RATE_GOVERNOR')
               OR v.map_value LIKE N'HADR[_]THROTTLE[_]LOG[_]RATE%' OR v.map_value LIKE N'RBIO[_]RG[_]%')
        """;

    /// <summary>
    /// Every database, for resolving IncludeDatabases / ExcludeDatabases to ids in the monitor: no configured name
    /// enters DDL, and no list becomes parameters (past 2,100 a request fails with error 8003).
    /// </summary>
    public const string AllDatabases = """
        SELECT database_id AS DatabaseId, name AS Name
        FROM sys.databases
        """;

    /// <summary>User databases and tempdb: what "all databases" means for this monitor.</summary>
    public const string UserDatabases = """
        SELECT database_id AS DatabaseId, name AS Name
        FROM sys.databases
        WHERE database_id = 2 OR database_id > 4
        """;

    /// <summary>Whether a server session (parameter <c>@name</c>) is defined and whether it runs.</summary>
    public const string ServerSessionState = """
        SELECT CAST(CASE WHEN EXISTS (SELECT 1 FROM sys.server_event_sessions WHERE name = @name) THEN 1 ELSE 0 END AS int) AS Defined,
               CAST(CASE WHEN EXISTS (SELECT 1 FROM sys.dm_xe_sessions WHERE name = @name) THEN 1 ELSE 0 END AS int) AS Running
        """;

    /// <summary>Whether a database-scoped session (Azure SQL Database) is defined and whether it runs.</summary>
    public const string DatabaseSessionState = """
        SELECT CAST(CASE WHEN EXISTS (SELECT 1 FROM sys.database_event_sessions WHERE name = @name) THEN 1 ELSE 0 END AS int) AS Defined,
               CAST(CASE WHEN EXISTS (SELECT 1 FROM sys.dm_xe_database_sessions WHERE name = @name) THEN 1 ELSE 0 END AS int) AS Running
        """;

    /// <summary>The live stream of a session (parameter <c>@name</c>): one row per dispatched buffer; blocks between buffers.</summary>
    public const string ReadEventStream = "SELECT type, data FROM sys.fn_MSxe_read_event_stream(@name, 0)";

    /// <summary>The histogram target's XML of a running server session (parameter <c>@name</c>).</summary>
    public const string ServerHistogramData = """
        SELECT CAST(t.target_data AS nvarchar(max)) AS TargetData
        FROM sys.dm_xe_sessions AS s
        JOIN sys.dm_xe_session_targets AS t ON t.event_session_address = s.address
        WHERE s.name = @name AND t.target_name = N'histogram'
        """;

    /// <summary>The histogram target's XML of a running database-scoped session (Azure SQL Database).</summary>
    public const string DatabaseHistogramData = """
        SELECT CAST(t.target_data AS nvarchar(max)) AS TargetData
        FROM sys.dm_xe_database_sessions AS s
        JOIN sys.dm_xe_database_session_targets AS t ON t.event_session_address = s.address
        WHERE s.name = @name AND t.target_name = N'histogram'
        """;

    /// <summary><c>ALTER EVENT SESSION [name] ON SERVER|DATABASE STATE = START</c>.</summary>
    public static string StartSession(string quotedName, bool azure) => $"ALTER EVENT SESSION {quotedName} ON {Scope(azure)} STATE = START";

    /// <summary><c>ALTER EVENT SESSION [name] ON SERVER|DATABASE STATE = STOP</c>.</summary>
    public static string StopSession(string quotedName, bool azure) => $"ALTER EVENT SESSION {quotedName} ON {Scope(azure)} STATE = STOP";

    /// <summary><c>DROP EVENT SESSION [name] ON SERVER|DATABASE</c>.</summary>
    public static string DropSession(string quotedName, bool azure) => $"DROP EVENT SESSION {quotedName} ON {Scope(azure)}";

    /// <summary>
    /// <c>CREATE EVENT SESSION</c> with the given events, an optional target and the session options. The retention
    /// mode is always ALLOW_SINGLE_EVENT_LOSS: NO_EVENT_LOSS can stall user transactions (docs/collection-modes.md; Microsoft, "CREATE EVENT SESSION").
    /// </summary>
    public static string CreateSession(string quotedName, bool azure, IEnumerable<XeEventClause> events, string? target, int maxMemoryKb, int maxDispatchLatencySeconds)
    {
        var sb = new StringBuilder();
        sb.Append("CREATE EVENT SESSION ").Append(quotedName).Append(" ON ").Append(Scope(azure));
        var first = true;
        foreach (var e in events)
        {
            sb.Append(first ? "\n" : ",\n").Append("ADD EVENT ").Append(e.Event);
            first = false;
            var parts = new List<string>();
            if (e.Actions.Count > 0)
            {
                parts.Add("ACTION (" + string.Join(", ", e.Actions) + ")");
            }

            if (!string.IsNullOrEmpty(e.Predicate))
            {
                parts.Add("WHERE " + e.Predicate);
            }

            if (parts.Count > 0)
            {
                sb.Append(" (").Append(string.Join(" ", parts)).Append(')');
            }
        }

        if (target is not null)
        {
            sb.Append("\nADD TARGET ").Append(target);
        }

        sb.Append(CultureInfo.InvariantCulture,
            $"\nWITH (MAX_MEMORY = {maxMemoryKb} KB, EVENT_RETENTION_MODE = ALLOW_SINGLE_EVENT_LOSS, MAX_DISPATCH_LATENCY = {maxDispatchLatencySeconds} SECONDS, STARTUP_STATE = OFF)");
        return sb.ToString();
    }

    /// <summary>A package0.histogram target bucketing log_flush_start on write_size (source_type 0 = event field).</summary>
    public static string HistogramTarget(int slots) => string.Create(CultureInfo.InvariantCulture,
        $"package0.histogram (SET filtering_event_name = N'sqlserver.log_flush_start', source = N'write_size', source_type = (0), slots = ({slots}))");

    private static string Scope(bool azure) => azure ? "DATABASE" : "SERVER";
}

/// <summary>One <c>ADD EVENT</c> clause: the full event name, its actions and an optional predicate (already formatted).</summary>
internal sealed record XeEventClause(string Event, IReadOnlyList<string> Actions, string? Predicate);
