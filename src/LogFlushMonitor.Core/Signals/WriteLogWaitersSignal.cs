using System.Data.Common;
using System.Text.Json.Serialization;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Core.Samples;
using static LogFlushMonitor.Core.Metrics.MetricAttributes;

namespace LogFlushMonitor.Core.Signals;

/// <summary>
/// Sessions of one database waiting on WRITELOG at the moment of a poll (<c>sys.dm_os_waiting_tasks</c> joined to
/// <c>sys.dm_exec_requests</c>): in-flight waits, which a stalled log device makes grow while every cumulative figure
/// stays flat. A poll delivers one per watched database (0 sessions when none waits).
/// </summary>
/// <param name="DatabaseId">database_id of the requests.</param>
/// <param name="DatabaseName">The database name.</param>
/// <param name="Sessions">Sessions with a task waiting on WRITELOG now.</param>
/// <param name="LongestWaitMs">The longest of their current waits (wait_duration_ms), 0 when none waits.</param>
public readonly record struct WriteLogWaitersRow(
    [property: JsonPropertyName("db_id"), JsonRequired] int DatabaseId,
    [property: JsonPropertyName("db"), JsonRequired] string DatabaseName,
    [property: JsonPropertyName("sessions"), JsonRequired] int Sessions,
    [property: JsonPropertyName("longest_wait_ms"), JsonRequired] long LongestWaitMs);

/// <summary>
/// Sessions waiting on WRITELOG now, per watched database (0 where none waits: "measured, nobody waits" must read
/// differently from "not measured", and a stall's end must show). The databases come from the catalog read of the same
/// poll; on Azure SQL Database the statement answers for its one database.
/// </summary>
public sealed class WriteLogWaitersSignal : Signal<WriteLogWaitersRow>
{
    /// <summary>
    /// Sessions waiting on WRITELOG now, per database: <c>sys.dm_os_waiting_tasks</c> (one row per waiting task:
    /// <c>session_id</c>, <c>wait_type</c>, <c>wait_duration_ms</c>) joined to <c>sys.dm_exec_requests</c> on
    /// <c>session_id</c> for the request's <c>database_id</c>. A session counts once however many of its rows match (a
    /// MARS session has one request per batch); the longest wait is the largest <c>wait_duration_ms</c>. Waits in flight,
    /// not completed ones: a log device that completes nothing makes these grow while every cumulative figure stays flat.
    /// Needs VIEW SERVER STATE (2022+: VIEW SERVER PERFORMANCE STATE); without it the waiting-tasks view refuses, where
    /// sys.dm_exec_requests alone would quietly show only this session (Microsoft docs of both views; docs/sqlserver.md).
    /// </summary>
    public static readonly SignalStatement ServerStatement = new("writelog_waiters", """
        SELECT CAST(r.database_id AS int) AS DatabaseId, DB_NAME(r.database_id) AS DatabaseName,
               COUNT(DISTINCT wt.session_id) AS Sessions, MAX(wt.wait_duration_ms) AS LongestWaitMs
        FROM sys.dm_os_waiting_tasks AS wt
        JOIN sys.dm_exec_requests AS r ON r.session_id = wt.session_id
        WHERE wt.wait_type = N'WRITELOG'
        GROUP BY r.database_id
        """, "sys.dm_os_waiting_tasks");

    /// <summary>
    /// Azure SQL Database: this database's sessions waiting on WRITELOG now, always one row. sys.dm_exec_requests shows
    /// only the caller's own request there (VIEW SERVER STATE cannot be granted), so the waiting tasks are joined to
    /// sys.dm_exec_sessions, which VIEW DATABASE STATE opens to every connection of the current database (Microsoft docs);
    /// the database_id filter keeps out other databases' sessions where a server role shows them.
    /// </summary>
    public static readonly SignalStatement AzureStatement = new("writelog_waiters", """
        SELECT CAST(DB_ID() AS int) AS DatabaseId, DB_NAME() AS DatabaseName,
               COUNT(DISTINCT wt.session_id) AS Sessions, ISNULL(MAX(wt.wait_duration_ms), 0) AS LongestWaitMs
        FROM sys.dm_os_waiting_tasks AS wt
        JOIN sys.dm_exec_sessions AS s ON s.session_id = wt.session_id
        WHERE wt.wait_type = N'WRITELOG' AND s.database_id = DB_ID()
        """, "sys.dm_os_waiting_tasks");

