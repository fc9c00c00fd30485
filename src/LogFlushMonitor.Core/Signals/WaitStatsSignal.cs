using System.Data.Common;
using System.Text.Json.Serialization;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Metrics;
using static LogFlushMonitor.Core.Metrics.MetricAttributes;

namespace LogFlushMonitor.Core.Signals;

/// <summary>One row of <c>sys.dm_os_wait_stats</c> (cumulative, instance-wide; on Azure SQL Database the database's).</summary>
/// <param name="WaitType">wait_type.</param>
/// <param name="WaitingTasks">waiting_tasks_count: completed waits.</param>
/// <param name="WaitTimeMs">wait_time_ms, signal wait included.</param>
/// <param name="MaxWaitTimeMs">max_wait_time_ms.</param>
/// <param name="SignalWaitTimeMs">signal_wait_time_ms.</param>
/// <param name="DatabaseName">
/// The database whose waits these are, where the view is one database's (sys.dm_db_wait_stats on Azure SQL Database:
/// DB_NAME()); null for the instance's sys.dm_os_wait_stats and in recordings made before it was read.
/// </param>
public readonly record struct WaitStatsRow(
    [property: JsonPropertyName("wait_type"), JsonRequired] string WaitType,
    [property: JsonPropertyName("waiting_tasks"), JsonRequired] long WaitingTasks,
    [property: JsonPropertyName("wait_time_ms"), JsonRequired] long WaitTimeMs,
    [property: JsonPropertyName("max_wait_time_ms")] long MaxWaitTimeMs,
    [property: JsonPropertyName("signal_wait_time_ms")] long SignalWaitTimeMs,
    [property: JsonPropertyName("db")] string? DatabaseName = null);

/// <summary>
/// The log's waits from <c>sys.dm_os_wait_stats</c>: WRITELOG (a commit waiting for its flush), LOGBUFFER (no free log
/// buffer), HADR_SYNC_COMMIT (a synchronous replica's harden) and the log-rate governor's forms (Azure's log-rate cap,
/// <see cref="GovernorPatterns"/>),
/// exported restart-safe per wait type; WRITELOG's increase is also held against the wait events' (the agreement).
/// </summary>
public sealed class WaitStatsSignal : Signal<WaitStatsRow>
{
    /// <summary>
    /// The wait types named exactly (the governor family is matched with LIKE). HADR_SYNC_COMMIT is the remote half of a
    /// commit on a synchronous availability-group replica; its row exists (at zero) on an instance without one.
    /// </summary>
    public static readonly IReadOnlyList<string> LogWaitTypes = ["WRITELOG", "LOGBUFFER", "HADR_SYNC_COMMIT"];

    /// <summary>
    /// The log-rate governor's forms, matched with LIKE: LOG_RATE_GOVERNOR, POOL_LOG_RATE_GOVERNOR, INSTANCE_LOG_RATE_GOVERNOR
    /// and HADR_THROTTLE_LOG_RATE_GOVERNOR (<c>%LOG_RATE_GOVERNOR%</c>), the availability feedback control's
    /// HADR_THROTTLE_LOG_RATE_* (send/receive queue, log size, mismatched service objective) and Hyperscale's RBIO_RG_*
    /// (a page server, replica or the log service behind). Microsoft, "Resource limits for Azure SQL Database ... servers",
    /// "Transaction log rate governance", and "Performance diagnostics in Hyperscale" (docs/sqlserver.md).
    /// </summary>
    public static readonly IReadOnlyList<string> GovernorPatterns = ["%LOG[_]RATE[_]GOVERNOR%", "HADR[_]THROTTLE[_]LOG[_]RATE%", "RBIO[_]RG[_]%"];

    private static readonly string Filter =
        $"WHERE wait_type IN ({string.Join(", ", LogWaitTypes.Select(t => $"N'{t}'"))}) OR {string.Join(" OR ", GovernorPatterns.Select(p => $"wait_type LIKE N'{p}'"))}";

    /// <summary>The log waits of the instance. The names are ours, written into the text (no parameter).</summary>
    public static readonly SignalStatement ServerStatement = new("wait_stats", $"""
        SELECT wait_type AS WaitType, waiting_tasks_count AS WaitingTasks, wait_time_ms AS WaitTimeMs,
               max_wait_time_ms AS MaxWaitTimeMs, signal_wait_time_ms AS SignalWaitTimeMs
        FROM sys.dm_os_wait_stats
        {Filter}
        """, "sys.dm_os_wait_stats");

