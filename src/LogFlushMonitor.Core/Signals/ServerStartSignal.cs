using System.Data.Common;
using System.Text.Json.Serialization;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Metrics;
using static LogFlushMonitor.Core.Metrics.MetricAttributes;

namespace LogFlushMonitor.Core.Signals;

/// <summary>The instance's start time (<c>sys.dm_os_sys_info.sqlserver_start_time</c>) as read; a new value is a restart.</summary>
/// <param name="StartTimeUtc">The start time, UTC.</param>
public readonly record struct ServerStartRow(
    [property: JsonPropertyName("start_time"), JsonRequired, JsonConverter(typeof(RecordedTimeConverter))] DateTime StartTimeUtc);

/// <summary>
/// The instance's start time, read at every poll and first of all (so the aggregation sees a restart before the rows that
/// follow it): a new value restarts every cumulative series of the instance (restart-safe totals) and is counted.
/// </summary>
public sealed class ServerStartSignal : Signal<ServerStartRow>
{
    /// <summary>
    /// <c>sqlserver_start_time</c> is server-local, so the statement also converts it to UTC with the server's current
    /// offset (the local value tells a restart from a DST change).
    /// </summary>
    public static readonly SignalStatement Statement = new("server_start", """
        SELECT sqlserver_start_time AS StartTimeLocal,
               DATEADD(MINUTE, DATEDIFF(MINUTE, SYSDATETIME(), SYSUTCDATETIME()), sqlserver_start_time) AS StartTimeUtc
        FROM sys.dm_os_sys_info
        """, "sys.dm_os_sys_info");

    private static readonly string[] Inst = [Instance];

    internal static readonly MetricDefinition StartTime = new()
    {
        Name = "sqlserver.instance.start_time", Unit = "s", Kind = MetricKind.Gauge, IsInteger = false, Attributes = Inst, Section = MetricSection.Monitor,
        Description = "When the instance started (sqlserver_start_time), seconds since the Unix epoch.",
        Meaning = "when the instance started (`sqlserver_start_time`), Unix seconds",
        PromQL = "uptime: `time() - sqlserver_instance_start_time_seconds`",
    };

    internal static readonly MetricDefinition Restarts = new()
    {
        Name = "sqlserver.instance.restarts", Unit = "{restart}", Kind = MetricKind.Counter, IsInteger = true, Attributes = Inst, Section = MetricSection.Monitor,
        Description = "Instance restarts observed since monitoring began (a new sqlserver_start_time).",
        Meaning = "restarts observed (a new start time)",
        PromQL = "`increase(sqlserver_instance_restarts_total[1h]) > 0`",
    };

    internal ServerStartSignal()
        : base("start_time")
    {
        Recording = new SignalRecording<ServerStartRow>(this, "server_start", null, ServerStartJson.Default.ServerStartRow,
            r => RecordedTimes.IsPlausible(r.StartTimeUtc) ? null : $"invalid field 'start_time': {r.StartTimeUtc:O} is outside {RecordedTimes.Earliest:yyyy-MM-dd} to {RecordedTimes.Latest:yyyy-MM-dd}",
            (r, ticks) => r with { StartTimeUtc = r.StartTimeUtc.AddTicks(ticks) });
    }

    /// <inheritdoc />
    public override IReadOnlyList<MetricDefinition> Families { get; } = [StartTime, Restarts];

    /// <inheritdoc />
    public override SignalRecording Recording { get; }

    /// <inheritdoc />
    public override IReadOnlyList<SignalStatement> Statements(ServerProfile server) => server.AzureSqlDatabase ? [] : [Statement];

    /// <inheritdoc />
    public override string Describe(ServerProfile server) => "sys.dm_os_sys_info (start time)";

    /// <inheritdoc />
    public override SignalPoller? NewPoller(PollContext context, ServerProfile server) => server.AzureSqlDatabase ? null : new Poller(this, context);

    /// <inheritdoc />
    public override SignalView NewView() => new View(Name);