    private static readonly string[] InstDb = [Instance, Database];

    internal static readonly MetricDefinition Waiting = new()
    {
        Name = "sqlserver.database.writelog.waiting", Unit = "{session}", Kind = MetricKind.Gauge, IsInteger = true, Attributes = InstDb, Section = MetricSection.InFlight,
        Description = "Sessions waiting on WRITELOG now (sys.dm_os_waiting_tasks joined to sys.dm_exec_requests), per database, as of the last poll.",
        Meaning = "sessions waiting on WRITELOG now: `sys.dm_os_waiting_tasks` joined to `sys.dm_exec_requests` on `session_id` (the database is the request's), polled every `PollInterval` in every collection mode; 0 for a watched database where nobody waits",
        PromQL = "`sqlserver_database_writelog_waiting > 0`",
    };

    internal static readonly MetricDefinition LongestWait = new()
    {
        Name = "sqlserver.database.writelog.longest_wait", Unit = "s", Kind = MetricKind.Gauge, IsInteger = false, Attributes = InstDb, Section = MetricSection.InFlight,
        Description = "The longest current WRITELOG wait (wait_duration_ms) of those sessions, as of the last poll (0 when none waits).",
        Meaning = "the longest current wait of those sessions (`wait_duration_ms`) as of the last poll; 0 when nobody waits",
        PromQL = "`sqlserver_database_writelog_longest_wait_seconds >= 15`",
    };

    internal WriteLogWaitersSignal()
        : base("writelog_waiters")
    {
        Recording = new SignalRecording<WriteLogWaitersRow>(this, "writelog_waiting", "writelog_waiting", WriteLogWaitersJson.Default.WriteLogWaitersRow,
            r => r.DatabaseName is null ? "invalid field 'db': expected a string"
                : !DatabaseIds.IsValid(r.DatabaseId) ? $"invalid field 'db_id': {r.DatabaseId} is not a database id (0 to {DatabaseIds.Max})"
                : r.Sessions < 0 ? "invalid field 'sessions': expected a non-negative 32-bit integer"
                : r.LongestWaitMs < 0 ? "invalid field 'longest_wait_ms': expected a non-negative integer"
                : null);
    }

    /// <inheritdoc />
    public override IReadOnlyList<MetricDefinition> Families { get; } = [Waiting, LongestWait];

    /// <inheritdoc />
    public override SignalRecording Recording { get; }

    /// <inheritdoc />
    public override IReadOnlyList<SignalStatement> Statements(ServerProfile server) => [server.AzureSqlDatabase ? AzureStatement : ServerStatement];

    /// <inheritdoc />
    public override string Describe(ServerProfile server) => server.AzureSqlDatabase
        ? "sys.dm_os_waiting_tasks and sys.dm_exec_sessions (sessions waiting on WRITELOG)"
        : "sys.dm_os_waiting_tasks and sys.dm_exec_requests (sessions waiting on WRITELOG)";

    /// <inheritdoc />
    public override SignalPoller NewPoller(PollContext context, ServerProfile server) => new Poller(this, context, server);

    /// <inheritdoc />
    public override SignalView NewView() => new View(Name);

    internal override SignalState NewState(InstanceState instance) => new State(instance);

    /// <summary>Each database's sessions waiting on WRITELOG at the polls: in how many polls any waited, the most at once, the longest wait.</summary>
    private sealed class View(string signal) : SignalView<WriteLogWaitersRow>
    {
        private readonly Dictionary<(string Instance, int DatabaseId), (string Database, long Polls, long PollsWaiting, long MostSessions, long LongestMs)> _databases = [];

        protected override void Observe(string instance, DateTime timestampUtc, in WriteLogWaitersRow row)
        {
            var key = (instance, row.DatabaseId);
            var d = _databases.GetValueOrDefault(key);
            _databases[key] = (row.DatabaseName, d.Polls + 1, d.PollsWaiting + (row.Sessions > 0 ? 1 : 0), Math.Max(d.MostSessions, row.Sessions), Math.Max(d.LongestMs, row.LongestWaitMs));
        }