    /// <summary>Azure SQL Database: the waits of this database (sys.dm_os_wait_stats is not the database's there).</summary>
    public static readonly SignalStatement AzureStatement = new("wait_stats", $"""
        SELECT wait_type AS WaitType, waiting_tasks_count AS WaitingTasks, wait_time_ms AS WaitTimeMs,
               max_wait_time_ms AS MaxWaitTimeMs, signal_wait_time_ms AS SignalWaitTimeMs, DB_NAME() AS DatabaseName
        FROM sys.dm_db_wait_stats
        {Filter}
        """, "sys.dm_db_wait_stats");

    private static readonly string[] InstWait = [Instance, WaitType];

    internal static readonly MetricDefinition Tasks = new()
    {
        Name = "sqlserver.wait.tasks", Unit = "{task}", Kind = MetricKind.Counter, IsInteger = true, Attributes = InstWait, Section = MetricSection.WaitStats,
        Description = "Completed waits of the wait type on the instance (waiting_tasks_count), increase since monitoring began.",
        Meaning = "completed waits (`waiting_tasks_count`)",
        PromQL = "`rate(sqlserver_wait_tasks_total{wait_type=\"WRITELOG\"}[1m])`",
    };

    internal static readonly MetricDefinition Time = new()
    {
        Name = "sqlserver.wait.time", Unit = "s", Kind = MetricKind.Counter, IsInteger = false, Attributes = InstWait, Section = MetricSection.WaitStats,
        Description = "Time tasks waited on the wait type, signal wait included (wait_time_ms), increase since monitoring began.",
        Meaning = "time waited, signal wait included (`wait_time_ms`)",
        PromQL = "average WRITELOG wait: `rate(sqlserver_wait_time_seconds_total{wait_type=\"WRITELOG\"}[5m]) / rate(sqlserver_wait_tasks_total{wait_type=\"WRITELOG\"}[5m])`",
    };

    internal static readonly MetricDefinition SignalTime = new()
    {
        Name = "sqlserver.wait.signal.time", Unit = "s", Kind = MetricKind.Counter, IsInteger = false, Attributes = InstWait, Section = MetricSection.WaitStats,
        Description = "Time between a wait being signalled and the task running (signal_wait_time_ms), increase since monitoring began.",
        Meaning = "signal wait (`signal_wait_time_ms`): CPU pressure rather than I/O",
        PromQL = "share of WRITELOG wait that is signal wait: `rate(sqlserver_wait_signal_time_seconds_total{wait_type=\"WRITELOG\"}[5m]) / rate(sqlserver_wait_time_seconds_total{wait_type=\"WRITELOG\"}[5m])`",
    };

    internal WaitStatsSignal()
        : base("waits")
    {
        Recording = new SignalRecording<WaitStatsRow>(this, "wait_stats", "wait_stats", WaitStatsJson.Default.WaitStatsRow,
            r => r.WaitType is null ? "invalid field 'wait_type': expected a string" : null);
    }

    /// <inheritdoc />
    public override IReadOnlyList<MetricDefinition> Families { get; } = [Tasks, Time, SignalTime];

    /// <inheritdoc />
    public override SignalRecording Recording { get; }

    /// <inheritdoc />
    public override IReadOnlyList<SignalStatement> Statements(ServerProfile server) => [server.AzureSqlDatabase ? AzureStatement : ServerStatement];

    /// <inheritdoc />
    public override string Describe(ServerProfile server) => server.AzureSqlDatabase ? "sys.dm_db_wait_stats (log waits)" : "sys.dm_os_wait_stats (log waits)";

    /// <inheritdoc />
    public override SignalPoller NewPoller(PollContext context, ServerProfile server) => new Poller(this, context, server);

    /// <inheritdoc />
    public override SignalView NewView() => new View(Name);

    internal override SignalState NewState(InstanceState instance) => new State(instance);

    /// <summary>Each log wait type over the recording: waits a second, the average wait, the signal share, the last maximum.</summary>
    private sealed class View(string signal) : SignalView<WaitStatsRow>
    {
        private readonly Dictionary<(string Instance, string WaitType), (CumulativeFigure Tasks, CumulativeFigure TimeMs, CumulativeFigure SignalMs, long MaxMs)> _waits = [];

        protected override void Observe(string instance, DateTime timestampUtc, in WaitStatsRow row)
        {
            var key = (instance, row.WaitType);
            var w = _waits.GetValueOrDefault(key);
            w.Tasks.Add(row.WaitingTasks, timestampUtc);
            w.TimeMs.Add(row.WaitTimeMs, timestampUtc);
            w.SignalMs.Add(row.SignalWaitTimeMs, timestampUtc);
            w.MaxMs = row.MaxWaitTimeMs;
            _waits[key] = w;
        }

