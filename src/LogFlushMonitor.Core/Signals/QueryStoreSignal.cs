using System.Data.Common;
using System.Globalization;
using System.Text.Json.Serialization;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Text;
using static LogFlushMonitor.Core.Metrics.MetricAttributes;

namespace LogFlushMonitor.Core.Signals;

/// <summary>
/// One database's Query Store at one poll (<see cref="QueryHash"/> null), or one statement of it (its query hash). A
/// database's statement rows come before its own row in a batch: the database row's figures are its whole increase, so
/// what its statement rows do not name is <c>other</c>.
/// </summary>
/// <param name="DatabaseId">database_id.</param>
/// <param name="Database">The database name.</param>
/// <param name="State">
/// What the poll found (<see cref="QueryStoreStates"/>): <c>read_write</c> (read), <c>read_only</c>, <c>off</c>,
/// <c>error</c> (Query Store's own states), <c>unsupported</c> (no avg_log_bytes_used: before SQL Server 2017),
/// <c>no_access</c> (the login cannot enter the database), <c>no_permission</c> (no VIEW DATABASE STATE there),
/// <c>failed</c> (a statement failed; the log says why).
/// </param>
/// <param name="QueryHash">The statement's query hash (<c>0x</c> and 16 hex digits), or null for the database's own row.</param>
/// <param name="Text">The statement's first 200 characters (null: text off, restricted, encrypted, or not read).</param>
/// <param name="LogBytes">Log bytes written (avg_log_bytes_used × count_executions) since the previous poll of the database; 0 at the first.</param>
/// <param name="Executions">Executions (count_executions) since the previous poll of the database; 0 at the first.</param>
/// <param name="RecentLogBytes">Log bytes in the runtime-stats intervals read (the current one and those ended in the last two poll intervals): what the statements were ranked by.</param>
public readonly record struct QueryStoreRow(
    [property: JsonPropertyName("db_id"), JsonRequired] int DatabaseId,
    [property: JsonPropertyName("db"), JsonRequired] string Database,
    [property: JsonPropertyName("state"), JsonRequired] string State,
    [property: JsonPropertyName("query_hash"), JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)] string? QueryHash,
    [property: JsonPropertyName("text"), JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)] string? Text,
    [property: JsonPropertyName("log_bytes"), JsonRequired] long LogBytes,
    [property: JsonPropertyName("executions"), JsonRequired] long Executions,
    [property: JsonPropertyName("recent_log_bytes"), JsonRequired] long RecentLogBytes);

/// <summary>The states a database's Query Store is found in (<see cref="QueryStoreRow.State"/>), as exported in <c>sqlserver.query_store.state</c>.</summary>
public static class QueryStoreStates
{
    /// <summary>Query Store captures (READ_WRITE): its statements were read.</summary>
    public const string ReadWrite = "read_write";

    /// <summary>READ_ONLY: it keeps what it has and captures nothing new (full, or the database is read-only).</summary>
    public const string ReadOnly = "read_only";

    /// <summary>OFF.</summary>
    public const string Off = "off";

    /// <summary>ERROR: Query Store failed internally.</summary>
    public const string Error = "error";

    /// <summary>The server has no avg_log_bytes_used (SQL Server 2016 and earlier).</summary>
    public const string Unsupported = "unsupported";

    /// <summary>The login cannot enter the database (HAS_DBACCESS is 0).</summary>
    public const string NoAccess = "no_access";

    /// <summary>The login lacks VIEW DATABASE STATE (2022 and later: VIEW DATABASE PERFORMANCE STATE) in the database.</summary>
    public const string NoPermission = "no_permission";

    /// <summary>A statement in the database failed (dropped or taken offline meanwhile, ...): logged.</summary>
    public const string Failed = "failed";

    /// <summary>Every state, in the order tables list them.</summary>
    public static IReadOnlyList<string> All { get; } = [ReadWrite, ReadOnly, Off, Error, Unsupported, NoAccess, NoPermission, Failed];

    /// <summary>What a state means for the monitor and what to do, for <c>check</c> and the log.</summary>
    public static string Explain(string state) => state switch
    {
        ReadWrite => "Query Store is on: log bytes by statement are read",
        ReadOnly => "Query Store is READ_ONLY (full, or the database is read-only): it captures nothing new, so no statement's log bytes grow; check sys.database_query_store_options.readonly_reason, raise MAX_STORAGE_SIZE_MB or clean it up",
        Off => "Query Store is OFF: no log bytes by statement (ALTER DATABASE ... SET QUERY_STORE = ON turns it on; WRITELOG time by statement still comes from the events)",
        Error => "Query Store is in ERROR: run sp_query_store_consistency_check in the database (SQL Server 2017 and later) or clear it",
        Unsupported => "this server's sys.query_store_runtime_stats has no avg_log_bytes_used (SQL Server 2016 and earlier): no log bytes by statement",
        NoAccess => "the monitor's login cannot enter the database: GRANT CONNECT ANY DATABASE TO the login (SQL Server 2014 and later; it reads no data), or create a user for it there (docs/sqlserver.md, \"The statements that write the log\")",
        NoPermission => "the monitor's login cannot read Query Store there: it needs VIEW DATABASE STATE (SQL Server 2022 and later: VIEW DATABASE PERFORMANCE STATE), which VIEW SERVER STATE (VIEW SERVER PERFORMANCE STATE) grants in every database",
        Failed => "reading Query Store failed (the log says why); the next poll tries again",
        _ => state,
    };
}

