using System.Diagnostics.Metrics;
using LogFlushMonitor.Core.Signals;
using static LogFlushMonitor.Core.Metrics.MetricAttributes;

namespace LogFlushMonitor.Core.Metrics;

/// <summary>
/// Every metric family the monitor exports on its Meter, once: the events' and the monitor's own, declared here, and each
/// signal's, declared in the signal's file (<see cref="Signal.Families"/>, in the order of <see cref="SignalRegistry.All"/>).
/// <see cref="LogFlushMetrics"/> creates the instruments from <see cref="All"/> (section by section, which is the order of
/// the exposition and of docs/metrics.md, whose tables are generated from it: MetricsDocumentationTests fails when they
/// differ). A collect reads the events' families from the aggregation, each signal's from the signal's state, and the
/// monitor's from the health registries (<see cref="MetricDefinition.ObserveLong"/>); nothing maps a family back to state.
/// </summary>
public static class MetricCatalog
{
    private static readonly string[] Inst = [Instance];
    private static readonly string[] InstDb = [Instance, Database];
    private static readonly string[] InstDbWait = [Instance, Database, WaitType];
    private static readonly string[] InstDbApp = [Instance, Database, Application];
    private static readonly string[] InstDbStatement = [Instance, Database, QueryHash];
    private static readonly string[] InstComponent = [Instance, Component];

    /// <summary>Sector-aligned write-size bucket bounds in bytes (512 B sectors up to the 60 KB block).</summary>
    public static readonly IReadOnlyList<double> WriteSizeBuckets = [512, 1024, 2048, 4096, 8192, 16384, 32768, 49152, 61440];

