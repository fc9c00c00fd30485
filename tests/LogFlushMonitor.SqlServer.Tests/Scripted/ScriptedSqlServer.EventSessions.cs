using System.Text.RegularExpressions;
using System.Threading.Channels;
using LogFlushMonitor.TdsTestServer;

namespace LogFlushMonitor.SqlServer.Tests.Scripted;

/// <summary>
/// The Extended Events statements of the event source: the XE catalog, sys.databases by name, event sessions that
/// CREATE/ALTER/DROP change (a created session gets a row for the drop counters too), the live stream and histogram
/// target XML. Runs after the fault rule, so cuts, hangs and denied permissions apply to these statements as well.
/// </summary>
public sealed partial class ScriptedSqlServer
{
    private static readonly TdsColumn[] EventStreamColumns = [TdsColumn.Int("type"), TdsColumn.VarBinaryMax("data")];
    private readonly Dictionary<string, (bool Defined, bool Running)> _eventSessions = new(StringComparer.Ordinal);

    /// <summary>WRITELOG's key in the wait_types map of this server.</summary>
    public long WriteLogMapKey { get; set; } = 190;

    /// <summary>HADR_SYNC_COMMIT's key in the wait_types map of this server (a made-up number: the monitor looks it up).</summary>
    public long HadrSyncCommitMapKey { get; set; } = 838;

    /// <summary>
    /// The map keys of LOGBUFFER and the log-rate governor's forms on this server (made-up numbers: the monitor looks them
    /// up); none by default, as on a server whose map lacks them.
    /// </summary>
    public List<long> LogWaitMapKeys { get; } = [];

    /// <summary>Rows of the live stream; every stream request reads this channel (left open, the stream blocks).</summary>
    public Channel<object?[]> EventStream { get; } = Channel.CreateUnbounded<object?[]>();

    /// <summary>
    /// Rows (type, data) every live stream of check's temporary sessions (<c>*_check</c>) sends first, each stream all of
    /// them (each is a new session on a real server); then the stream stays open and silent. Empty by default.
    /// </summary>
    public List<(int Type, byte[]? Data)> CheckStreamRows { get; } = [];

    /// <summary>Histogram target XML by session name; null = no target row.</summary>
    public Func<string, string?> HistogramTargetXml { get; set; } = _ => null;

    /// <summary>An event session's state.</summary>
    public (bool Defined, bool Running) EventSession(string name)
    {
        lock (_gate)
        {
            return _eventSessions.GetValueOrDefault(name);
        }
    }

    /// <summary>Sets an event session's state, as a DBA would.</summary>
    public void SetEventSession(string name, bool defined, bool running)
    {
        lock (_gate)
        {
            _eventSessions[name] = (defined, running);
        }
    }

    partial void AddEventSessionRules() => Server.Handle(EventSessionRule);