        public override SignalTable? Table() => _waits.Count == 0 ? null : new SignalTable(
            signal, "Log waits (sys.dm_os_wait_stats)",
            [new("instance"), new("wait type"), new("waits", "/s"), new("waits over the recording"), new("wait per wait", "ms"), new("signal wait share", "%"), new("longest wait (last poll)", "ms"), new("restarts")],
            [.. _waits.OrderBy(w => w.Key.Instance, StringComparer.Ordinal).ThenBy(w => w.Key.WaitType, StringComparer.Ordinal).Select(w => (IReadOnlyList<object?>)[
                w.Key.Instance, w.Key.WaitType, w.Value.Tasks.PerSecond, w.Value.Tasks.Increase,
                w.Value.Tasks.Increase > 0 ? (double)w.Value.TimeMs.Increase / w.Value.Tasks.Increase : null,
                w.Value.TimeMs.Increase > 0 ? 100.0 * w.Value.SignalMs.Increase / w.Value.TimeMs.Increase : null,
                w.Value.MaxMs, (long)w.Value.Tasks.Resets])],
            ["The whole instance's waits (the view has no database): the increase of waiting_tasks_count, wait_time_ms and signal_wait_time_ms between the first and the last poll; the signal share is the part of the wait spent waiting for a CPU after the log write completed."]);
    }

    private sealed class Poller(WaitStatsSignal signal, PollContext context, ServerProfile server) : SignalPoller(context)
    {
        public override async Task PollAsync(DbConnection connection, CancellationToken cancellationToken)
        {
            var rows = await SqlRows.ReadAsync(connection, Context, server.AzureSqlDatabase ? AzureStatement : ServerStatement, c => new WaitStatsRow(
                c.String("WaitType").Trim(), c.Int64("WaitingTasks"), c.Int64("WaitTimeMs"), c.Int64("MaxWaitTimeMs"), c.Int64("SignalWaitTimeMs"),
                server.AzureSqlDatabase ? c.StringOrNull("DatabaseName") : null), cancellationToken).ConfigureAwait(false);
            Context.Deliver(signal.Batch(Context.Instance, Context.UtcNow, [.. rows], endsPoll: true));
        }
    }

    /// <summary>Each wait type's cumulative figures, restart-safe; a wait type a poll no longer lists is retired.</summary>
    internal sealed class State(InstanceState instance) : PolledState<WaitStatsRow>
    {
        private readonly Dictionary<string, WaitStatsSeries> _series = new(StringComparer.Ordinal);

        /// <summary>Each wait type the last poll listed.</summary>
        public IEnumerable<WaitStatsSeries> Series => _series.Values;

        protected override void ApplyRow(SignalBatch<WaitStatsRow> batch, in WaitStatsRow row, SignalOutcome outcome)
        {
            if (!_series.TryGetValue(row.WaitType, out var s))
            {
                s = new WaitStatsSeries(instance.Name, row.WaitType);
                _series[row.WaitType] = s;
            }

            s.Stamp = Stamp;
            s.DatabaseName = row.DatabaseName;
            var t = batch.TimestampUtc;
            s.Tasks.Update(row.WaitingTasks, t, instance.Epoch, instance.StartTimeUtc);
            s.WaitTimeMs.Update(row.WaitTimeMs, t, instance.Epoch, instance.StartTimeUtc);
            s.SignalTimeMs.Update(row.SignalWaitTimeMs, t, instance.Epoch, instance.StartTimeUtc);
            outcome.Check(instance, "wait stats", row.WaitType, ("waiting_tasks_count", row.WaitingTasks, s.Tasks.LastVerdict),
                ("wait_time_ms", row.WaitTimeMs, s.WaitTimeMs.LastVerdict), ("signal_wait_time_ms", row.SignalWaitTimeMs, s.SignalTimeMs.LastVerdict));
            if (row.MaxWaitTimeMs >= 0)
            {
                s.MaxWaitTimeMs = row.MaxWaitTimeMs;
            }
        }

        protected override void EndPoll(int keep, SignalBatch<WaitStatsRow> batch, SignalOutcome outcome)
        {
            RemoveStale(_series, keep);
            // Only an instance whose events flow has two sides to compare.
            if (instance.HasEventSource && _series.TryGetValue("WRITELOG", out var writeLog) && writeLog.Stamp == keep)
            {
                instance.Agreement.OnWaitStats(writeLog.WaitTimeMs.LastIncrease, ref outcome.Agreement);
            }
        }

        public override void Read(MeasurementBuffers into)
        {
            foreach (var s in _series.Values)
            {
                into.Add(Tasks, s.Tasks.Total, s.Tags);
                into.Add(Time, s.WaitTimeMs.Total / 1000.0, s.Tags);
                into.Add(SignalTime, s.SignalTimeMs.Total / 1000.0, s.Tags);
            }
        }
    }
}

/// <summary>The wait_stats line's contract.</summary>
[JsonSourceGenerationOptions(DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull)]
[JsonSerializable(typeof(WaitStatsRow))]
internal sealed partial class WaitStatsJson : JsonSerializerContext;