/// <summary>
/// Log bytes by statement from Query Store (SQL Server 2017 and later, Azure SQL): per database, <c>avg_log_bytes_used ×
/// count_executions</c> of <c>sys.query_store_runtime_stats</c>, summed per query hash (<c>sys.query_store_plan</c> →
/// <c>sys.query_store_query</c>) over the runtime-stats intervals still changing, with the first 200 characters of one
/// text of the hash (<c>sys.query_store_query_text</c>). Query Store is per database and its statistics are per interval
/// of minutes, so a poll reads at most <see cref="QueryStoreSettings.Databases"/> databases, the busiest by log bytes
/// flushed since the previous poll, every <see cref="QueryStoreSettings.Interval"/>; the increase of each statement since
/// the previous poll is what the rows carry. The top 5 statements per database and <c>other</c> are exported, chosen
/// again like the applications (<see cref="TopSeries{TKey}"/>); a query hash is the only label. docs/sqlserver.md, "Query Store".
/// </summary>
public sealed class QueryStoreSignal : Signal<QueryStoreRow>
{
    /// <summary>Statements read per database and poll: the ones whose recent log bytes are the largest (the aggregation tracks as many).</summary>
    public const int StatementsPerDatabase = 64;

    /// <summary>Statement rows delivered per database even without an increase (the first poll's, check's): their text and recent log bytes.</summary>
    public const int TopWithoutIncrease = TopApplications;

    /// <summary>How long a database's statements stay exported after its last poll (the busiest set changes): then retired.</summary>
    public static readonly TimeSpan Retention = TimeSpan.FromHours(1);

    /// <summary>The attribute of <see cref="Databases"/>: a <see cref="QueryStoreStates"/> value.</summary>
    public const string StateAttribute = "sqlserver.query_store.state";

    private const string CandidatesView = "sys.databases (the Query Store poll's databases)";
    private const string OptionsView = "sys.database_query_store_options";
    private const string StatsView = "sys.query_store_runtime_stats";

    private static readonly string[] InstDbStatement = [Instance, Database, QueryHash];

    internal static readonly MetricDefinition LogWritten = new()
    {
        Name = "sqlserver.database.statement.log.written", Unit = "By", Kind = MetricKind.Counter, IsInteger = false, Attributes = InstDbStatement, Section = MetricSection.Counters,
        Description = "Log bytes written by statement from Query Store (avg_log_bytes_used × count_executions, SQL Server 2017+ and Azure, where Query Store is on): the top 5 query hashes per database, chosen again like the applications, and 'other'; the busiest databases only (Sources:SqlServer:QueryStoreDatabases), every QueryStoreInterval.",
        Meaning = "log bytes written by statement: `sys.query_store_runtime_stats.avg_log_bytes_used × count_executions`, summed per `sys.query_store_query.query_hash` over the runtime-stats intervals still changing (the current one and those ended in the last two poll intervals), each poll adding the increase since the previous one. Labelled `sqlserver_query_hash` (`0x` and 16 hex digits); at most the top 5 statements per database (by the last two 5-minute windows, as the applications) and `other` (the rest, and what the 64 statements read do not name). Read every `Sources:SqlServer:QueryStoreInterval` (default 5 minutes) from the `QueryStoreDatabases` (default 10) busiest databases by log bytes flushed; a database's series stay an hour after its last read. Text is never a label: `analyze`, `report`, `check` and the log's summary show it",
        PromQL = "log bytes/s by statement: `topk(5, sum by (sqlserver_database_name, sqlserver_query_hash) (rate(sqlserver_database_statement_log_written_bytes_total{sqlserver_query_hash!=\"other\"}[15m])))`",
    };

    internal static readonly MetricDefinition Executions = new()
    {
        Name = "sqlserver.database.statement.executions", Unit = "{execution}", Kind = MetricKind.Counter, IsInteger = true, Attributes = InstDbStatement, Section = MetricSection.Counters,
        Description = "Executions (count_executions) of the same statements from Query Store, top 5 and 'other' per database as sqlserver.database.statement.log.written.",
        Meaning = "executions counted by Query Store (`count_executions`) for the same statements; the log bytes' rate over this one's is log bytes per execution",
        PromQL = "log bytes per execution: `rate(sqlserver_database_statement_log_written_bytes_total[15m]) / rate(sqlserver_database_statement_executions_total[15m])`",
    };

