using System.Data.Common;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Samples;

namespace LogFlushMonitor.Core.Signals;

/// <summary>
/// The monitor's own event session's drops (<c>sys.dm_xe_sessions</c>): increases of <c>dropped_event_count</c> are
/// events the server lost before we could read them, reported as <see cref="LossKind.ServerDropped"/> (so they are in
/// sqlserver.monitor.events.lost and the agreement allows for them); dropped buffers hold an unknown number of events and
/// are logged, not counted. The first reading is a baseline (drops from before we watched are not ours to count); a new
/// create_time or a lower count means the session (or the server) restarted, and then everything since is new. It delivers
/// no rows, only the loss.
/// </summary>
public sealed class XeDropsSignal : Signal<XeDropsSignal.Reading>
{
    /// <summary>Drop counters of one server-scoped event session. Parameter: <c>@name</c> (the instance's session at each poll).</summary>
    public static readonly SignalStatement ServerStatement = new SignalStatement("xe_session_drops", """
        SELECT create_time AS CreateTime, CAST(dropped_event_count AS bigint) AS DroppedEvents,
               CAST(dropped_buffer_count AS bigint) AS DroppedBuffers
        FROM sys.dm_xe_sessions
        WHERE name = @name
        """, "sys.dm_xe_sessions").With("name", SignalSettings.Default.SessionName);

    /// <summary>Drop counters of one database-scoped event session (Azure SQL Database). Parameter: <c>@name</c>.</summary>
    public static readonly SignalStatement DatabaseStatement = new SignalStatement("xe_session_drops", """
        SELECT create_time AS CreateTime, CAST(dropped_event_count AS bigint) AS DroppedEvents,
               CAST(dropped_buffer_count AS bigint) AS DroppedBuffers
        FROM sys.dm_xe_database_sessions
        WHERE name = @name
        """, "sys.dm_xe_database_sessions").With("name", SignalSettings.Default.SessionName);

    internal XeDropsSignal()
        : base("xe_drops")
    {
    }

    /// <inheritdoc />
    public override IReadOnlyList<SignalStatement> Statements(ServerProfile server) => [server.AzureSqlDatabase ? DatabaseStatement : ServerStatement];

    /// <inheritdoc />
    public override string Describe(ServerProfile server) => server.AzureSqlDatabase ? "sys.dm_xe_database_sessions (event session drops)" : "sys.dm_xe_sessions (event session drops)";

    /// <inheritdoc />
    public override SignalPoller NewPoller(PollContext context, ServerProfile server) => new Poller(context, server);

    internal override SignalState NewState(InstanceState instance) => new State();

    /// <summary>The session's drop counters as read (the signal keeps them poll-side: what reaches the aggregation is the loss).</summary>
    /// <param name="CreateTime">create_time of the session.</param>
    /// <param name="DroppedEvents">dropped_event_count.</param>
    /// <param name="DroppedBuffers">dropped_buffer_count.</param>
    public readonly record struct Reading(DateTime CreateTime, long DroppedEvents, long DroppedBuffers);

    private sealed class Poller(PollContext context, ServerProfile server) : SignalPoller(context)
    {
        private Reading? _last;

        public override async Task PollAsync(DbConnection connection, CancellationToken cancellationToken)
        {
            var statement = (server.AzureSqlDatabase ? DatabaseStatement : ServerStatement).With("name", Context.Settings.SessionName);
            var rows = await SqlRows.ReadAsync(connection, Context, statement, c => new Reading(c.DateTime("CreateTime"), c.Int64("DroppedEvents"), c.Int64("DroppedBuffers")), cancellationToken).ConfigureAwait(false);
            if (rows.Count == 0)
            {
                return; // Not running now: the session manager owns that; the next reading after it starts counts from zero.
            }

            var row = rows[0];
            long newEvents, newBuffers;
            if (_last is not { } last)
            {
                newEvents = newBuffers = 0;
            }
            else if (row.CreateTime != last.CreateTime || row.DroppedEvents < last.DroppedEvents || row.DroppedBuffers < last.DroppedBuffers)
            {
                newEvents = row.DroppedEvents;
                newBuffers = row.DroppedBuffers;
            }
            else
            {
                newEvents = row.DroppedEvents - last.DroppedEvents;
                newBuffers = row.DroppedBuffers - last.DroppedBuffers;
            }

            _last = row;
            if (newEvents > 0)
            {
                Context.Sink.OnSourceLoss(Context.Instance, LossKind.ServerDropped, newEvents);
            }

            if (newBuffers > 0)
            {
                SignalLog.BuffersDropped(Context.Logger, Context.Instance, Context.Settings.SessionName, newBuffers);
            }
        }
    }

    /// <summary>Nothing to keep: the drops reach the aggregation as a loss.</summary>
    private sealed class State : SignalState<Reading>
    {
        protected override void Apply(SignalBatch<Reading> batch, SignalOutcome outcome)
        {
        }
    }
}
