using System.Data.Common;
using System.Text.Json.Serialization;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Core.Samples;
using static LogFlushMonitor.Core.Metrics.MetricAttributes;

namespace LogFlushMonitor.Core.Signals;

/// <summary>
/// The log held by one application's open transactions in one database at the moment of a poll
/// (<c>sys.dm_tran_database_transactions</c> joined to <c>sys.dm_tran_session_transactions</c> and
/// <c>sys.dm_exec_sessions</c>): the top log writers. A poll delivers at most the top 5 applications per database (by
/// log bytes used) and "other" for the rest.
/// </summary>
/// <param name="DatabaseId">database_id of the transactions.</param>
/// <param name="DatabaseName">The database name.</param>
/// <param name="Application">The sessions' program_name (one of the top 5), or "other".</param>
/// <param name="Transactions">Open transactions of those sessions in the database.</param>
/// <param name="LogBytesUsed">database_transaction_log_bytes_used summed: log written so far by those transactions.</param>
/// <param name="LogBytesReserved">database_transaction_log_bytes_reserved summed: log reserved for them (a rollback's room).</param>
public readonly record struct LogWritersRow(
    [property: JsonPropertyName("db_id"), JsonRequired] int DatabaseId,
    [property: JsonPropertyName("db"), JsonRequired] string DatabaseName,
    [property: JsonPropertyName("app"), JsonRequired] string Application,
    [property: JsonPropertyName("transactions"), JsonRequired] int Transactions,
    [property: JsonPropertyName("log_bytes_used"), JsonRequired] long LogBytesUsed,
    [property: JsonPropertyName("log_bytes_reserved"), JsonRequired] long LogBytesReserved);

/// <summary>
/// The top log writers: per watched database, the <see cref="MetricAttributes.TopApplications"/> applications whose open
/// transactions use the most log, and "other" for the rest (sessions without a program name included), so the series
/// stay bounded whatever the applications are called and however many connect. The top is chosen again at each poll
/// (the values are point readings, not cumulative).
/// </summary>
public sealed class LogWritersSignal : Signal<LogWritersRow>
{
    /// <summary>
    /// The top log writers: log used and reserved by open transactions, per database and program_name
    /// (sys.dm_tran_database_transactions, joined through sys.dm_tran_session_transactions to sys.dm_exec_sessions).
    /// A transaction that runs under several sessions (bound sessions, distributed transactions) has a row per session in
    /// sys.dm_tran_session_transactions (Microsoft docs), so each transaction is taken once, under its lowest session_id.
    /// Only transactions that used or reserved log count (read-only ones hold none). Needs VIEW SERVER STATE (2022+:
    /// VIEW SERVER PERFORMANCE STATE; Azure SQL Database: VIEW DATABASE STATE); docs/sqlserver.md.
    /// </summary>
    public static readonly SignalStatement Statement = new("log_writers", """
        SELECT CAST(dt.database_id AS int) AS DatabaseId, DB_NAME(dt.database_id) AS DatabaseName,
               s.program_name AS ProgramName, COUNT(*) AS Transactions,
               SUM(dt.database_transaction_log_bytes_used) AS LogBytesUsed,
               SUM(dt.database_transaction_log_bytes_reserved) AS LogBytesReserved
        FROM sys.dm_tran_database_transactions AS dt
        JOIN (SELECT transaction_id, MIN(session_id) AS session_id
              FROM sys.dm_tran_session_transactions
              GROUP BY transaction_id) AS st ON st.transaction_id = dt.transaction_id
        JOIN sys.dm_exec_sessions AS s ON s.session_id = st.session_id
        WHERE dt.database_transaction_log_bytes_used > 0 OR dt.database_transaction_log_bytes_reserved > 0
        GROUP BY dt.database_id, s.program_name
        """, "sys.dm_tran_database_transactions");

    private static readonly string[] InstDbApp = [Instance, Database, Application];