    internal static readonly MetricDefinition Databases = new()
    {
        Name = "sqlserver.monitor.query_store.databases", Unit = "{database}", Kind = MetricKind.Gauge, IsInteger = true, Attributes = [Instance, StateAttribute], Section = MetricSection.Monitor,
        Description = "Databases the last Query Store poll looked at, by what it found (sqlserver.query_store.state: read_write, read_only, off, error, unsupported, no_access, no_permission, failed).",
        Meaning = "the databases the last Query Store poll looked at (the `QueryStoreDatabases` busiest), by `sqlserver_query_store_state`: `read_write` (read), `read_only`, `off`, `error` (Query Store's own states), `unsupported` (before SQL Server 2017: no `avg_log_bytes_used`), `no_access` (no CONNECT ANY DATABASE or user there), `no_permission` (no VIEW DATABASE STATE there), `failed` (a statement failed: logged). A state is exported once found, then at 0 while no database is in it",
        PromQL = "databases whose log bytes by statement are unknown: `sum by (sqlserver_instance_name) (sqlserver_monitor_query_store_databases{sqlserver_query_store_state!=\"read_write\"})`",
    };

    internal QueryStoreSignal()
        : base("query_store")
    {
        Recording = new SignalRecording<QueryStoreRow>(this, "query_store", "query_store", QueryStoreJson.Default.QueryStoreRow,
            r => r.Database is null ? "invalid field 'db': expected a string"
                : r.State is null ? "invalid field 'state': expected a string"
                : !DatabaseIds.IsValid(r.DatabaseId) ? $"invalid field 'db_id': {r.DatabaseId} is not a database id (0 to {DatabaseIds.Max})"
                : r.QueryHash is { } h && !QueryHashes.TryParse(h, out _) ? "invalid field 'query_hash': expected \"0x\" and 1 to 16 hex digits"
                : r.LogBytes < 0 || r.Executions < 0 || r.RecentLogBytes < 0 ? "invalid field 'log_bytes', 'executions' or 'recent_log_bytes': expected a non-negative 64-bit integer"
                : r.Text is { Length: > StatementText.MaxLength } ? $"invalid field 'text': more than {StatementText.MaxLength} characters"
                : null);
    }

    /// <inheritdoc />
    public override IReadOnlyList<MetricDefinition> Families { get; } = [LogWritten, Executions, Databases];

    /// <inheritdoc />
    public override SignalRecording Recording { get; }

    /// <summary>
    /// The databases a poll may read, with what the login may do there: user databases (Query Store cannot be on in master,
    /// model, msdb or tempdb) that are online. HAS_DBACCESS and HAS_PERMS_BY_NAME answer for any database without entering
    /// it; whether this server's runtime stats have avg_log_bytes_used (SQL Server 2017 and later) is read from the
    /// catalog, never assumed from the version. They are ranked by the Log Bytes Flushed/sec the counters' poll read
    /// (<see cref="PollContext.LogBytesFlushed"/>). <paramref name="permission"/> is the version's permission name (a
    /// literal of this class, never input).
    /// </summary>
    private static SignalStatement CandidatesStatement(string permission) => new("query_store_databases", $"""
        SELECT d.database_id AS DatabaseId, d.name AS Name,
               CAST(ISNULL(HAS_DBACCESS(d.name), 0) AS int) AS HasAccess,
               CAST(ISNULL(HAS_PERMS_BY_NAME(d.name, N'DATABASE', N'{permission}'), 0) AS int) AS CanView,
               CAST(CASE WHEN EXISTS (SELECT 1 FROM sys.all_columns AS c
                                      WHERE c.object_id = OBJECT_ID(N'sys.query_store_runtime_stats') AND c.name = N'avg_log_bytes_used')
                         THEN 1 ELSE 0 END AS int) AS HasLogBytes
        FROM sys.databases AS d
        WHERE d.database_id > 4 AND d.state = 0
        """, CandidatesView);

    /// <summary>SQL Server 2022 and later check the finer permission (VIEW DATABASE STATE grants it too); earlier versions the older one.</summary>
    public static readonly SignalStatement Candidates = CandidatesStatement("VIEW DATABASE PERFORMANCE STATE");

    /// <summary>The same before SQL Server 2022.</summary>
    public static readonly SignalStatement CandidatesBefore2022 = CandidatesStatement("VIEW DATABASE STATE");

    /// <summary>
    /// Azure SQL Database: the one database of the connection, and whether its runtime stats have avg_log_bytes_used. The
    /// login's VIEW DATABASE STATE is the rest of the monitor's grant (deploy/sql/setup-azure-sql-database.sql).
    /// </summary>
    public static readonly SignalStatement AzureCandidate = new("query_store_databases", """
        SELECT CAST(DB_ID() AS int) AS DatabaseId, DB_NAME() AS Name, 1 AS HasAccess, 1 AS CanView,
               CAST(CASE WHEN EXISTS (SELECT 1 FROM sys.all_columns AS c
                                      WHERE c.object_id = OBJECT_ID(N'sys.query_store_runtime_stats') AND c.name = N'avg_log_bytes_used')
                         THEN 1 ELSE 0 END AS int) AS HasLogBytes
        """, CandidatesView);

    /// <summary>
    /// One database's Query Store state (<c>sys.database_query_store_options</c>: one row; actual_state_desc OFF,
    /// READ_ONLY, READ_WRITE or ERROR). <paramref name="prefix"/> is the database's bracket-quoted name and a dot, or empty
    /// for the connection's database.
    /// </summary>
    public static SignalStatement Options(string prefix) => new("query_store_options", $"""
        SELECT actual_state_desc AS ActualState, desired_state_desc AS DesiredState, readonly_reason AS ReadonlyReason
        FROM {prefix}sys.database_query_store_options
        """, OptionsView);