    internal override SignalState NewState(InstanceState instance) => new State(instance);

    /// <summary>Each instance's start time as first read, restarts during the recording (a new start time), the last one.</summary>
    private sealed class View(string signal) : SignalView<ServerStartRow>
    {
        private readonly Dictionary<string, (DateTime First, DateTime Last, int Restarts)> _instances = new(StringComparer.Ordinal);

        protected override void Observe(string instance, DateTime timestampUtc, in ServerStartRow row)
        {
            _instances[instance] = _instances.TryGetValue(instance, out var seen)
                ? (seen.First, row.StartTimeUtc, seen.Restarts + (row.StartTimeUtc != seen.Last ? 1 : 0))
                : (row.StartTimeUtc, row.StartTimeUtc, 0);
        }

        public override SignalTable? Table() => _instances.Count == 0 ? null : new SignalTable(
            signal, "Instance start time (sys.dm_os_sys_info)",
            [new("instance"), new("started"), new("restarts seen"), new("last start")],
            [.. _instances.OrderBy(i => i.Key, StringComparer.Ordinal).Select(i => (IReadOnlyList<object?>)[i.Key, i.Value.First, (long)i.Value.Restarts, i.Value.Last])],
            ["A restart is a new sqlserver_start_time between two polls: every cumulative figure of the instance starts again from zero."]);
    }

    /// <summary>
    /// The server stores the time in local time: while the local value stays the same the UTC value first read is kept, so
    /// a daylight-saving change is not mistaken for a restart.
    /// </summary>
    private sealed class Poller(ServerStartSignal signal, PollContext context) : SignalPoller(context)
    {
        private DateTime _lastLocal;
        private DateTime _lastUtc;

        public override async Task PollAsync(DbConnection connection, CancellationToken cancellationToken)
        {
            var rows = await SqlRows.ReadAsync(connection, Context, Statement, c => (Local: c.DateTime("StartTimeLocal"), Utc: c.DateTime("StartTimeUtc")), cancellationToken).ConfigureAwait(false);
            if (rows.Count == 0)
            {
                return;
            }

            var row = rows[0];
            var utc = DateTime.SpecifyKind(row.Utc, DateTimeKind.Utc);
            // A start before 2000 or more than a day ahead of our clock is no time the server started (a damaged or
            // hostile answer): a named failure of this statement, not a restart and not a start time on /metrics.
            if (utc < RecordedTimes.Earliest || utc > Context.UtcNow.AddDays(1))
            {
                throw new StatementAnswerException($"{Statement.View}: sqlserver_start_time {row.Local:yyyy-MM-dd HH:mm:ss} ({utc:yyyy-MM-dd HH:mm:ss} UTC) is not a time this server started (before {RecordedTimes.Earliest:yyyy} or more than a day after the monitor's clock, {Context.UtcNow:yyyy-MM-dd HH:mm:ss} UTC)");
            }

            if (row.Local != _lastLocal)
            {
                _lastLocal = row.Local;
                _lastUtc = utc;
            }

            Context.Deliver(signal.Batch(Context.Instance, Context.UtcNow, [new ServerStartRow(_lastUtc)], endsPoll: false));
        }
    }

    private sealed class State(InstanceState instance) : SignalState<ServerStartRow>
    {
        protected override void Apply(SignalBatch<ServerStartRow> batch, SignalOutcome outcome)
        {
            foreach (ref readonly var row in batch.Rows)
            {
                instance.ObserveStart(row.StartTimeUtc);
            }
        }

        public override void Read(MeasurementBuffers into)
        {
            if (instance.StartTimeUtc != default)
            {
                into.Add(StartTime, (instance.StartTimeUtc - DateTime.UnixEpoch).TotalSeconds, instance.Tags);
            }

            into.Add(Restarts, instance.Restarts, instance.Tags);
        }
    }
}

/// <summary>The server_start line's contract.</summary>
[JsonSerializable(typeof(ServerStartRow))]
internal sealed partial class ServerStartJson : JsonSerializerContext;