        public override SignalTable? Table() => _databases.Count == 0 ? null : new SignalTable(
            signal, "Sessions waiting on WRITELOG at the polls (sys.dm_os_waiting_tasks)",
            [new("instance"), new("database"), new("polls"), new("polls with a waiter"), new("most sessions waiting"), new("longest wait", "ms")],
            [.. _databases.OrderBy(d => d.Key.Instance, StringComparer.Ordinal).ThenByDescending(d => d.Value.LongestMs).ThenBy(d => d.Value.Database, StringComparer.Ordinal).Select(d => (IReadOnlyList<object?>)[
                d.Key.Instance, d.Value.Database, d.Value.Polls, d.Value.PollsWaiting, d.Value.MostSessions, d.Value.LongestMs])],
            ["What each poll saw at that instant: a wait that began and ended between two polls is not here (the events and the wait statistics count those). A wait as long as the poll interval is a flush that did not complete."]);
    }

    private sealed class Poller(WriteLogWaitersSignal signal, PollContext context, ServerProfile server) : SignalPoller(context)
    {
        public override async Task PollAsync(DbConnection connection, CancellationToken cancellationToken)
        {
            var rows = await SqlRows.ReadAsync(connection, Context, server.AzureSqlDatabase ? AzureStatement : ServerStatement, c => (
                Id: c.Int32("DatabaseId"), Name: c.StringOrNull("DatabaseName"), Sessions: c.Int32("Sessions"), Longest: c.Int64("LongestWaitMs")), cancellationToken).ConfigureAwait(false);
            var filter = Context.Filter;
            var waiting = new Dictionary<int, (int Id, string Name, int Sessions, long Longest)>();
            foreach (var r in rows)
            {
                // DB_NAME is NULL for a database dropped since the request started: nothing to attribute it to.
                if (r.Name is not null && filter.Watches(r.Name))
                {
                    waiting[r.Id] = (r.Id, r.Name, r.Sessions, r.Longest);
                }
            }

            var batch = new List<WriteLogWaitersRow>();
            foreach (var db in server.AzureSqlDatabase ? [] : Context.Databases ?? [])
            {
                // A database snapshot has no log of its own: nobody waits on it.
                if (filter.Watches(db.Name) && !db.IsSnapshot)
                {
                    var w = waiting.Remove(db.Id, out var row) ? row : default;
                    batch.Add(new WriteLogWaitersRow(db.Id, db.Name, w.Sessions, w.Longest));
                }
            }

            // A database the catalog read did not list (created since; Azure, where there is no catalog read).
            foreach (var r in waiting.Values)
            {
                batch.Add(new WriteLogWaitersRow(r.Id, r.Name, r.Sessions, r.Longest));
            }

            Context.Deliver(signal.Batch(Context.Instance, Context.UtcNow, [.. batch], endsPoll: true));
        }
    }

    /// <summary>Each database's waiters as the last poll saw them (point values); a database the poll no longer lists is retired.</summary>
    internal sealed class State(InstanceState instance) : PolledState<WriteLogWaitersRow>
    {
        private readonly Dictionary<int, WriteLogWaitersSeries> _series = [];

        /// <summary>Every database the last poll listed.</summary>
        public IEnumerable<WriteLogWaitersSeries> Series => _series.Values;

        /// <summary>The waiters of <paramref name="databaseId"/>, if the last poll listed it.</summary>
        public WriteLogWaitersSeries? Find(int databaseId) => _series.GetValueOrDefault(databaseId);

        protected override void ApplyRow(SignalBatch<WriteLogWaitersRow> batch, in WriteLogWaitersRow row, SignalOutcome outcome)
        {
            instance.LearnName(row.DatabaseId, row.DatabaseName);
            if (!_series.TryGetValue(row.DatabaseId, out var s) || s.DatabaseName != row.DatabaseName)
            {
                s = new WriteLogWaitersSeries(instance.Name, row.DatabaseId, row.DatabaseName);
                _series[row.DatabaseId] = s;
            }

            s.Stamp = Stamp;
            s.Sessions = Math.Max(0, row.Sessions);
            s.LongestWaitMs = Math.Max(0, row.LongestWaitMs);
        }

        protected override void EndPoll(int keep, SignalBatch<WriteLogWaitersRow> batch, SignalOutcome outcome) => RemoveStale(_series, keep);

        public override void Read(MeasurementBuffers into)
        {
            foreach (var s in _series.Values)
            {
                into.Add(Waiting, s.Sessions, s.Tags);
                into.Add(LongestWait, s.LongestWaitMs / 1000.0, s.Tags);
            }
        }
    }
}

/// <summary>The writelog_waiting line's contract.</summary>
[JsonSerializable(typeof(WriteLogWaitersRow))]
internal sealed partial class WriteLogWaitersJson : JsonSerializerContext;