    /// <summary>
    /// One database's log bytes by statement: <c>avg_log_bytes_used × count_executions</c> summed per query hash and
    /// runtime-stats interval over the intervals that end less than <c>@lookback</c> seconds ago (the current one among
    /// them), for the <c>@top</c> hashes with the most log bytes there, and each interval's total over every statement
    /// (the rows whose QueryHash is NULL). Several rows of one plan and interval (the in-memory and the flushed one) are
    /// summed, as Microsoft's page of the view says to. The hash is read as bigint (binary(8) read big-endian). With
    /// <paramref name="text"/>, the first 1,000 characters of the hash's first query text that is neither restricted nor part of an
    /// encrypted module (the monitor keeps 200 after the parameter declarations); without, no text leaves the server.
    /// </summary>
    public static SignalStatement Stats(string prefix, bool text) => new(text ? "query_store_statements" : "query_store_statements_no_text", $"""
        WITH by_hash AS (
            SELECT q.query_hash, rs.runtime_stats_interval_id AS interval_id,
                   SUM(ISNULL(rs.avg_log_bytes_used, 0) * rs.count_executions) AS log_bytes,
                   SUM(rs.count_executions) AS executions
            FROM {prefix}sys.query_store_runtime_stats AS rs
            JOIN {prefix}sys.query_store_runtime_stats_interval AS i ON i.runtime_stats_interval_id = rs.runtime_stats_interval_id
            JOIN {prefix}sys.query_store_plan AS p ON p.plan_id = rs.plan_id
            JOIN {prefix}sys.query_store_query AS q ON q.query_id = p.query_id
            WHERE i.end_time > DATEADD(SECOND, -@lookback, SYSDATETIMEOFFSET())
            GROUP BY q.query_hash, rs.runtime_stats_interval_id
        ), top_hashes AS (
            SELECT TOP (@top) query_hash FROM by_hash GROUP BY query_hash ORDER BY SUM(log_bytes) DESC, query_hash
        )
        SELECT CAST(b.query_hash AS bigint) AS QueryHash, b.interval_id AS IntervalId,
               CAST(ROUND(b.log_bytes, 0) AS bigint) AS LogBytes, b.executions AS Executions,
               {(text ? $"""
               (SELECT TOP (1) LEFT(qt.query_sql_text, 1000)
                FROM {prefix}sys.query_store_query AS q2
                JOIN {prefix}sys.query_store_query_text AS qt ON qt.query_text_id = q2.query_text_id
                WHERE q2.query_hash = b.query_hash AND qt.has_restricted_text = 0 AND qt.is_part_of_encrypted_module = 0
                ORDER BY q2.query_id) AS QueryText
        """ : "CAST(NULL AS nvarchar(1)) AS QueryText")}
        FROM by_hash AS b
        WHERE b.query_hash IN (SELECT query_hash FROM top_hashes)
        UNION ALL
        SELECT NULL, interval_id, CAST(ROUND(SUM(log_bytes), 0) AS bigint), SUM(executions), NULL
        FROM by_hash
        GROUP BY interval_id
        """, StatsView);

    /// <inheritdoc />
    /// <remarks>
    /// The connection's database, without text: what <c>check --capture</c> sends, so a capture never holds a statement's
    /// text (literals of unparameterized statements); the poll's text variant is the same statement with one more column.
    /// </remarks>
    public override IReadOnlyList<SignalStatement> Statements(ServerProfile server) =>
    [
        server.AzureSqlDatabase ? AzureCandidate : server.MajorVersion is > 0 and < 16 ? CandidatesBefore2022 : Candidates,
        Options(""),
        Stats("", text: false).With("top", StatementsPerDatabase).With("lookback", 600),
    ];

    /// <inheritdoc />
    public override string Describe(ServerProfile server) =>
        "Query Store (sys.database_query_store_options, sys.query_store_runtime_stats, _plan, _query, _query_text: log bytes by statement)";

    /// <inheritdoc />
    public override SignalPoller NewPoller(PollContext context, ServerProfile server) => new Poller(this, context, server);

    /// <inheritdoc />
    public override SignalView NewView() => new View(Name);

    internal override SignalState NewState(InstanceState instance) => new State(instance);