    internal static readonly MetricDefinition Used = new()
    {
        Name = "sqlserver.database.log.writer.used", Unit = "By", Kind = MetricKind.Gauge, IsInteger = true, Attributes = InstDbApp, Section = MetricSection.InFlight,
        Description = "Log bytes used by open transactions (database_transaction_log_bytes_used) by program_name, per database, as of the last poll: the top 5 applications and 'other'.",
        Meaning = "the top log writers: log bytes used so far by open transactions (`sys.dm_tran_database_transactions.database_transaction_log_bytes_used`, joined through `sys.dm_tran_session_transactions` to `sys.dm_exec_sessions.program_name`), per database, polled every `PollInterval` in every mode. At most the 5 applications using the most and `other` (the rest, and sessions without a program name) per database, chosen again at each poll; no series for a database without open transactions that wrote log",
        PromQL = "`topk(5, sqlserver_database_log_writer_used_bytes)`",
    };

    internal static readonly MetricDefinition Reserved = new()
    {
        Name = "sqlserver.database.log.writer.reserved", Unit = "By", Kind = MetricKind.Gauge, IsInteger = true, Attributes = InstDbApp, Section = MetricSection.InFlight,
        Description = "Log bytes reserved by the same open transactions (database_transaction_log_bytes_reserved), as of the last poll.",
        Meaning = "log bytes reserved for the same transactions (`database_transaction_log_bytes_reserved`: room kept for a rollback), same applications",
        PromQL = "`sqlserver_database_log_writer_reserved_bytes`",
    };

    internal static readonly MetricDefinition Transactions = new()
    {
        Name = "sqlserver.database.log.writer.transactions", Unit = "{transaction}", Kind = MetricKind.Gauge, IsInteger = true, Attributes = InstDbApp, Section = MetricSection.InFlight,
        Description = "Open transactions that wrote or reserved log, by the same applications, as of the last poll.",
        Meaning = "open transactions of those applications that used or reserved log in the database",
        PromQL = "`sqlserver_database_log_writer_transactions`",
    };

    internal LogWritersSignal()
        : base("log_writers")
    {
        Recording = new SignalRecording<LogWritersRow>(this, "log_writers", "log_writers", LogWritersJson.Default.LogWritersRow,
            r => r.DatabaseName is null ? "invalid field 'db': expected a string"
                : r.Application is null ? "invalid field 'app': expected a string"
                : !DatabaseIds.IsValid(r.DatabaseId) ? $"invalid field 'db_id': {r.DatabaseId} is not a database id (0 to {DatabaseIds.Max})"
                : r.Transactions < 0 ? "invalid field 'transactions': expected a non-negative 32-bit integer"
                : null);
    }

    /// <inheritdoc />
    public override IReadOnlyList<MetricDefinition> Families { get; } = [Used, Reserved, Transactions];

    /// <inheritdoc />
    public override SignalRecording Recording { get; }

    /// <inheritdoc />
    public override IReadOnlyList<SignalStatement> Statements(ServerProfile server) => [Statement];

    /// <inheritdoc />
    public override string Describe(ServerProfile server) => "sys.dm_tran_database_transactions, sys.dm_tran_session_transactions and sys.dm_exec_sessions (the top log writers)";

    /// <inheritdoc />
    public override SignalPoller NewPoller(PollContext context, ServerProfile server) => new Poller(this, context);

    /// <inheritdoc />
    public override SignalView NewView() => new View(Name);

    internal override SignalState NewState(InstanceState instance) => new State(instance);

    /// <summary>Each application's open transactions per database: the most log they held at one poll, and in how many polls they held any.</summary>
    private sealed class View(string signal) : SignalView<LogWritersRow>
    {
        private readonly Dictionary<(string Instance, string Database, string Application), (long MostUsed, long MostReserved, long MostTransactions, long Polls)> _writers = [];

        protected override void Observe(string instance, DateTime timestampUtc, in LogWritersRow row)
        {
            var key = (instance, row.DatabaseName, row.Application);
            var w = _writers.GetValueOrDefault(key);
            _writers[key] = (Math.Max(w.MostUsed, row.LogBytesUsed), Math.Max(w.MostReserved, row.LogBytesReserved), Math.Max(w.MostTransactions, row.Transactions), w.Polls + 1);
        }

