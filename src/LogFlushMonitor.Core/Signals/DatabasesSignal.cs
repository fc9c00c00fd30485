using System.Data.Common;
using System.Text.Json.Serialization;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Samples;

namespace LogFlushMonitor.Core.Signals;

/// <summary>A database's id and name as sys.databases lists them.</summary>
/// <param name="DatabaseId">database_id.</param>
/// <param name="Name">name.</param>
public readonly record struct DatabaseRow(
    [property: JsonPropertyName("db_id"), JsonRequired] int DatabaseId,
    [property: JsonPropertyName("db"), JsonRequired] string Name);

/// <summary>
/// sys.databases: the names of the watched databases (series keyed by database_id get their name even when the event
/// session carries no name action), the list the other signals read (<see cref="PollContext.Databases"/>), and a log line
/// when a watched database appears, changes state, delayed durability or recovery model, or disappears.
/// </summary>
public sealed class DatabasesSignal : Signal<DatabaseRow>
{
    /// <summary>
    /// Every database with its state, recovery model and delayed durability; whether it closes itself when idle
    /// (AUTO_CLOSE: its counter rows vanish while it is closed) and whether it is a database snapshot (which has no log).
    /// </summary>
    public static readonly SignalStatement Statement = new("databases", """
        SELECT database_id AS Id, name AS Name, state_desc AS State, recovery_model_desc AS RecoveryModel,
               delayed_durability_desc AS DelayedDurability, is_auto_close_on AS AutoClose,
               CAST(CASE WHEN source_database_id IS NULL THEN 0 ELSE 1 END AS bit) AS IsSnapshot
        FROM sys.databases
        """, "sys.databases");

    internal DatabasesSignal()
        : base("databases")
    {
        Recording = new SignalRecording<DatabaseRow>(this, "database", null, DatabaseJson.Default.DatabaseRow,
            r => r.Name is null ? "invalid field 'db': expected a string"
                : !DatabaseIds.IsValid(r.DatabaseId) ? $"invalid field 'db_id': {r.DatabaseId} is not a database id (0 to {DatabaseIds.Max})"
                : null);
    }

    /// <inheritdoc />
    public override SignalRecording Recording { get; }

    /// <inheritdoc />
    public override IReadOnlyList<SignalStatement> Statements(ServerProfile server) => server.AzureSqlDatabase ? [] : [Statement];

    /// <inheritdoc />
    public override string Describe(ServerProfile server) => "sys.databases (names, states)";

    /// <inheritdoc />
    public override SignalPoller? NewPoller(PollContext context, ServerProfile server) => server.AzureSqlDatabase ? null : new Poller(this, context);

    /// <inheritdoc />
    public override SignalView NewView() => new View(Name);

    internal override SignalState NewState(InstanceState instance) => new State(instance);

    /// <summary>Each database the recording names: its id, its name (the last, and how many it had), when it was first and last listed.</summary>
    private sealed class View(string signal) : SignalView<DatabaseRow>
    {
        private readonly Dictionary<(string Instance, int Id), (string Name, int Names, DateTime First, DateTime Last)> _databases = [];

        protected override void Observe(string instance, DateTime timestampUtc, in DatabaseRow row)
        {
            var key = (instance, row.DatabaseId);
            _databases[key] = _databases.TryGetValue(key, out var seen)
                ? (row.Name, seen.Names + (string.Equals(row.Name, seen.Name, StringComparison.Ordinal) ? 0 : 1), seen.First, timestampUtc)
                : (row.Name, 1, timestampUtc, timestampUtc);
        }

        public override SignalTable? Table() => _databases.Count == 0 ? null : new SignalTable(
            signal, "Databases watched (sys.databases)",
            [new("instance"), new("database_id"), new("database"), new("names"), new("first listed"), new("last listed")],
            [.. _databases.OrderBy(d => d.Key.Instance, StringComparer.Ordinal).ThenBy(d => d.Key.Id)
                .Select(d => (IReadOnlyList<object?>)[d.Key.Instance, (long)d.Key.Id, d.Value.Name, (long)d.Value.Names, d.Value.First, d.Value.Last])],
            ["The databases the filter watches, as each poll listed them; more than one name means the id was renamed or reused. A database last listed before the end of the recording was dropped, detached or filtered out then."]);
    }