    /// <summary>What <c>check</c> says of one poll's rows: each database's state and, where read, its top statements by recent log bytes with their text.</summary>
    public static IEnumerable<string> Describe(IEnumerable<QueryStoreRow> rows)
    {
        foreach (var db in rows.GroupBy(r => (r.DatabaseId, r.Database)))
        {
            var own = db.FirstOrDefault(r => r.QueryHash is null);
            var state = own.Database is null ? db.First().State : own.State;
            if (state != QueryStoreStates.ReadWrite)
            {
                yield return $"Query Store of {PrintableText.Of(db.Key.Database)}: {state}: {QueryStoreStates.Explain(state)}";
                continue;
            }

            var top = db.Where(r => r.QueryHash is not null).OrderByDescending(r => r.RecentLogBytes).ThenBy(r => r.QueryHash, StringComparer.Ordinal).Take(TopWithoutIncrease).ToList();
            yield return top.Count == 0
                ? $"Query Store of {PrintableText.Of(db.Key.Database)}: read_write, no statement wrote log in the intervals read"
                : $"Query Store of {PrintableText.Of(db.Key.Database)}: read_write; most log recently: "
                  + string.Join("; ", top.Select(r => string.Create(CultureInfo.InvariantCulture, $"{r.QueryHash} {Bytes(r.RecentLogBytes)}{(r.Text is { } t ? " " + PrintableText.Of(t) : "")}")));
        }
    }

    private static string Bytes(long bytes) => bytes switch
    {
        < 1024 => string.Create(CultureInfo.InvariantCulture, $"{bytes} B"),
        < 1048576 => string.Create(CultureInfo.InvariantCulture, $"{bytes / 1024.0:0.#} KiB"),
        _ => string.Create(CultureInfo.InvariantCulture, $"{bytes / 1048576.0:0.#} MiB"),
    };

    /// <summary>
    /// Per database, the log each statement wrote over the recording (the sum of its increases), the top 5 and other, with its
    /// text; and every state a database was found in. It also names the statements the wait events point at (<see cref="IStatementTexts"/>).
    /// </summary>
    private sealed class View(string signal) : SignalView<QueryStoreRow>, IStatementTexts
    {
        private readonly Dictionary<(string Instance, string Database), Tally> _databases = [];

        public string? TextOf(string instance, string database, string queryHash) =>
            _databases.TryGetValue((instance, database), out var t) && t.Texts.TryGetValue(queryHash, out var text) ? text : null;

        protected override void Observe(string instance, DateTime timestampUtc, in QueryStoreRow row)
        {
            var key = (instance, row.Database);
            if (!_databases.TryGetValue(key, out var t))
            {
                _databases[key] = t = new Tally();
            }

            if (row.QueryHash is not { } hash)
            {
                t.States.Add(row.State);
                t.Polls++;
                t.Total += row.LogBytes;
                return;
            }

            if (row.Text is { } text)
            {
                t.Texts[hash] = text;
            }

            // Kept apart up to the aggregation's bound; later statements are counted in the database's total only (other).
            if (t.Statements.ContainsKey(hash) || t.Statements.Count < StatementWriteLogBound)
            {
                var s = t.Statements.GetValueOrDefault(hash);
                t.Statements[hash] = (s.Bytes + row.LogBytes, s.Executions + row.Executions);
            }
        }

        public override SignalTable? Table()
        {
            if (_databases.Count == 0)
            {
                return null;
            }

            var rows = new List<IReadOnlyList<object?>>();
            foreach (var ((instance, database), t) in _databases.OrderBy(d => d.Key.Instance, StringComparer.Ordinal).ThenBy(d => d.Key.Database, StringComparer.Ordinal))
            {
                var states = string.Join(", ", QueryStoreStates.All.Where(t.States.Contains).Concat(t.States.Where(s => !QueryStoreStates.All.Contains(s)).Order(StringComparer.Ordinal)));
                var ranked = t.Statements.Where(s => s.Value.Bytes > 0).OrderByDescending(s => s.Value.Bytes).ThenBy(s => s.Key, StringComparer.Ordinal).ToList();
                foreach (var (hash, s) in ranked.Take(TopApplications))
                {
                    rows.Add([instance, database, states, hash, t.Texts.GetValueOrDefault(hash), s.Bytes, s.Executions, t.Total > 0 ? 100.0 * s.Bytes / t.Total : null]);
                }

                var named = ranked.Take(TopApplications).Sum(s => s.Value.Bytes);
                var rest = Math.Max(0, t.Total - named);
                if (rest > 0 || ranked.Count == 0)
                {
                    rows.Add([instance, database, states, ranked.Count == 0 && rest == 0 ? null : OtherApplication, null, rest,
                        ranked.Skip(TopApplications).Sum(s => s.Value.Executions), t.Total > 0 ? 100.0 * rest / t.Total : null]);
                }
            }

            return new SignalTable(signal, "Log written by statement (Query Store)",
                [new("instance"), new("database"), new("Query Store"), new("query hash"), new("statement (first 200 characters)"), new("log written", "B"), new("executions"), new("share", "%")],
                rows,
                ["avg_log_bytes_used × count_executions of sys.query_store_runtime_stats per query hash, the increase between the recording's polls added up (the first poll of a database is its baseline); the top 5 statements of each database and the rest as 'other'. A state other than read_write means no figures from that database then (docs/sqlserver.md, \"Query Store\")."]);
        }

        private const int StatementWriteLogBound = 4096;

        private sealed class Tally
        {
            public HashSet<string> States { get; } = new(StringComparer.Ordinal);

            public Dictionary<string, (long Bytes, long Executions)> Statements { get; } = new(StringComparer.Ordinal);

            public Dictionary<string, string> Texts { get; } = new(StringComparer.Ordinal);

            public long Total { get; set; }