    /// <summary>
    /// Duration bucket bounds in seconds, from sub-millisecond NVMe writes to the 10-15 ms bottleneck line and beyond.
    /// Ten bounds: every bound is a line per database in each scrape.
    /// </summary>
    public static readonly IReadOnlyList<double> DurationBuckets = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1, 1];

    /// <summary>
    /// The write size's exponential scale: 16 buckets per doubling, so 512 B (2^9) and every power of two up to the 32 KB
    /// are bucket bounds and a 60 KB flush (61,440 B) falls in (60,097, 62,757], 4.4 % wide; 512 B to 64 KB takes 112 of
    /// the SDK's 160 buckets.
    /// </summary>
    public const int WriteSizeScale = 4;

    /// <summary>The durations' exponential scale: 8 buckets per doubling (9 % wide), so 100 µs to 2 s (14.3 doublings) fits 160 buckets.</summary>
    public const int DurationScale = 3;

    /// <summary>The families of the events (per event and per database), declared here: the aggregation fills them.</summary>
    internal static IReadOnlyList<MetricDefinition> EventFamilies { get; } =
    [
        // Per event: recorded by the aggregation outside its lock.
        new()
        {
            Name = "sqlserver.log.flush.write_size", Unit = "By", Kind = MetricKind.Histogram, IsInteger = true, Attributes = InstDb,
            Measure = EventMeasure.FlushWriteSize, Buckets = WriteSizeBuckets, ExponentialMaxScale = WriteSizeScale, Section = MetricSection.Events,
            Description = "Size of each log flush (log_flush_start write_size): 512 B flushes mean one flush per small commit, 60 KB ones a full log buffer.",
            Meaning = "size of each log flush (`log_flush_start.write_size`). 512 B flushes: one per small commit; 60 KB: a full log buffer",
            PromQL = "share of single-sector flushes: `sum by (sqlserver_database_name) (rate(sqlserver_log_flush_write_size_bytes_bucket{le=\"512\"}[5m])) / sum by (sqlserver_database_name) (rate(sqlserver_log_flush_write_size_bytes_count[5m]))`; flushes/s: `rate(sqlserver_log_flush_write_size_bytes_count[1m])`; median size: `histogram_quantile(0.5, sum by (le, sqlserver_database_name) (rate(sqlserver_log_flush_write_size_bytes_bucket[5m])))`",
        },
        new()
        {
            Name = "sqlserver.log.flush.duration", Unit = "s", Kind = MetricKind.Histogram, IsInteger = false, Attributes = InstDb,
            Measure = EventMeasure.FlushDuration, Buckets = DurationBuckets, ExponentialMaxScale = DurationScale, Section = MetricSection.Events,
            Description = "Duration of each log flush (log_flush_complete duration).",
            Meaning = "duration of each flush: the time from its `log_flush_start` to its `log_flush_complete` (paired on `database_id` and `log_block_id`, 100 ns resolution); only a complete whose start was not seen uses the event's `duration` field (milliseconds unless the pairs or the catalog say otherwise; docs/sqlserver.md, \"Flush latency: the pair\")",
            PromQL = "p95: `histogram_quantile(0.95, sum by (le, sqlserver_database_name) (rate(sqlserver_log_flush_duration_seconds_bucket[5m])))`",
        },
        new()
        {
            Name = "sqlserver.database.wait.duration", Unit = "s", Kind = MetricKind.Histogram, IsInteger = false, Attributes = InstDbWait,
            Measure = EventMeasure.WaitDuration, Buckets = DurationBuckets, ExponentialMaxScale = DurationScale, Section = MetricSection.Events,
            Description = "Duration of each completed wait attributed to a database by wait events (WRITELOG: a commit waiting for its log flush).",
            Meaning = "each completed wait attributed to a database by wait events (`wait_completed` / `wait_info` end); WRITELOG is a commit waiting for its flush",
            PromQL = "WRITELOG p95 per database: `histogram_quantile(0.95, sum by (le, sqlserver_database_name) (rate(sqlserver_database_wait_duration_seconds_bucket{wait_type=\"WRITELOG\"}[5m])))`",
        },

        new()
        {
            Name = "sqlserver.database.writelog.application.time", Unit = "s", Kind = MetricKind.Counter, IsInteger = false, Attributes = InstDbApp, Section = MetricSection.Events,
            Description = "WRITELOG wait time by client application (the wait events' client_app_name action): the top 5 applications per database by WRITELOG time over the last 10 minutes, chosen again every 5 minutes, and 'other'.",
            Meaning = "WRITELOG time by client application: the wait events' `sqlserver.client_app_name` action. Per database at most the top 5 applications (by WRITELOG time over the last two 5-minute windows of event time, chosen again every 5 minutes; the first five to wait fill free slots at once) and `other` (every other application, waits without an application, past 64 applications tracked per database); cumulative, each series counts the time while its application was chosen. Stream mode and replay only: histogram mode has no per-event data and no series",
            PromQL = "who waits: `topk(5, sum by (sqlserver_database_name, sqlserver_application_name) (rate(sqlserver_database_writelog_application_time_seconds_total[5m])))`",
        },
        new()
        {
            Name = "sqlserver.database.writelog.application.waits", Unit = "{wait}", Kind = MetricKind.Counter, IsInteger = true, Attributes = InstDbApp, Section = MetricSection.Events,
            Description = "WRITELOG waits by client application, the same top 5 and 'other' per database as sqlserver.database.writelog.application.time.",
            Meaning = "WRITELOG waits counted by the same applications (top 5 and `other`); the time's rate over this one's is the application's average WRITELOG wait",
            PromQL = "average wait per application: `rate(sqlserver_database_writelog_application_time_seconds_total[5m]) / rate(sqlserver_database_writelog_application_waits_total[5m])`",
        },
        new()
        {
            Name = "sqlserver.database.writelog.statement.time", Unit = "s", Kind = MetricKind.Counter, IsInteger = false, Attributes = InstDbStatement, Section = MetricSection.Events,
            Description = "WRITELOG wait time by statement (the wait events' query_hash action): the top 5 query hashes per database by WRITELOG time over the last 10 minutes, chosen again every 5 minutes, and 'other'. The statement's text is never a label: analyze, report, check and the log show it.",
            Meaning = "WRITELOG time by statement: the wait events' `sqlserver.query_hash` action, labelled `sqlserver_query_hash` as `0x` and 16 hex digits (the way SQL Server shows `query_hash binary(8)` in `sys.query_store_query`). Per database at most the top 5 statements, chosen like the applications (the last two 5-minute windows of event time; the first five to wait fill free slots at once), and `other` (every other statement, waits of tasks without a statement hash (0), past 64 statements tracked per database); cumulative, each series counts the time while its statement was chosen. The text of a statement never becomes a label: the log's summary, `analyze`, `report` and `check` show its first 200 characters from Query Store (`Sources:SqlServer:StatementText`). Stream mode and replay only",
            PromQL = "which statements wait: `topk(5, sum by (sqlserver_database_name, sqlserver_query_hash) (rate(sqlserver_database_writelog_statement_time_seconds_total{sqlserver_query_hash!=\"other\"}[5m])))`",
        },
        new()
        {
            Name = "sqlserver.database.writelog.statement.waits", Unit = "{wait}", Kind = MetricKind.Counter, IsInteger = true, Attributes = InstDbStatement, Section = MetricSection.Events,
            Description = "WRITELOG waits by statement, the same top 5 query hashes and 'other' per database as sqlserver.database.writelog.statement.time.",
            Meaning = "WRITELOG waits counted by the same statements (top 5 and `other`); the time's rate over this one's is the statement's average WRITELOG wait: a commit of that statement",
            PromQL = "average wait per statement: `rate(sqlserver_database_writelog_statement_time_seconds_total[5m]) / rate(sqlserver_database_writelog_statement_waits_total[5m])`",
        },
    ];

    /// <summary>
    /// The commit budget (where commit time goes), filled by the aggregation from the events and the polled signals
    /// (<see cref="Aggregation.CommitBudgets"/>).
    /// </summary>
    internal static IReadOnlyList<MetricDefinition> CommitFamilies { get; } =
    [
        new()
        {
            Name = "sqlserver.commit.wait.time", Unit = "s", Kind = MetricKind.Counter, IsInteger = false, Attributes = [Instance, Database, Part], Section = MetricSection.CommitTime,
            Description = "Time the database's commits (and the log writes before them) waited, by part: local_flush, io_governance_queue, sync_replica, logbuffer, log_rate_governor, pool_log_rate_governor, instance_log_rate_governor, log_rate_feedback, hyperscale_log_rate; increase since monitoring began.",
            Meaning = "the commit budget: time the database's commits and the log writes before them waited, split by `part` (a fixed list; docs/sqlserver.md, \"Where commit time goes\", names each part's source). `local_flush`: WRITELOG (wait events, else `Log Flush Wait Time`) less the I/O-governance queue; `io_governance_queue`: WRITELOG times the share of the log file's write stall I/O governance queued in the last poll (`io_stall_queued_write_ms` / `io_stall_write_ms`); `sync_replica`: HADR_SYNC_COMMIT (events, else Database Replica `Transaction Delay`); `logbuffer`: LOGBUFFER; `log_rate_governor`, `pool_log_rate_governor`, `instance_log_rate_governor`: the log-rate governor's forms; `log_rate_feedback`: HADR_THROTTLE_LOG_RATE_*; `hyperscale_log_rate`: RBIO_RG_* (events, or on Azure SQL Database its own wait stats). A part has a series once a source reads it for the database. A part only the instance's `sys.dm_os_wait_stats` knows (no events per database) is not here: see `sqlserver.wait.time`",
            PromQL = "per commit, by part (a stacked panel): `sum by (sqlserver_instance_name, sqlserver_database_name, part) (rate(sqlserver_commit_wait_time_seconds_total[5m])) / on (sqlserver_instance_name, sqlserver_database_name) group_left sqlserver_database:commit_waits:rate5m`; the largest part: `topk by (sqlserver_instance_name, sqlserver_database_name) (1, rate(sqlserver_commit_wait_time_seconds_total[5m]))`",
        },
    ];

    /// <summary>The monitor's figures of the events (received, lost, held against the server's own), filled by the aggregation.</summary>
    internal static IReadOnlyList<MetricDefinition> EventMonitorFamilies { get; } =
    [
        new()
        {
            Name = "sqlserver.monitor.events", Unit = "{event}", Kind = MetricKind.Counter, IsInteger = true, Attributes = Inst, Section = MetricSection.Monitor,
            Description = "Log-flush and wait events that reached the aggregation.",
            Meaning = "log-flush and wait events that reached the aggregation",
            PromQL = "`rate(sqlserver_monitor_events_total[1m])`",
        },
        new()
        {
            Name = "sqlserver.monitor.events.lost", Unit = "{event}", Kind = MetricKind.Counter, IsInteger = true, Attributes = [Instance, MetricAttributes.LossKind], Section = MetricSection.Monitor,
            Description = "Events lost before the aggregation, by loss.kind: sequence_gap (event_sequence gaps), channel_full (the pipeline was behind), server_dropped (the server's own count), malformed (unreadable input, and polled values refused as impossible).",
            Meaning = "events lost before the aggregation: `sequence_gap` (gaps in `event_sequence`: lost between server and us), `channel_full` (our pipeline was behind), `server_dropped` (the server's own count), `malformed` (unreadable input lines or records; a live-stream row of an unknown type or that cannot be decoded, skipped; an `event_sequence` value that is damaged: a jump no session makes in the time since the highest number, or a number seen again — counted here, not as `sequence_gap`; polled values refused as impossible, see \"Cumulative values read from the server\")",
            PromQL = "`sum by (sqlserver_instance_name, loss_kind) (rate(sqlserver_monitor_events_lost_total[5m])) > 0`",
        },
        new()
        {
            Name = "sqlserver.monitor.events.unlisted", Unit = "{event}", Kind = MetricKind.Counter, IsInteger = true, Attributes = Inst, Section = MetricSection.Monitor,
            Description = "Log-flush and WRITELOG events (and histogram bucket counts) of a database_id no database list of the instance names: the engine's hidden databases, whose counters are not polled; left out of the agreement.",
            Meaning = "events whose `database_id` is no database `sys.databases` (or the session's selection) lists: the engine's hidden databases (`model_msdb`, `model_replicatedmaster` in a Linux container, `mssqlsystemresource`; their ids are undocumented and pass the session's `database_id > 4`), whose counters the monitor does not poll. Counted here, kept under their `id:N` database, and left out of the agreement, which compares only databases both sides list. A database created since the last poll counts here until the next poll names it. `check --capture` records the ids of the hidden databases a server shows",
            PromQL = "`rate(sqlserver_monitor_events_unlisted_total[5m]) > 0`",
        },
        new()
        {
            Name = "sqlserver.monitor.agreement", Unit = "1", Kind = MetricKind.Gauge, IsInteger = false, Attributes = [Instance, MetricAttributes.Quantity], Section = MetricSection.Monitor,
            Description = "Per instance and quantity (flushes, flushed_bytes, writelog_time, flush_wait_time): the events' figure over the server's own (Log Flushes/sec, Log Bytes Flushed/sec, WRITELOG wait_time_ms, Log Flush Wait Time) in the last window of several polls that could be compared; 1 means they agree.",
            Meaning = "the events' figure over the server's own, per `quantity`: `flushes` (log_flush_start events against `Log Flushes/sec`), `flushed_bytes` (their `write_size` sum against `Log Bytes Flushed/sec`), `writelog_time` (WRITELOG wait events' durations against `sys.dm_os_wait_stats` WRITELOG `wait_time_ms`, which is instance-wide: below 1 is expected when the session filters databases), `flush_wait_time` (the same durations against `Log Flush Wait Time`; only a factor of 1,000 is judged), over windows of at least 4 polls; absent until a window saw enough (200 flushes, 256 KiB, 1 s of waiting). Expected below 1: lost events (counted in `sqlserver.monitor.events.lost`, and allowed for in the verdict) and, for `writelog_time`, waits of databases outside the session's filter. Both sides count the same databases, those the event session watches: the counters are summed over tempdb and the watched user databases, never `_Total` (which includes the engine's hidden databases), and master, model and msdb only once events of theirs arrived (the session's predicate `database_id = 2 OR database_id > 4` leaves them out unless `IncludeDatabases` names them; on a real idle server they flush ten times more than tempdb); the events leave out those of a database no list names (`sqlserver.monitor.events.unlisted`). With an instance-wide histogram target, which may count hidden databases, a surplus up to what `_Total` counted beyond the listed databases is no disagreement. A disagreement that lasts 3 windows is logged once (event 322) and shown in /readyz (degraded); a clean factor of 1,000 in a wait figure corrects the wait duration unit (event 324)",
            PromQL = "`abs(sqlserver_monitor_agreement_ratio{quantity=\"flushes\"} - 1) > 0.1`",
        },
    ];

    /// <summary>The monitor's own health, read by <see cref="LogFlushMetrics"/> from the health registries.</summary>
    internal static IReadOnlyList<MetricDefinition> HealthFamilies { get; } =
    [
        new()
        {
            Name = "sqlserver.monitor.up", Unit = "{status}", Kind = MetricKind.Gauge, IsInteger = true, Attributes = InstComponent, Section = MetricSection.Monitor,
            ObserveLong = m => [.. m.Health.Components().Select(c => new Measurement<long>(c.Up ? 1 : 0, ComponentTags(c.Instance, c.Component)))],
            Description = "1 while a source component of the instance (poller, stream, session) works, 0 after it failed.",
            Meaning = "1 while the component works, 0 after it failed. A live stream works once the server answered its request or the request has waited 10 s without an error (an idle instance sends no event for hours and stays 1 after a reconnect). The simulated and replayed sources report `stream` (events) and `poller` (polled rows) per instance too, at most once a second, with `last_success` and `collection.mode`",
            PromQL = "`min by (sqlserver_instance_name) (sqlserver_monitor_up) == 0`",
        },
        new()
        {
            Name = "sqlserver.monitor.last_success", Unit = "s", Kind = MetricKind.Gauge, IsInteger = false, Attributes = InstComponent, Section = MetricSection.Monitor,
            ObserveDouble = m => [.. m.Health.Components().Where(c => c.LastSuccessUtc is not null)
                .Select(c => new Measurement<double>(c.LastSuccessUtc!.Value.ToUnixTimeMilliseconds() / 1000.0, ComponentTags(c.Instance, c.Component)))],
            Description = "When a source component of the instance last succeeded, seconds since the Unix epoch.",
            Meaning = "last success, Unix seconds",
            PromQL = "staleness: `time() - sqlserver_monitor_last_success_seconds > 120`",
        },
        new()
        {
            Name = "sqlserver.monitor.errors", Unit = "{error}", Kind = MetricKind.Counter, IsInteger = true, Attributes = [Instance, Component, ErrorType], Section = MetricSection.Monitor,
            ObserveLong = m => [.. m.Health.ErrorCounts().Select(e => new Measurement<long>(e.Count,
                new(Instance, e.Instance), new(Component, e.Component), new(ErrorType, e.Error)))],
            Description = "Errors of a source component by error.type (login_failed, permission, timeout, disconnected, ...).",
            Meaning = "errors by kind",
            PromQL = "`sum by (sqlserver_instance_name, error_type) (increase(sqlserver_monitor_errors_total[15m]))`",
        },
        new()
        {
            Name = "sqlserver.monitor.collection.mode", Unit = "{mode}", Kind = MetricKind.Gauge, IsInteger = true, Attributes = [Instance, Mode], Section = MetricSection.Monitor,
            ObserveLong = m => [.. m.Health.Modes().Select(c => new Measurement<long>(1, new(Instance, c.Instance), new(Mode, c.Mode)))],
            Description = "1 for the collection mode the instance uses now (mode=stream or mode=histogram).",
            Meaning = "1 for the mode in use",
            PromQL = "`sqlserver_monitor_collection_mode{mode=\"histogram\"} == 1`",
        },
        new()
        {
            Name = "sqlserver.monitor.fallbacks", Unit = "{fallback}", Kind = MetricKind.Counter, IsInteger = true, Attributes = Inst, Section = MetricSection.Monitor,
            ObserveLong = m => [.. m.Health.FallbackCounts().Select(f => new Measurement<long>(f.Count, new KeyValuePair<string, object?>(Instance, f.Instance)))],
            Description = "Times an instance fell back from streaming events to the server-side histogram by itself (repeated error 25726).",
            Meaning = "automatic fallbacks from streaming to the server-side histogram (repeated error 25726)",
            PromQL = "`increase(sqlserver_monitor_fallbacks_total[1h]) > 0`",
        },
        new()
        {
            Name = "sqlserver.monitor.export.failures", Unit = "{export}", Kind = MetricKind.Counter, IsInteger = true, Attributes = [Exporter, ErrorType], Section = MetricSection.Monitor,
            ObserveLong = m => [.. m.Exports.FailureCounts().Select(f => new Measurement<long>(f.Count, new(Exporter, f.Exporter), new(ErrorType, f.Reason)))],
            Description = "Metric exports that failed, by exporter (otlp) and error.type (unreachable, timeout, http_<status>, grpc_<status>, failed).",
            Meaning = "metric pushes that failed: `unreachable` (nothing listens, no route, name not resolved), `timeout` (no answer within `Exporters:Otlp:Timeout`), `http_<status>` (e.g. `http_503`), `grpc_<status>` (a gRPC error status, e.g. `grpc_14` unavailable), `failed` (anything else). Each failure is also logged, at most once a minute with the count in between. A scrape (pull) has no failures of its own here: Prometheus records those in `up`",
            PromQL = "`increase(sqlserver_monitor_export_failures_total[15m]) > 0` (read it through Prometheus: a collector that gets nothing cannot tell you)",
        },
        new()
        {
            Name = "sqlserver.monitor.attributes.truncated", Unit = "{value}", Kind = MetricKind.Counter, IsInteger = true, Attributes = [], Section = MetricSection.Monitor,
            ObserveLong = _ => [new Measurement<long>(MetricAttributes.Truncated)],
            Description = $"Attribute values (instance, database, wait type, counter names) cut to {MaxValueLength} characters because they were longer.",
            Meaning = $"attribute values cut to {MaxValueLength} characters because they were longer (each time a name becomes an attribute of a new series)",
            PromQL = "`sqlserver_monitor_attributes_truncated_total > 0`: a source hands names no SQL Server has",
        },
        new()
        {
            Name = "sqlserver.monitor.series.overflow", Unit = "{series}", Kind = MetricKind.Gauge, IsInteger = true, Attributes = [MetricName], Section = MetricSection.Monitor,
            ObserveLong = m => m.Overflows(),
            Description = "Series of a metric (metric.name) beyond the series limit (Exporters:CardinalityLimit): they are folded into one series labelled otel_metric_overflow=\"true\" and their databases cannot be told apart.",
            Meaning = "series of the metric named by `metric.name` beyond the series limit (`Exporters:CardinalityLimit`), highest since start: the SDK folds them into one series labelled `otel_metric_overflow=\"true\"`, so those databases are not visible one by one. Each metric that overflows is also logged once with the limit and the setting to change. Absent while nothing overflows",
            PromQL = "`max by (instance, metric_name) (sqlserver_monitor_series_overflow) > 0` (alert `LogFlushMonitorSeriesOverflow`)",
        },
    ];

    /// <summary>
    /// Every family, section by section (<see cref="MetricSection"/>): within a section the events' first, then each
    /// signal's in the order of <see cref="SignalRegistry.All"/>, then the monitor's. The order the instruments are
    /// created and exported in.
    /// </summary>
    public static IReadOnlyList<MetricDefinition> All { get; } = Number();

    /// <summary>The family named <paramref name="name"/>.</summary>
    /// <exception cref="KeyNotFoundException">When no family has that name.</exception>
    public static MetricDefinition Get(string name) =>
        All.FirstOrDefault(f => f.Name == name) ?? throw new KeyNotFoundException($"No metric family is named '{name}'.");

    private static MetricDefinition[] Number()
    {
        foreach (var signal in SignalRegistry.All)
        {
            foreach (var family in signal.Families)
            {
                family.Owner = signal;
            }
        }

        MetricDefinition[] families = [.. EventFamilies.Concat(CommitFamilies).Concat(SignalRegistry.All.SelectMany(s => s.Families)).Concat(EventMonitorFamilies).Concat(HealthFamilies)
            .Select((f, i) => (Family: f, Order: i)).OrderBy(f => f.Family.Section).ThenBy(f => f.Order).Select(f => f.Family)];
        for (var i = 0; i < families.Length; i++)
        {
            families[i].Index = i;
        }

        return families;
    }

    private static KeyValuePair<string, object?>[] ComponentTags(string instance, string component) =>
        [new(Instance, instance), new(Component, component)];
}