    /// <summary>
    /// Reads sys.databases. A database id twice, or one SQL Server cannot assign, is an answer no server gives: a named
    /// failure of the statement, not a crash, and the list of the last good read stays.
    /// </summary>
    public static async Task<List<DatabaseInfo>> ReadAsync(DbConnection connection, PollContext context, CancellationToken cancellationToken)
    {
        var rows = await SqlRows.ReadAsync(connection, context, Statement, c => new DatabaseInfo(
            c.Int32("Id"), c.String("Name"), c.String("State"), c.String("RecoveryModel"), c.StringOrNull("DelayedDurability"),
            c.Boolean("AutoClose"), c.Boolean("IsSnapshot")), cancellationToken).ConfigureAwait(false);
        var seen = new HashSet<int>();
        foreach (var d in rows)
        {
            if (!DatabaseIds.IsValid(d.Id))
            {
                throw new StatementAnswerException($"{Statement.View}: database_id {d.Id} ({d.Name}) is not one SQL Server assigns (0 to {DatabaseIds.Max})");
            }

            if (!seen.Add(d.Id))
            {
                throw new StatementAnswerException($"{Statement.View}: database_id {d.Id} is listed twice ({string.Join(", ", rows.Where(r => r.Id == d.Id).Select(r => r.Name))})");
            }
        }

        return rows;
    }

    private sealed class Poller(DatabasesSignal signal, PollContext context) : SignalPoller(context)
    {
        private Dictionary<int, DatabaseInfo>? _last;

        public override async Task PollAsync(DbConnection connection, CancellationToken cancellationToken)
        {
            var rows = await ReadAsync(connection, Context, cancellationToken).ConfigureAwait(false);
            var current = rows.ToDictionary(d => d.Id);
            var filter = Context.Filter;
            if (_last is not null)
            {
                foreach (var db in rows.Where(d => filter.Watches(d.Name)))
                {
                    if (!_last.TryGetValue(db.Id, out var before) || before.Name != db.Name)
                    {
                        SignalLog.DatabaseAppeared(Context.Logger, Context.Instance, db.Name, db.Id, db.State);
                    }
                    else if (before.State != db.State || before.DelayedDurability != db.DelayedDurability || before.RecoveryModel != db.RecoveryModel)
                    {
                        SignalLog.DatabaseChanged(Context.Logger, Context.Instance, db.Name, before.State, db.State,
                            before.DelayedDurability ?? "", db.DelayedDurability ?? "", before.RecoveryModel, db.RecoveryModel);
                    }
                }

                foreach (var gone in _last.Values.Where(d => !current.ContainsKey(d.Id) && filter.Watches(d.Name)))
                {
                    SignalLog.DatabaseGone(Context.Logger, Context.Instance, gone.Name, gone.Id);
                }
            }

            // Names for series keyed by database_id (the event session carries ids only).
            Context.Deliver(signal.Batch(Context.Instance, Context.UtcNow, [.. rows.Where(d => filter.Watches(d.Name)).Select(d => new DatabaseRow(d.Id, d.Name))], endsPoll: false));
            _last = current;
            Context.Databases = rows;
        }
    }

    private sealed class State(InstanceState instance) : SignalState<DatabaseRow>
    {
        protected override void Apply(SignalBatch<DatabaseRow> batch, SignalOutcome outcome)
        {
            foreach (ref readonly var row in batch.Rows)
            {
                instance.LearnName(row.DatabaseId, row.Name);
            }
        }
    }
}

/// <summary>The database line's contract.</summary>
[JsonSerializable(typeof(DatabaseRow))]
internal sealed partial class DatabaseJson : JsonSerializerContext;