            public int Polls { get; set; }
        }
    }

    /// <summary>
    /// One instance's Query Store poll: every <see cref="QueryStoreSettings.Interval"/>, the busiest databases, each read
    /// alone (three-part names with its validated, bracket-quoted name), and each statement's increase since the previous
    /// poll of the database worked out from what the intervals held then (<see cref="Baseline"/>).
    /// </summary>
    private sealed class Poller(QueryStoreSignal signal, PollContext context, ServerProfile server) : SignalPoller(context)
    {
        private readonly Dictionary<int, long> _flushed = [];
        private readonly Dictionary<int, Baseline> _baselines = [];
        private readonly Dictionary<int, string> _states = [];
        private DateTime _due;

        public override async Task PollAsync(DbConnection connection, CancellationToken cancellationToken)
        {
            var settings = Context.Settings.QueryStoreSettings;
            var now = Context.UtcNow;
            if (settings.Databases <= 0 || now < _due)
            {
                return;
            }

            _due = now + settings.Interval;
            var rows = new List<QueryStoreRow>();
            var lookback = (int)Math.Min(int.MaxValue, Math.Max(600, 2 * settings.Interval.TotalSeconds));
            foreach (var candidate in await ChooseAsync(connection, settings, cancellationToken).ConfigureAwait(false))
            {
                var state = candidate.Condition ?? await ReadAsync(connection, candidate, settings, lookback, now, rows, cancellationToken).ConfigureAwait(false);
                if (state != QueryStoreStates.ReadWrite)
                {
                    rows.Add(new QueryStoreRow(candidate.Id, candidate.Name, state, null, null, 0, 0, 0));
                }

                if (!_states.TryGetValue(candidate.Id, out var before) ? state != QueryStoreStates.ReadWrite : before != state)
                {
                    SignalLog.QueryStoreState(Context.Logger, Context.Instance, candidate.Name, state, QueryStoreStates.Explain(state));
                }

                _states[candidate.Id] = state;
            }

            foreach (var (id, b) in _baselines)
            {
                if (now - b.LastPolled > Retention)
                {
                    _baselines.Remove(id);
                }
            }

            Context.Deliver(signal.Batch(Context.Instance, now, [.. rows], endsPoll: true));
        }

        /// <summary>
        /// The busiest watched databases by log bytes flushed since this poller's previous poll (its first: since the instance
        /// started), as the counters' poll of this round read them; ties (no counters) in name order.
        /// </summary>
        private async Task<List<Candidate>> ChooseAsync(DbConnection connection, QueryStoreSettings settings, CancellationToken ct)
        {
            var statement = server.AzureSqlDatabase ? AzureCandidate : server.MajorVersion is > 0 and < 16 ? CandidatesBefore2022 : Candidates;
            var rows = await SqlRows.ReadAsync(connection, Context, statement, c => (
                Id: c.Int32("DatabaseId"), Name: c.String("Name"), Access: c.Int32("HasAccess"), View: c.Int32("CanView"),
                LogBytes: c.Int32("HasLogBytes")), ct).ConfigureAwait(false);
            var counters = Context.LogBytesFlushed;
            var seen = new HashSet<int>();
            var ranked = new List<(Candidate Candidate, long Increase)>();
            foreach (var r in rows)
            {
                if (!DatabaseIds.IsValid(r.Id) || !seen.Add(r.Id))
                {
                    throw new StatementAnswerException($"{statement.View}: database_id {r.Id} ({r.Name}) is not one SQL Server assigns once (0 to {DatabaseIds.Max})");
                }

                if (!Context.Filter.Watches(r.Name))
                {
                    continue;
                }

                var flushed = counters is not null && counters.TryGetValue(r.Name, out var f) ? Math.Max(0, f) : 0;
                var increase = _flushed.TryGetValue(r.Id, out var before) && flushed >= before ? flushed - before : flushed;
                _flushed[r.Id] = flushed;
                var condition = r.LogBytes == 0 ? QueryStoreStates.Unsupported
                    : SqlName.TryQuote(r.Name) is null ? QueryStoreStates.Failed
                    : r.Access == 0 ? QueryStoreStates.NoAccess
                    : r.View == 0 ? QueryStoreStates.NoPermission
                    : null;
                ranked.Add((new Candidate(r.Id, r.Name, condition), increase));
            }

            foreach (var id in _flushed.Keys.Where(id => !seen.Contains(id)).ToList())
            {
                _flushed.Remove(id);
            }

            return [.. ranked.OrderByDescending(c => c.Increase).ThenBy(c => c.Candidate.Name, StringComparer.Ordinal).Take(settings.Databases).Select(c => c.Candidate)];
        }