    private TdsResponse? EventSessionRule(TdsRequest r)
    {
        var t = r.Text;
        if (t.Contains("fn_MSxe_read_event_stream", StringComparison.Ordinal))
        {
            // A real server gives every session its own events: check's temporary session (named *_check) must not take
            // the rows a test queued for run's session, so it reads a stream of its own (empty unless a test fills it).
            var own = r.Parameters.TryGetValue("@name", out var session) && session is string sessionName && sessionName.EndsWith("_check", StringComparison.Ordinal);
            if (own)
            {
                var rows = Channel.CreateUnbounded<object?[]>();
                lock (_gate)
                {
                    foreach (var (type, data) in CheckStreamRows)
                    {
                        rows.Writer.TryWrite([type, data]);
                    }
                }

                return Begin(r).StreamingResultSet(EventStreamColumns, rows.Reader);
            }

            return Begin(r).StreamingResultSet(EventStreamColumns, EventStream.Reader);
        }

        if (t.Contains("sys.dm_xe_objects", StringComparison.Ordinal))
        {
            string[][] objects =
            [
                ["sqlserver", "log_flush_start", "event"], ["sqlserver", "log_flush_complete", "event"], ["sqlos", "wait_completed", "event"],
                ["sqlserver", "database_id", "action"], ["sqlserver", "client_app_name", "action"], ["sqlserver", "query_hash", "action"], ["package0", "event_sequence", "action"], ["package0", "histogram", "target"],
            ];
            return Begin(r).ResultSet([TdsColumn.NVarChar("PackageName"), TdsColumn.NVarChar("ObjectName"), TdsColumn.NVarChar("ObjectType")],
                [.. objects.Select(o => o.Cast<object?>().ToArray())]);
        }

        if (t.Contains("sys.dm_xe_object_columns", StringComparison.Ordinal))
        {
            string[][] columns =
            [
                // Descriptions: flush duration names no unit (read as milliseconds, then settled by the pairs), the wait's
                // names milliseconds, the unit public tools read both in (docs/sqlserver.md, "Duration units").
                ["sqlserver", "log_flush_start", "database_id", "uint32", "Database ID"], ["sqlserver", "log_flush_start", "write_size", "uint32", "Bytes"],
                ["sqlserver", "log_flush_start", "log_block_id", "uint64", "Log block ID"],
                ["sqlserver", "log_flush_complete", "database_id", "uint32", "Database ID"], ["sqlserver", "log_flush_complete", "log_block_id", "uint64", "Log block ID"],
                ["sqlserver", "log_flush_complete", "duration", "uint64", "Time the flush took"],
                ["sqlos", "wait_completed", "wait_type", "wait_types", "Wait type"], ["sqlos", "wait_completed", "duration", "uint64", "Duration in milliseconds"],
            ];
            return Begin(r).ResultSet([TdsColumn.NVarChar("PackageName"), TdsColumn.NVarChar("ObjectName"), TdsColumn.NVarChar("ColumnName"), TdsColumn.NVarChar("TypeName"), TdsColumn.NVarChar("Description")],
                [.. columns.Select(c => c.Cast<object?>().ToArray())]);
        }

        if (t.Contains("sys.dm_xe_map_values", StringComparison.Ordinal))
        {
            if (t.Contains("N'LOGBUFFER'", StringComparison.Ordinal))
            {
                return Begin(r).ResultSet([TdsColumn.BigInt("MapKey")], [.. LogWaitMapKeys.Select(k => new object?[] { k })]);
            }

            return Begin(r).ResultSet([TdsColumn.BigInt("MapKey")], [t.Contains("N'HADR_SYNC_COMMIT'", StringComparison.Ordinal) ? HadrSyncCommitMapKey : WriteLogMapKey]);
        }

        if (t.Contains("FROM sys.databases", StringComparison.Ordinal) && t.Contains("SELECT database_id AS DatabaseId, name AS Name", StringComparison.Ordinal)
            && !t.Contains("dm_io_virtual_file_stats", StringComparison.Ordinal)) // check --capture's hidden databases: their own rule
        {
            lock (_gate)
            {
                var rows = _databases.Where(d => !t.Contains("database_id = 2 OR database_id > 4", StringComparison.Ordinal) || d.Id == 2 || d.Id > 4);
                return Begin(r).ResultSet([TdsColumn.Int("DatabaseId"), TdsColumn.NVarChar("Name")], [.. rows.Select(d => new object?[] { d.Id, d.Name })]);
            }
        }

        if (t.Contains("event_sessions WHERE name = @name", StringComparison.Ordinal))
        {
            var s = EventSession((string)r.Parameter("name")!);
            return Begin(r).ResultSet([TdsColumn.Int("Defined"), TdsColumn.Int("Running")], [s.Defined ? 1 : 0, s.Running ? 1 : 0]);
        }

        // Azure SQL Database reads its database-scoped sessions' targets from sys.dm_xe_database_session_targets.
        if (t.Contains("dm_xe_session_targets", StringComparison.Ordinal)
            || (Shape == ServerShape.AzureSqlDatabase && t.Contains("dm_xe_database_session_targets", StringComparison.Ordinal)))
        {
            var xml = HistogramTargetXml((string)r.Parameter("name")!);
            return Begin(r).ResultSet([TdsColumn.NVarCharMax("TargetData")], xml is null ? [] : [[xml]]);
        }

        var ddl = EventSessionDdl().Match(t);
        if (!ddl.Success)
        {
            return null;
        }

        var name = ddl.Groups["name"].Value.Replace("]]", "]", StringComparison.Ordinal);
        lock (_gate)
        {
            var s = _eventSessions.GetValueOrDefault(name);
            switch (ddl.Groups["verb"].Value)
            {
                case "CREATE" when s.Defined:
                    return TdsResponse.Failure(25631, $"The event session, \"{name}\", already exists.  Choose a unique name for the event session.");
                case "CREATE":
                    _eventSessions[name] = (true, false);
                    break;
                case "DROP":
                    _eventSessions.Remove(name);
                    _xeSessions.Remove(name);
                    break;
                default:
                    var start = t.Contains("STATE = START", StringComparison.Ordinal);
                    _eventSessions[name] = (s.Defined, start);
                    if (start)
                    {
                        _xeSessions[name] = new XeSessionRow(StartTimeUtcLocked(), 0, 0); // a started session counts drops from zero
                    }

                    break;
            }
        }

        return Begin(r);
    }

    [GeneratedRegex(@"^(?<verb>CREATE|ALTER|DROP) EVENT SESSION \[(?<name>(?:[^\]]|\]\])+)\]")]
    private static partial Regex EventSessionDdl();
}