        public override SignalTable? Table() => _writers.Count == 0 ? null : new SignalTable(
            signal, "Open transactions holding log, by application (sys.dm_tran_database_transactions)",
            [new("instance"), new("database"), new("application"), new("most log used", "B"), new("most log reserved", "B"), new("most open transactions"), new("polls seen")],
            [.. _writers.OrderBy(w => w.Key.Instance, StringComparer.Ordinal).ThenBy(w => w.Key.Database, StringComparer.Ordinal)
                .ThenByDescending(w => w.Value.MostUsed).ThenBy(w => w.Key.Application, StringComparer.Ordinal).Select(w => (IReadOnlyList<object?>)[
                w.Key.Instance, w.Key.Database, w.Key.Application, w.Value.MostUsed, w.Value.MostReserved, w.Value.MostTransactions, w.Value.Polls])],
            [$"The top {TopApplications} applications of each database at each poll and the rest as '{OtherApplication}': log an open transaction has written or reserved is log the server cannot reuse until it commits."]);
    }

    private sealed class Poller(LogWritersSignal signal, PollContext context) : SignalPoller(context)
    {
        public override async Task PollAsync(DbConnection connection, CancellationToken cancellationToken)
        {
            var rows = await SqlRows.ReadAsync(connection, Context, Statement, c => (
                Id: c.Int32("DatabaseId"), Name: c.StringOrNull("DatabaseName"), Program: c.StringOrNull("ProgramName"),
                Transactions: c.Int32("Transactions"), Used: c.Int64("LogBytesUsed"), Reserved: c.Int64("LogBytesReserved")), cancellationToken).ConfigureAwait(false);
            var batch = new List<LogWritersRow>();
            // DB_NAME is NULL for a database dropped since: nothing to attribute it to.
            foreach (var database in rows.Where(r => r.Name is not null && Context.Filter.Watches(r.Name)).GroupBy(r => r.Id))
            {
                var name = database.First().Name!;
                var ranked = database.Where(r => !string.IsNullOrEmpty(r.Program) && r.Program != OtherApplication)
                    .OrderByDescending(r => r.Used).ThenByDescending(r => r.Reserved).ThenBy(r => r.Program, StringComparer.Ordinal).ToList();
                foreach (var r in ranked.Take(TopApplications))
                {
                    batch.Add(new LogWritersRow(database.Key, name, r.Program!, r.Transactions, r.Used, r.Reserved));
                }

                var rest = database.Except(ranked.Take(TopApplications)).ToList();
                if (rest.Count > 0)
                {
                    batch.Add(new LogWritersRow(database.Key, name, OtherApplication, rest.Sum(r => r.Transactions), rest.Sum(r => r.Used), rest.Sum(r => r.Reserved)));
                }
            }

            Context.Deliver(signal.Batch(Context.Instance, Context.UtcNow, [.. batch], endsPoll: true));
        }
    }

    /// <summary>Each application's open transactions per database as the last poll saw them; those the poll no longer lists are retired.</summary>
    internal sealed class State(InstanceState instance) : PolledState<LogWritersRow>
    {
        private readonly Dictionary<(int DatabaseId, string Application), LogWritersSeries> _series = [];

        /// <summary>Every application of every database the last poll listed.</summary>
        public IEnumerable<LogWritersSeries> Series => _series.Values;

        protected override void ApplyRow(SignalBatch<LogWritersRow> batch, in LogWritersRow row, SignalOutcome outcome)
        {
            instance.LearnName(row.DatabaseId, row.DatabaseName);
            var key = (row.DatabaseId, row.Application);
            if (!_series.TryGetValue(key, out var s) || s.DatabaseName != row.DatabaseName)
            {
                s = new LogWritersSeries(instance.Name, row.DatabaseName, row.Application);
                _series[key] = s;
            }

            s.Stamp = Stamp;
            s.Transactions = Math.Max(0, row.Transactions);
            s.LogBytesUsed = Math.Max(0, row.LogBytesUsed);
            s.LogBytesReserved = Math.Max(0, row.LogBytesReserved);
        }

        protected override void EndPoll(int keep, SignalBatch<LogWritersRow> batch, SignalOutcome outcome) => RemoveStale(_series, keep);

        public override void Read(MeasurementBuffers into)
        {
            foreach (var s in _series.Values)
            {
                into.Add(Used, s.LogBytesUsed, s.Tags);
                into.Add(Reserved, s.LogBytesReserved, s.Tags);
                into.Add(Transactions, s.Transactions, s.Tags);
            }
        }
    }
}

/// <summary>The log_writers line's contract.</summary>
[JsonSerializable(typeof(LogWritersRow))]
internal sealed partial class LogWritersJson : JsonSerializerContext;