        /// <summary>Reads one database; returns its state and adds its rows (read_write) to <paramref name="rows"/>.</summary>
        private async Task<string> ReadAsync(DbConnection connection, Candidate db, QueryStoreSettings settings, int lookback, DateTime now, List<QueryStoreRow> rows, CancellationToken ct)
        {
            var prefix = server.AzureSqlDatabase ? "" : SqlName.TryQuote(db.Name) + ".";
            try
            {
                var options = Options(prefix);
                var states = await SqlRows.ReadAsync(connection, Context, options, c => c.String("ActualState"), ct).ConfigureAwait(false);
                var state = states.Count == 1 ? states[0].Trim().ToUpperInvariant() switch
                {
                    "READ_WRITE" => QueryStoreStates.ReadWrite,
                    "READ_ONLY" => QueryStoreStates.ReadOnly,
                    "OFF" => QueryStoreStates.Off,
                    "ERROR" => QueryStoreStates.Error,
                    var other => throw new StatementAnswerException($"{options.View} of {db.Name}: actual_state_desc {other} is none of OFF, READ_ONLY, READ_WRITE, ERROR"),
                } : throw new StatementAnswerException($"{options.View} of {db.Name}: {states.Count} rows where the view has one");
                if (state != QueryStoreStates.ReadWrite)
                {
                    _baselines.Remove(db.Id);
                    return state;
                }

                var stats = Stats(prefix, settings.Text).With("top", StatementsPerDatabase).With("lookback", lookback);
                var answer = await SqlRows.ReadAsync(connection, Context, stats, c => (
                    Hash: c.Int64OrNull("QueryHash"), Interval: c.Int64("IntervalId"), Bytes: c.Int64("LogBytes"), Executions: c.Int64("Executions"),
                    Text: c.StringOrNull("QueryText")), ct).ConfigureAwait(false);
                Increase(db, answer, now, rows);
                return QueryStoreStates.ReadWrite;
            }
            catch (DbException e) when (connection.State == System.Data.ConnectionState.Open && !ct.IsCancellationRequested)
            {
                // The database went offline or was dropped since the list was read, a permission the checks could not see:
                // this database's state for this poll, named in the log; the other databases go on.
                SignalLog.QueryStoreFailed(Context.Logger, Context.Instance, db.Name, e.Message);
                _baselines.Remove(db.Id);
                return QueryStoreStates.Failed;
            }
        }

        /// <summary>
        /// The increase of each statement since the previous poll: per runtime-stats interval, the value now less the value
        /// then; an interval newer than any the previous poll saw counts whole (it began after it); a statement the previous
        /// poll did not list in an interval it saw has no known start and counts nothing of its own (its increase is in the
        /// database's total, so in other). The first poll of a database is its baseline: no increase.
        /// </summary>
        private void Increase(Candidate db, List<(long? Hash, long Interval, long Bytes, long Executions, string? Text)> answer, DateTime now, List<QueryStoreRow> rows)
        {
            var first = !_baselines.TryGetValue(db.Id, out var before);
            var next = new Baseline { LastPolled = now, MaxInterval = before?.MaxInterval ?? long.MinValue };
            var statements = new Dictionary<ulong, (long Bytes, long Executions, long Recent, string? Text)>();
            long totalBytes = 0, totalExecutions = 0, recent = 0;
            foreach (var (hash, interval, bytes, executions, text) in answer)
            {
                var value = (Math.Max(0, bytes), Math.Max(0, executions));
                next.MaxInterval = Math.Max(next.MaxInterval, interval);
                var (dBytes, dExecutions) = first ? (0L, 0L) : Delta(before!, hash, interval, value);
                if (hash is not { } signed)
                {
                    next.Totals[interval] = value;
                    totalBytes += dBytes;
                    totalExecutions += dExecutions;
                    recent += value.Item1;
                    continue;
                }

                var key = unchecked((ulong)signed);
                next.Statements[(key, interval)] = value;
                var s = statements.GetValueOrDefault(key);
                statements[key] = (s.Bytes + dBytes, s.Executions + dExecutions, s.Recent + value.Item1, s.Text ?? text);
            }

            var top = statements.OrderByDescending(s => s.Value.Recent).ThenBy(s => s.Key).Take(TopWithoutIncrease).Select(s => s.Key).ToHashSet();
            foreach (var (hash, s) in statements.OrderByDescending(s => s.Value.Recent).ThenBy(s => s.Key))
            {
                if (s.Bytes > 0 || s.Executions > 0 || top.Contains(hash))
                {
                    rows.Add(new QueryStoreRow(db.Id, db.Name, QueryStoreStates.ReadWrite, QueryHashes.Format(hash), StatementText.Shorten(s.Text), s.Bytes, s.Executions, s.Recent));
                }
            }

            rows.Add(new QueryStoreRow(db.Id, db.Name, QueryStoreStates.ReadWrite, null, null, totalBytes, totalExecutions, recent));
            _baselines[db.Id] = next;
        }

        private static (long Bytes, long Executions) Delta(Baseline before, long? hash, long interval, (long Bytes, long Executions) now)
        {
            (long Bytes, long Executions) then;
            var known = hash is { } h ? before.Statements.TryGetValue((unchecked((ulong)h), interval), out then) : before.Totals.TryGetValue(interval, out then);
            if (!known)
            {
                // A new interval began after the previous poll: all of it is new. Else the statement was not among those read.
                return interval > before.MaxInterval ? now : (0, 0);
            }

            // avg × count is a float product: it can read a few bytes lower than before; never a negative increase.
            return (Math.Max(0, now.Bytes - then.Bytes), Math.Max(0, now.Executions - then.Executions));
        }

        private sealed record Candidate(int Id, string Name, string? Condition);

        /// <summary>What a database's intervals held at its previous poll.</summary>
        private sealed class Baseline
        {
            public Dictionary<(ulong Hash, long Interval), (long Bytes, long Executions)> Statements { get; } = [];

            public Dictionary<long, (long Bytes, long Executions)> Totals { get; } = [];

            public long MaxInterval { get; set; }

            public DateTime LastPolled { get; init; }
        }
    }

    /// <summary>
    /// Per database, the statements' cumulative log bytes and executions (the top 5 and other, <see cref="StatementSeries"/>),
    /// their texts, the state of its last poll; and how many databases the last poll found in each state.
    /// </summary>
    internal sealed class State(InstanceState instance) : SignalState<QueryStoreRow>
    {
        private readonly Dictionary<int, DatabaseStatements> _databases = [];
        private readonly Dictionary<string, (long Count, KeyValuePair<string, object?>[] Tags)> _states = new(StringComparer.Ordinal);

        /// <summary>The databases read (for the snapshot).</summary>
        public IEnumerable<DatabaseStatements> Statements => _databases.Values;

        protected override void Apply(SignalBatch<QueryStoreRow> batch, SignalOutcome outcome)
        {
            var ticks = batch.TimestampUtc.Ticks;
            var found = new Dictionary<string, long>(StringComparer.Ordinal);
            foreach (ref readonly var row in batch.Rows)
            {
                instance.LearnName(row.DatabaseId, row.Database);
                if (!_databases.TryGetValue(row.DatabaseId, out var db) || db.Name != row.Database)
                {
                    _databases[row.DatabaseId] = db = new DatabaseStatements(instance, row.DatabaseId, row.Database);
                }

                db.LastTicks = ticks;
                if (row.QueryHash is { } text && QueryHashes.TryParse(text, out var hash))
                {
                    db.Series.Add(hash, row.LogBytes, row.Executions, ticks);
                    db.Named += row.LogBytes;
                    db.NamedExecutions += row.Executions;
                    if (row.Text is { } t)
                    {
                        db.Remember(hash, t);
                    }

                    continue;
                }

                // The database's own row closes its statements of this poll: what they did not name is other.
                db.State = row.State;
                db.Series.AddOther(Math.Max(0, row.LogBytes - db.Named), Math.Max(0, row.Executions - db.NamedExecutions));
                db.Named = db.NamedExecutions = 0;
                found[row.State] = found.GetValueOrDefault(row.State) + 1;
            }

            if (!batch.EndsPoll)
            {
                return;
            }

            foreach (var (state, (_, tags)) in _states.ToList())
            {
                _states[state] = (0, tags);
            }

            foreach (var (state, count) in found)
            {
                _states[state] = (count, _states.TryGetValue(state, out var s) ? s.Tags : [new(Instance, instance.ExportName), new(StateAttribute, Limit(state))]);
            }

            foreach (var (id, db) in _databases)
            {
                if (ticks - db.LastTicks > Retention.Ticks)
                {
                    _databases.Remove(id);
                }
            }
        }

        public override void Read(MeasurementBuffers into)
        {
            foreach (var db in _databases.Values)
            {
                foreach (var t in db.Series.Exported)
                {
                    into.Add(LogWritten, t.Amount, t.Tags!);
                    into.Add(Executions, t.Count, t.Tags!);
                }
            }

            foreach (var (count, tags) in _states.Values)
            {
                into.Add(Databases, count, tags);
            }
        }
    }

    /// <summary>One database's statements as Query Store gives them.</summary>
    internal sealed class DatabaseStatements(InstanceState instance, int id, string name)
    {
        /// <summary>Texts kept per database (the statements still writing log give theirs again at the next poll).</summary>
        internal const int MaxTexts = 256;
        private readonly Dictionary<ulong, string> _texts = [];

        /// <summary>Texts kept now (at most <see cref="MaxTexts"/>).</summary>
        public int TextCount => _texts.Count;

        public int Id { get; } = id;

        public string Name { get; } = name;

        public string State { get; set; } = QueryStoreStates.ReadWrite;

        public long LastTicks { get; set; }

        /// <summary>Log bytes and executions named by the statement rows of the poll in progress.</summary>
        public long Named { get; set; }

        public long NamedExecutions { get; set; }

        public StatementSeries Series { get; } = new(label => [new(Instance, instance.ExportName), new(Database, Limit(name)), new(QueryHash, label)]);

        /// <summary>The text of <paramref name="hash"/>, when a row gave one.</summary>
        public string? TextOf(ulong hash) => _texts.GetValueOrDefault(hash);

        public void Remember(ulong hash, string text)
        {
            if (_texts.Count >= MaxTexts && !_texts.ContainsKey(hash))
            {
                _texts.Clear(); // bounded; the statements that still write log give theirs again at the next poll
            }

            _texts[hash] = text;
        }
    }
}

/// <summary>The query_store line's contract.</summary>
[JsonSerializable(typeof(QueryStoreRow))]
internal sealed partial class QueryStoreJson : JsonSerializerContext;
