using LogFlushMonitor.Core.Samples;
using static LogFlushMonitor.Core.Metrics.MetricAttributes;

namespace LogFlushMonitor.Core.Metrics;

/// <summary>
/// Every metric family the monitor exports on its Meter, once: name, UCUM unit, kind, description, the domain state it
/// reads and its documentation. <see cref="LogFlushMetrics"/> creates the instruments from this list (in this order,
/// which is the order of the exposition); the aggregation groups its series by these families as it creates them; the
/// tables of docs/metrics.md are generated from it (MetricsDocumentationTests fails when they differ). Adding a metric
/// over state the aggregation keeps is one entry here; over a counter of the Databases object, one entry naming the
/// counter (it is then polled by default too).
/// </summary>
public static class MetricCatalog
{
    private static readonly string[] Inst = [Instance];
    private static readonly string[] InstDb = [Instance, Database];
    private static readonly string[] InstDbWait = [Instance, Database, WaitType];
    private static readonly string[] InstDbApp = [Instance, Database, Application];
    private static readonly string[] InstDbCounter = [Instance, Database, CounterObject, CounterName];
    private static readonly string[] InstCounter = [Instance, CounterObject, CounterName];
    private static readonly string[] InstWait = [Instance, WaitType];
    private static readonly string[] InstComponent = [Instance, Component];
    private static readonly string[] InstDbReplica = [Instance, Database, AvailabilityGroup, Replica, ReplicaRole, AvailabilityMode];

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

    /// <summary>Every family, in the order the instruments are created and exported.</summary>
    public static IReadOnlyList<MetricDefinition> All { get; } = Number(
    [
        // Per event: recorded by the aggregation outside its lock.
        new()
        {
            Name = "sqlserver.log.flush.write_size", Unit = "By", Kind = MetricKind.Histogram, IsInteger = true, Attributes = InstDb,
            Source = new EventSource(EventMeasure.FlushWriteSize), Buckets = WriteSizeBuckets, ExponentialMaxScale = WriteSizeScale, Section = MetricSection.Events,
            Description = "Size of each log flush (log_flush_start write_size): 512 B flushes mean one flush per small commit, 60 KB ones a full log buffer.",
            Meaning = "size of each log flush (`log_flush_start.write_size`). 512 B flushes: one per small commit; 60 KB: a full log buffer",
            PromQL = "share of single-sector flushes: `sum by (sqlserver_database_name) (rate(sqlserver_log_flush_write_size_bytes_bucket{le=\"512\"}[5m])) / sum by (sqlserver_database_name) (rate(sqlserver_log_flush_write_size_bytes_count[5m]))`; flushes/s: `rate(sqlserver_log_flush_write_size_bytes_count[1m])`; median size: `histogram_quantile(0.5, sum by (le, sqlserver_database_name) (rate(sqlserver_log_flush_write_size_bytes_bucket[5m])))`",
        },
        new()
        {
            Name = "sqlserver.log.flush.duration", Unit = "s", Kind = MetricKind.Histogram, IsInteger = false, Attributes = InstDb,
            Source = new EventSource(EventMeasure.FlushDuration), Buckets = DurationBuckets, ExponentialMaxScale = DurationScale, Section = MetricSection.Events,
            Description = "Duration of each log flush (log_flush_complete duration).",
            Meaning = "duration of each flush: the time from its `log_flush_start` to its `log_flush_complete` (paired on `database_id` and `log_block_id`, 100 ns resolution); only a complete whose start was not seen uses the event's `duration` field (milliseconds unless the pairs or the catalog say otherwise; docs/sqlserver.md, \"Flush latency: the pair\")",
            PromQL = "p95: `histogram_quantile(0.95, sum by (le, sqlserver_database_name) (rate(sqlserver_log_flush_duration_seconds_bucket[5m])))`",
        },
        new()
        {
            Name = "sqlserver.database.wait.duration", Unit = "s", Kind = MetricKind.Histogram, IsInteger = false, Attributes = InstDbWait,
            Source = new EventSource(EventMeasure.WaitDuration), Buckets = DurationBuckets, ExponentialMaxScale = DurationScale, Section = MetricSection.Events,
            Description = "Duration of each completed wait attributed to a database by wait events (WRITELOG: a commit waiting for its log flush).",
            Meaning = "each completed wait attributed to a database by wait events (`wait_completed` / `wait_info` end); WRITELOG is a commit waiting for its flush",
            PromQL = "WRITELOG p95 per database: `histogram_quantile(0.95, sum by (le, sqlserver_database_name) (rate(sqlserver_database_wait_duration_seconds_bucket{wait_type=\"WRITELOG\"}[5m])))`",
        },

        new()
        {
            Name = "sqlserver.database.writelog.application.time", Unit = "s", Kind = MetricKind.Counter, IsInteger = false, Attributes = InstDbApp, Section = MetricSection.Events,
            Source = new AggregationSource(AggregationFact.WriteLogApplicationTime),
            Description = "WRITELOG wait time by client application (the wait events' client_app_name action): the top 5 applications per database by WRITELOG time over the last 10 minutes, chosen again every 5 minutes, and 'other'.",
            Meaning = "WRITELOG time by client application: the wait events' `sqlserver.client_app_name` action. Per database at most the top 5 applications (by WRITELOG time over the last two 5-minute windows of event time, chosen again every 5 minutes; the first five to wait fill free slots at once) and `other` (every other application, waits without an application, past 64 applications tracked per database); cumulative, each series counts the time while its application was chosen. Stream mode and replay only: histogram mode has no per-event data and no series",
            PromQL = "who waits: `topk(5, sum by (sqlserver_database_name, sqlserver_application_name) (rate(sqlserver_database_writelog_application_time_seconds_total[5m])))`",
        },
        new()
        {
            Name = "sqlserver.database.writelog.application.waits", Unit = "{wait}", Kind = MetricKind.Counter, IsInteger = true, Attributes = InstDbApp, Section = MetricSection.Events,
            Source = new AggregationSource(AggregationFact.WriteLogApplicationWaits),
            Description = "WRITELOG waits by client application, the same top 5 and 'other' per database as sqlserver.database.writelog.application.time.",
            Meaning = "WRITELOG waits counted by the same applications (top 5 and `other`); the time's rate over this one's is the application's average WRITELOG wait",
            PromQL = "average wait per application: `rate(sqlserver_database_writelog_application_time_seconds_total[5m]) / rate(sqlserver_database_writelog_application_waits_total[5m])`",
        },

        // Performance counters of the Databases object, by cntr_type.
        Counter("sqlserver.log.flushes", "{flush}", DatabasesCounters.LogFlushes, UnitScale.None,
            "Log flushes counted by the server (Log Flushes/sec, cumulative), increase since monitoring began.",
            "log flushes (`Log Flushes/sec`)", "`rate(sqlserver_log_flushes_total[1m])`"),
        Counter("sqlserver.log.flushed.bytes", "By", DatabasesCounters.LogBytesFlushed, UnitScale.None,
            "Bytes of log flushed (Log Bytes Flushed/sec, cumulative), increase since monitoring began.",
            "bytes flushed (`Log Bytes Flushed/sec`)", "`rate(sqlserver_log_flushed_bytes_total[1m])`; average flush size: that divided by the flushes' rate"),
        Counter("sqlserver.log.flush.waits", "{commit}", DatabasesCounters.LogFlushWaits, UnitScale.None,
            "Commits that waited for a log flush (Log Flush Waits/sec, cumulative), increase since monitoring began.",
            "commits that waited for a flush (`Log Flush Waits/sec`)", "`rate(sqlserver_log_flush_waits_total[1m])`"),
        Counter("sqlserver.log.flush.wait.time", "s", DatabasesCounters.LogFlushWaitTime, UnitScale.MillisecondsToSeconds,
            "Time commits waited for log flushes (Log Flush Wait Time, cumulative milliseconds on the server), increase since monitoring began.",
            "time commits waited (`Log Flush Wait Time`, cumulative ms on the server)",
            "average wait per waiting commit: `rate(sqlserver_log_flush_wait_time_seconds_total[5m]) / rate(sqlserver_log_flush_waits_total[5m])`"),
        Point("sqlserver.log.usage", "1", DatabasesCounters.PercentLogUsed, UnitScale.PercentToRatio, CounterScope.Database,
            "Fraction of the log file in use (Percent Log Used / 100).",
            "fraction of the log in use (`Percent Log Used` / 100)", "`sqlserver_log_usage_ratio > 0.8`"),
        Point("sqlserver.log.used.size", "By", DatabasesCounters.LogUsedSize, UnitScale.KilobytesToBytes, CounterScope.Database,
            "Log space in use (Log File(s) Used Size (KB) x 1024).",
            "log space in use (`Log File(s) Used Size (KB)` × 1024)", "`sqlserver_log_used_size_bytes / sqlserver_log_size_bytes`"),
        Point("sqlserver.log.size", "By", DatabasesCounters.LogSize, UnitScale.KilobytesToBytes, CounterScope.Database,
            "Size of the log files (Log File(s) Size (KB) x 1024).",
            "size of the log files (`Log File(s) Size (KB)` × 1024)", "growth over a day: `delta(sqlserver_log_size_bytes[1d])`"),
        Other("sqlserver.performance.total", MetricKind.Counter, "{value}", CounterArithmetic.Cumulative, CounterScope.Database,
            "Any other cumulative (BULK_COUNT) counter polled, increase since monitoring began, in the counter's own unit.",
            "any other BULK_COUNT counter polled, in the counter's own unit (only counters opted in with `Sources:SqlServer:Counters`)",
            "`rate(sqlserver_performance_total{sqlserver_counter_name=\"...\"}[1m])`"),
        Other("sqlserver.performance.value", MetricKind.Gauge, "{value}", CounterArithmetic.PointValue, CounterScope.Database,
            "Any other point-value (RAWCOUNT) counter polled, in the counter's own unit.",
            "any other point-value counter (LARGE_RAWCOUNT / RAWCOUNT), in its own unit",
            "`sqlserver_performance_value{sqlserver_counter_name=\"Log Flush Write Time (ms)\"}`"),
        Other("sqlserver.performance.fraction", MetricKind.Gauge, "1", CounterArithmetic.Fraction, CounterScope.Database,
            "Any fraction counter polled (RAW_FRACTION / its base), e.g. Log Cache Hit Ratio, as 0..1.",
            "a RAW_FRACTION counter divided by its base, e.g. `Log Cache Hit Ratio`, 0..1",
            "`sqlserver_performance_fraction_ratio{sqlserver_counter_name=\"Log Cache Hit Ratio\"}`"),
        Other("sqlserver.performance.average", MetricKind.Gauge, "{value}", CounterArithmetic.Average, CounterScope.Database,
            "Any average counter polled (AVERAGE_BULK): delta value / delta base over the last poll interval.",
            "an AVERAGE_BULK counter: Δvalue / Δbase over the last poll interval, in its own unit",
            "`sqlserver_performance_average{sqlserver_counter_name=\"...\"}`"),

        // The same counters' _Total instance: the whole SQL Server instance, its internal databases included, so its own
        // families rather than a database name a sum over databases would count twice.
        Counter("sqlserver.instance.log.flushes", "{flush}", DatabasesCounters.LogFlushes, UnitScale.None,
            "Log flushes of the whole instance, internal databases included (Log Flushes/sec of _Total), increase since monitoring began.",
            "log flushes of the whole instance",
            "flushes outside the watched databases: `sum by (sqlserver_instance_name) (rate(sqlserver_instance_log_flushes_total[5m])) - sum by (sqlserver_instance_name) (rate(sqlserver_log_flushes_total[5m]))`",
            CounterScope.Instance),
        Counter("sqlserver.instance.log.flushed.bytes", "By", DatabasesCounters.LogBytesFlushed, UnitScale.None,
            "Bytes of log flushed by the whole instance (Log Bytes Flushed/sec of _Total), increase since monitoring began.",
            "bytes flushed", "`rate(sqlserver_instance_log_flushed_bytes_total[1m])`", CounterScope.Instance),
        Counter("sqlserver.instance.log.flush.waits", "{commit}", DatabasesCounters.LogFlushWaits, UnitScale.None,
            "Commits of the whole instance that waited for a log flush (Log Flush Waits/sec of _Total), increase since monitoring began.",
            "commits that waited for a flush", "`rate(sqlserver_instance_log_flush_waits_total[1m])`", CounterScope.Instance),
        Counter("sqlserver.instance.log.flush.wait.time", "s", DatabasesCounters.LogFlushWaitTime, UnitScale.MillisecondsToSeconds,
            "Time commits of the whole instance waited for log flushes (Log Flush Wait Time of _Total), increase since monitoring began.",
            "time commits waited (`Log Flush Wait Time`, ms on the server)", "`rate(sqlserver_instance_log_flush_wait_time_seconds_total[5m])`", CounterScope.Instance),
        Point("sqlserver.instance.log.used.size", "By", DatabasesCounters.LogUsedSize, UnitScale.KilobytesToBytes, CounterScope.Instance,
            "Log space in use on the whole instance (Log File(s) Used Size (KB) of _Total x 1024).",
            "log space in use, all databases", "`sqlserver_instance_log_used_size_bytes / sqlserver_instance_log_size_bytes`"),
        Point("sqlserver.instance.log.size", "By", DatabasesCounters.LogSize, UnitScale.KilobytesToBytes, CounterScope.Instance,
            "Size of all log files of the instance (Log File(s) Size (KB) of _Total x 1024).",
            "size of all log files", "`delta(sqlserver_instance_log_size_bytes[1d])`"),
        Other("sqlserver.instance.performance.total", MetricKind.Counter, "{value}", CounterArithmetic.Cumulative, CounterScope.Instance,
            "_Total of any other cumulative counter polled, increase since monitoring began, in the counter's own unit.",
            "`_Total` of an opted-in BULK_COUNT counter", "`rate(sqlserver_instance_performance_total{sqlserver_counter_name=\"Transactions/sec\"}[1m])`"),
        Other("sqlserver.instance.performance.value", MetricKind.Gauge, "{value}", CounterArithmetic.PointValue, CounterScope.Instance,
            "_Total of any other point-value counter polled, in the counter's own unit.", "`_Total` of an opted-in point value", ""),
        Other("sqlserver.instance.performance.fraction", MetricKind.Gauge, "1", CounterArithmetic.Fraction, CounterScope.Instance,
            "_Total of any fraction counter polled (RAW_FRACTION / its base), as 0..1.", "`_Total` of an opted-in fraction, 0..1", ""),
        Other("sqlserver.instance.performance.average", MetricKind.Gauge, "{value}", CounterArithmetic.Average, CounterScope.Instance,
            "_Total of any average counter polled (AVERAGE_BULK): delta value / delta base over the last poll interval.", "`_Total` of an opted-in average", ""),

        // sys.dm_os_wait_stats, instance-wide.
        new()
        {
            Name = "sqlserver.wait.tasks", Unit = "{task}", Kind = MetricKind.Counter, IsInteger = true, Attributes = InstWait, Section = MetricSection.WaitStats,
            Source = new WaitStatsSource(WaitStatsColumn.WaitingTasksCount, UnitScale.None),
            Description = "Completed waits of the wait type on the instance (waiting_tasks_count), increase since monitoring began.",
            Meaning = "completed waits (`waiting_tasks_count`)",
            PromQL = "`rate(sqlserver_wait_tasks_total{wait_type=\"WRITELOG\"}[1m])`",
        },
        new()
        {
            Name = "sqlserver.wait.time", Unit = "s", Kind = MetricKind.Counter, IsInteger = false, Attributes = InstWait, Section = MetricSection.WaitStats,
            Source = new WaitStatsSource(WaitStatsColumn.WaitTimeMs, UnitScale.MillisecondsToSeconds),
            Description = "Time tasks waited on the wait type, signal wait included (wait_time_ms), increase since monitoring began.",
            Meaning = "time waited, signal wait included (`wait_time_ms`)",
            PromQL = "average WRITELOG wait: `rate(sqlserver_wait_time_seconds_total{wait_type=\"WRITELOG\"}[5m]) / rate(sqlserver_wait_tasks_total{wait_type=\"WRITELOG\"}[5m])`",
        },
        new()
        {
            Name = "sqlserver.wait.signal.time", Unit = "s", Kind = MetricKind.Counter, IsInteger = false, Attributes = InstWait, Section = MetricSection.WaitStats,
            Source = new WaitStatsSource(WaitStatsColumn.SignalWaitTimeMs, UnitScale.MillisecondsToSeconds),
            Description = "Time between a wait being signalled and the task running (signal_wait_time_ms), increase since monitoring began.",
            Meaning = "signal wait (`signal_wait_time_ms`): CPU pressure rather than I/O",
            PromQL = "share of WRITELOG wait that is signal wait: `rate(sqlserver_wait_signal_time_seconds_total{wait_type=\"WRITELOG\"}[5m]) / rate(sqlserver_wait_time_seconds_total{wait_type=\"WRITELOG\"}[5m])`",
        },

        // sys.dm_io_virtual_file_stats for log files, per database.
        new()
        {
            Name = "sqlserver.log.file.writes", Unit = "{write}", Kind = MetricKind.Counter, IsInteger = true, Attributes = InstDb, Section = MetricSection.FileStats,
            Source = new FileStatsSource(FileStatsColumn.NumOfWrites, UnitScale.None),
            Description = "Writes to the database's log files (num_of_writes), increase since monitoring began.",
            Meaning = "writes to the log files (`num_of_writes`)",
            PromQL = "`rate(sqlserver_log_file_writes_total[1m])`",
        },
        new()
        {
            Name = "sqlserver.log.file.written.bytes", Unit = "By", Kind = MetricKind.Counter, IsInteger = true, Attributes = InstDb, Section = MetricSection.FileStats,
            Source = new FileStatsSource(FileStatsColumn.NumOfBytesWritten, UnitScale.None),
            Description = "Bytes written to the database's log files (num_of_bytes_written), increase since monitoring began.",
            Meaning = "bytes written (`num_of_bytes_written`)",
            PromQL = "average bytes per log write: `rate(sqlserver_log_file_written_bytes_total[5m]) / rate(sqlserver_log_file_writes_total[5m])`",
        },
        new()
        {
            Name = "sqlserver.log.file.write.stall", Unit = "s", Kind = MetricKind.Counter, IsInteger = false, Attributes = InstDb, Section = MetricSection.FileStats,
            Source = new FileStatsSource(FileStatsColumn.IoStallWriteMs, UnitScale.MillisecondsToSeconds),
            Description = "Time spent waiting for writes to the database's log files (io_stall_write_ms); divide its rate by the writes' rate for the average write latency.",
            Meaning = "time waiting for log writes (`io_stall_write_ms`)",
            PromQL = "average log write latency: `rate(sqlserver_log_file_write_stall_seconds_total[5m]) / rate(sqlserver_log_file_writes_total[5m])` (over 0.010 s consistently is a bottleneck)",
        },

        // In flight now: what a stalled log device shows while every completed-only figure above stays flat.
        new()
        {
            Name = "sqlserver.log.flush.outstanding", Unit = "{flush}", Kind = MetricKind.Gauge, IsInteger = true, Attributes = InstDb, Section = MetricSection.InFlight,
            Source = new AggregationSource(AggregationFact.OutstandingFlushes),
            Description = "Log flushes started and not completed (log_flush_start without its log_flush_complete, paired on log_block_id as the events are read), per database; stream mode only, 0 when none.",
            Meaning = "log flushes started and not completed: a `log_flush_start` whose `log_flush_complete` (same `database_id` and `log_block_id`) has not arrived. Paired as the events are read, before the pipeline's channel (a complete dropped there cannot fake a stall). Stream mode, and the simulated and replayed sources; 0 for a database with events and nothing outstanding; absent in histogram mode (nothing pairs there: the waiters below cover it)",
            PromQL = "`max by (sqlserver_instance_name, sqlserver_database_name) (sqlserver_log_flush_outstanding)`",
        },
        new()
        {
            Name = "sqlserver.log.flush.outstanding.age", Unit = "s", Kind = MetricKind.Gauge, IsInteger = false, Attributes = InstDb, Section = MetricSection.InFlight,
            Source = new AggregationSource(AggregationFact.OutstandingFlushAge),
            Description = "How long ago the oldest outstanding log flush started, on the server's clock (0 when none): a start that never completes ages, it does not vanish.",
            Meaning = "how long ago the oldest of them started, when the metrics are read: a start that never completes ages, it does not vanish; 0 when none is outstanding (so the alert is a plain `>= 15`, and the panel a line at zero, not a gap). Measured on the server's clock as the events tell it (the newest event's time plus the local time since it arrived), so a skew between the server's clock and the monitor's does not show; a healthy flush in flight reads at most the session's dispatch latency (5 s)",
            PromQL = "`max by (sqlserver_instance_name, sqlserver_database_name) (sqlserver_log_flush_outstanding_age_seconds) >= 15`",
        },
        new()
        {
            Name = "sqlserver.database.writelog.waiting", Unit = "{session}", Kind = MetricKind.Gauge, IsInteger = true, Attributes = InstDb, Section = MetricSection.InFlight,
            Source = new AggregationSource(AggregationFact.WriteLogWaiting),
            Description = "Sessions waiting on WRITELOG now (sys.dm_os_waiting_tasks joined to sys.dm_exec_requests), per database, as of the last poll.",
            Meaning = "sessions waiting on WRITELOG now: `sys.dm_os_waiting_tasks` joined to `sys.dm_exec_requests` on `session_id` (the database is the request's), polled every `PollInterval` in every collection mode; 0 for a watched database where nobody waits",
            PromQL = "`sqlserver_database_writelog_waiting > 0`",
        },
        new()
        {
            Name = "sqlserver.database.writelog.longest_wait", Unit = "s", Kind = MetricKind.Gauge, IsInteger = false, Attributes = InstDb, Section = MetricSection.InFlight,
            Source = new AggregationSource(AggregationFact.WriteLogLongestWait),
            Description = "The longest current WRITELOG wait (wait_duration_ms) of those sessions, as of the last poll (0 when none waits).",
            Meaning = "the longest current wait of those sessions (`wait_duration_ms`) as of the last poll; 0 when nobody waits",
            PromQL = "`sqlserver_database_writelog_longest_wait_seconds >= 15`",
        },

        new()
        {
            Name = "sqlserver.database.log.writer.used", Unit = "By", Kind = MetricKind.Gauge, IsInteger = true, Attributes = InstDbApp, Section = MetricSection.InFlight,
            Source = new AggregationSource(AggregationFact.LogWriterBytesUsed),
            Description = "Log bytes used by open transactions (database_transaction_log_bytes_used) by program_name, per database, as of the last poll: the top 5 applications and 'other'.",
            Meaning = "the top log writers: log bytes used so far by open transactions (`sys.dm_tran_database_transactions.database_transaction_log_bytes_used`, joined through `sys.dm_tran_session_transactions` to `sys.dm_exec_sessions.program_name`), per database, polled every `PollInterval` in every mode. At most the 5 applications using the most and `other` (the rest, and sessions without a program name) per database, chosen again at each poll; no series for a database without open transactions that wrote log",
            PromQL = "`topk(5, sqlserver_database_log_writer_used_bytes)`",
        },
        new()
        {
            Name = "sqlserver.database.log.writer.reserved", Unit = "By", Kind = MetricKind.Gauge, IsInteger = true, Attributes = InstDbApp, Section = MetricSection.InFlight,
            Source = new AggregationSource(AggregationFact.LogWriterBytesReserved),
            Description = "Log bytes reserved by the same open transactions (database_transaction_log_bytes_reserved), as of the last poll.",
            Meaning = "log bytes reserved for the same transactions (`database_transaction_log_bytes_reserved`: room kept for a rollback), same applications",
            PromQL = "`sqlserver_database_log_writer_reserved_bytes`",
        },
        new()
        {
            Name = "sqlserver.database.log.writer.transactions", Unit = "{transaction}", Kind = MetricKind.Gauge, IsInteger = true, Attributes = InstDbApp, Section = MetricSection.InFlight,
            Source = new AggregationSource(AggregationFact.LogWriterTransactions),
            Description = "Open transactions that wrote or reserved log, by the same applications, as of the last poll.",
            Meaning = "open transactions of those applications that used or reserved log in the database",
            PromQL = "`sqlserver_database_log_writer_transactions`",
        },
        // Availability-group replicas: the remote half of a commit on a synchronous replica (HADR_SYNC_COMMIT waits for it).
        ReplicaGauge("sqlserver.replica.log_send_queue.size", "By", ReplicaColumn.LogSendQueueSize, UnitScale.KilobytesToBytes,
            "Log of the primary database not yet sent to this replica (sys.dm_hadr_database_replica_states log_send_queue_size, KB on the server).",
            "log of the primary database not yet sent to this secondary: `log_send_queue_size` (KB on the server, exported in bytes). A growing queue on a synchronous secondary means the network or the secondary cannot take the log as fast as it is written",
            "`max by (sqlserver_instance_name, sqlserver_database_name, sqlserver_replica_name) (sqlserver_replica_log_send_queue_size_bytes)`"),
        ReplicaGauge("sqlserver.replica.log_send.rate", "By/s", ReplicaColumn.LogSendRate, UnitScale.KilobytesToBytes,
            "Average rate at which the primary sent log to this replica in its last active period (log_send_rate, KB/s on the server).",
            "average rate the primary sent log to this secondary in its last active period: `log_send_rate` (KB/s on the server, exported in bytes/s); the server's own average, not a rate taken here",
            "seconds to drain the send queue: `sqlserver_replica_log_send_queue_size_bytes / sqlserver_replica_log_send_rate_bytes_per_second`"),
        ReplicaGauge("sqlserver.replica.redo_queue.size", "By", ReplicaColumn.RedoQueueSize, UnitScale.KilobytesToBytes,
            "Log hardened on the secondary and not yet redone (redo_queue_size, KB on the server).",
            "log hardened on the secondary and not yet redone: `redo_queue_size` (KB on the server, exported in bytes). It does not delay commits (the harden does), but it is the failover's recovery time and readable secondaries' staleness",
            "`sqlserver_replica_redo_queue_size_bytes / sqlserver_replica_redo_rate_bytes_per_second`"),
        ReplicaGauge("sqlserver.replica.redo.rate", "By/s", ReplicaColumn.RedoRate, UnitScale.KilobytesToBytes,
            "Average rate at which the secondary redoes log (redo_rate, KB/s on the server).",
            "average rate the secondary redoes log: `redo_rate` (KB/s on the server, exported in bytes/s)",
            "`sqlserver_replica_redo_rate_bytes_per_second`"),
        ReplicaGauge("sqlserver.replica.secondary.lag", "s", ReplicaColumn.SecondaryLag, UnitScale.None,
            "How far the secondary is behind the primary (secondary_lag_seconds; SQL Server 2016 and later, no series before).",
            "how far the secondary is behind the primary, in seconds: `secondary_lag_seconds`, read on SQL Server 2016 and later (the column does not exist on 2014: no series there, never a 0); NULL rows (the primary's own database) give no value",
            "`max by (sqlserver_instance_name, sqlserver_database_name, sqlserver_replica_name) (sqlserver_replica_secondary_lag_seconds)`"),
        ReplicaGauge("sqlserver.replica.last_hardened.age", "s", ReplicaColumn.LastHardenedAge, UnitScale.None,
            "Seconds since last_hardened_time, on the server's clock at the poll: how old the newest log this replica has hardened is.",
            "seconds from `last_hardened_time` to the server's clock at the poll (`DATEDIFF(SECOND, last_hardened_time, SYSDATETIME())`, both server-local): how old the newest log block this replica is known to have hardened is. On an idle database it grows with the idleness; read it with the send queue",
            "`sqlserver_replica_last_hardened_age_seconds > 30 and sqlserver_replica_log_send_queue_size_bytes > 0`"),
        new()
        {
            Name = "sqlserver.replica.transaction.delay", Unit = "s", Kind = MetricKind.Counter, IsInteger = false, Attributes = InstDb, Section = MetricSection.Replicas,
            Source = new CounterSource(DatabaseReplicaCounters.TransactionDelay, Cumulative: true, CounterScope.Database, UnitScale.MillisecondsToSeconds, DatabaseReplicaCounters.Object),
            Description = "Time commits waited for synchronous secondaries to acknowledge (Database Replica: Transaction Delay, cumulative milliseconds on the server), increase since monitoring began.",
            Meaning = "time commits on this primary database waited for the synchronous secondaries' acknowledgement: `Transaction Delay` of the `Database Replica` object (cumulative milliseconds on the server, exported in seconds); divided by the next one's increase it is the average remote-harden delay per transaction",
            PromQL = "average sync delay per transaction: `rate(sqlserver_replica_transaction_delay_seconds_total[5m]) / rate(sqlserver_replica_mirrored_write_transactions_total[5m])`",
        },
        new()
        {
            Name = "sqlserver.replica.mirrored_write.transactions", Unit = "{transaction}", Kind = MetricKind.Counter, IsInteger = true, Attributes = InstDb, Section = MetricSection.Replicas,
            Source = new CounterSource(DatabaseReplicaCounters.MirroredWriteTransactions, Cumulative: true, CounterScope.Database, UnitScale.None, DatabaseReplicaCounters.Object),
            Description = "Transactions that waited for the log to reach a synchronous secondary before committing (Database Replica: Mirrored Write Transactions/sec, cumulative), increase since monitoring began.",
            Meaning = "transactions written on this primary database that waited for the log to reach the secondary before committing: `Mirrored Write Transactions/sec` of the `Database Replica` object (a cumulative count despite the name)",
            PromQL = "`rate(sqlserver_replica_mirrored_write_transactions_total[5m])`",
        },

        // The instance and the monitor itself.
        new()
        {
            Name = "sqlserver.instance.start_time", Unit = "s", Kind = MetricKind.Gauge, IsInteger = false, Attributes = Inst, Section = MetricSection.Monitor,
            Source = new AggregationSource(AggregationFact.InstanceStartTime),
            Description = "When the instance started (sqlserver_start_time), seconds since the Unix epoch.",
            Meaning = "when the instance started (`sqlserver_start_time`), Unix seconds",
            PromQL = "uptime: `time() - sqlserver_instance_start_time_seconds`",
        },
        new()
        {
            Name = "sqlserver.instance.restarts", Unit = "{restart}", Kind = MetricKind.Counter, IsInteger = true, Attributes = Inst, Section = MetricSection.Monitor,
            Source = new AggregationSource(AggregationFact.InstanceRestarts),
            Description = "Instance restarts observed since monitoring began (a new sqlserver_start_time).",
            Meaning = "restarts observed (a new start time)",
            PromQL = "`increase(sqlserver_instance_restarts_total[1h]) > 0`",
        },
        new()
        {
            Name = "sqlserver.monitor.events", Unit = "{event}", Kind = MetricKind.Counter, IsInteger = true, Attributes = Inst, Section = MetricSection.Monitor,
            Source = new AggregationSource(AggregationFact.EventsReceived),
            Description = "Log-flush and wait events that reached the aggregation.",
            Meaning = "log-flush and wait events that reached the aggregation",
            PromQL = "`rate(sqlserver_monitor_events_total[1m])`",
        },
        new()
        {
            Name = "sqlserver.monitor.events.lost", Unit = "{event}", Kind = MetricKind.Counter, IsInteger = true, Attributes = [Instance, MetricAttributes.LossKind], Section = MetricSection.Monitor,
            Source = new AggregationSource(AggregationFact.EventsLost),
            Description = "Events lost before the aggregation, by loss.kind: sequence_gap (event_sequence gaps), channel_full (the pipeline was behind), server_dropped (the server's own count), malformed (unreadable input, and polled values refused as impossible).",
            Meaning = "events lost before the aggregation: `sequence_gap` (gaps in `event_sequence`: lost between server and us), `channel_full` (our pipeline was behind), `server_dropped` (the server's own count), `malformed` (unreadable input lines or records; a live-stream row of an unknown type or that cannot be decoded, skipped; an `event_sequence` value that is damaged: a jump no session makes in the time since the highest number, or a number seen again — counted here, not as `sequence_gap`; polled values refused as impossible, see \"Cumulative values read from the server\")",
            PromQL = "`sum by (sqlserver_instance_name, loss_kind) (rate(sqlserver_monitor_events_lost_total[5m])) > 0`",
        },
        new()
        {
            Name = "sqlserver.monitor.agreement", Unit = "1", Kind = MetricKind.Gauge, IsInteger = false, Attributes = [Instance, MetricAttributes.Quantity], Section = MetricSection.Monitor,
            Source = new AggregationSource(AggregationFact.AgreementRatio),
            Description = "Per instance and quantity (flushes, flushed_bytes, writelog_time, flush_wait_time): the events' figure over the server's own (Log Flushes/sec, Log Bytes Flushed/sec, WRITELOG wait_time_ms, Log Flush Wait Time) in the last window of several polls that could be compared; 1 means they agree.",
            Meaning = "the events' figure over the server's own, per `quantity`: `flushes` (log_flush_start events against `Log Flushes/sec`), `flushed_bytes` (their `write_size` sum against `Log Bytes Flushed/sec`), `writelog_time` (WRITELOG wait events' durations against `sys.dm_os_wait_stats` WRITELOG `wait_time_ms`, which is instance-wide: below 1 is expected when the session filters databases), `flush_wait_time` (the same durations against `Log Flush Wait Time`; only a factor of 1,000 is judged), over windows of at least 4 polls; absent until a window saw enough (200 flushes, 256 KiB, 1 s of waiting). Expected below 1: lost events (counted in `sqlserver.monitor.events.lost`, and allowed for in the verdict) and, for `writelog_time`, waits of databases outside the session's filter; the counters are summed over the watched databases only, never `_Total` (which includes internal databases no session watches). A disagreement that lasts 3 windows is logged once (event 322) and shown in /readyz (degraded); a clean factor of 1,000 in a wait figure corrects the wait duration unit (event 324)",
            PromQL = "`abs(sqlserver_monitor_agreement_ratio{quantity=\"flushes\"} - 1) > 0.1`",
        },
        new()
        {
            Name = "sqlserver.monitor.events.loss", Unit = "1", Kind = MetricKind.Gauge, IsInteger = false, Attributes = InstDb, Section = MetricSection.Monitor,
            Source = new AggregationSource(AggregationFact.EventLossRatio),
            Description = "Fraction of the log flushes the server counted (Log Flushes/sec increase) for which no log_flush_start event arrived, per database, since monitoring began.",
            Meaning = "share of the flushes the server counted (`Log Flushes/sec` increase) for which no `log_flush_start` event arrived, since monitoring began: end-to-end event loss no other tool reports",
            PromQL = "`sqlserver_monitor_events_loss_ratio > 0.01`",
        },
        new()
        {
            Name = "sqlserver.monitor.up", Unit = "{status}", Kind = MetricKind.Gauge, IsInteger = true, Attributes = InstComponent, Section = MetricSection.Monitor,
            Source = new HealthSource(HealthFact.ComponentUp),
            Description = "1 while a source component of the instance (poller, stream, session) works, 0 after it failed.",
            Meaning = "1 while the component works, 0 after it failed. A live stream works once the server answered its request or the request has waited 10 s without an error (an idle instance sends no event for hours and stays 1 after a reconnect). The simulated and replayed sources report `stream` (events) and `poller` (polled rows) per instance too, at most once a second, with `last_success` and `collection.mode`",
            PromQL = "`min by (sqlserver_instance_name) (sqlserver_monitor_up) == 0`",
        },
        new()
        {
            Name = "sqlserver.monitor.last_success", Unit = "s", Kind = MetricKind.Gauge, IsInteger = false, Attributes = InstComponent, Section = MetricSection.Monitor,
            Source = new HealthSource(HealthFact.ComponentLastSuccess),
            Description = "When a source component of the instance last succeeded, seconds since the Unix epoch.",
            Meaning = "last success, Unix seconds",
            PromQL = "staleness: `time() - sqlserver_monitor_last_success_seconds > 120`",
        },
        new()
        {
            Name = "sqlserver.monitor.errors", Unit = "{error}", Kind = MetricKind.Counter, IsInteger = true, Attributes = [Instance, Component, ErrorType], Section = MetricSection.Monitor,
            Source = new HealthSource(HealthFact.ComponentErrors),
            Description = "Errors of a source component by error.type (login_failed, permission, timeout, disconnected, ...).",
            Meaning = "errors by kind",
            PromQL = "`sum by (sqlserver_instance_name, error_type) (increase(sqlserver_monitor_errors_total[15m]))`",
        },
        new()
        {
            Name = "sqlserver.monitor.collection.mode", Unit = "{mode}", Kind = MetricKind.Gauge, IsInteger = true, Attributes = [Instance, Mode], Section = MetricSection.Monitor,
            Source = new HealthSource(HealthFact.CollectionMode),
            Description = "1 for the collection mode the instance uses now (mode=stream or mode=histogram).",
            Meaning = "1 for the mode in use",
            PromQL = "`sqlserver_monitor_collection_mode{mode=\"histogram\"} == 1`",
        },
        new()
        {
            Name = "sqlserver.monitor.fallbacks", Unit = "{fallback}", Kind = MetricKind.Counter, IsInteger = true, Attributes = Inst, Section = MetricSection.Monitor,
            Source = new HealthSource(HealthFact.Fallbacks),
            Description = "Times an instance fell back from streaming events to the server-side histogram by itself (repeated error 25726).",
            Meaning = "automatic fallbacks from streaming to the server-side histogram (repeated error 25726)",
            PromQL = "`increase(sqlserver_monitor_fallbacks_total[1h]) > 0`",
        },
        new()
        {
            Name = "sqlserver.monitor.export.failures", Unit = "{export}", Kind = MetricKind.Counter, IsInteger = true, Attributes = [Exporter, ErrorType], Section = MetricSection.Monitor,
            Source = new HealthSource(HealthFact.ExportFailures),
            Description = "Metric exports that failed, by exporter (otlp) and error.type (unreachable, timeout, http_<status>, grpc_<status>, failed).",
            Meaning = "metric pushes that failed: `unreachable` (nothing listens, no route, name not resolved), `timeout` (no answer within `Exporters:Otlp:Timeout`), `http_<status>` (e.g. `http_503`), `grpc_<status>` (a gRPC error status, e.g. `grpc_14` unavailable), `failed` (anything else). Each failure is also logged, at most once a minute with the count in between. A scrape (pull) has no failures of its own here: Prometheus records those in `up`",
            PromQL = "`increase(sqlserver_monitor_export_failures_total[15m]) > 0` (read it through Prometheus: a collector that gets nothing cannot tell you)",
        },
        new()
        {
            Name = "sqlserver.monitor.attributes.truncated", Unit = "{value}", Kind = MetricKind.Counter, IsInteger = true, Attributes = [], Section = MetricSection.Monitor,
            Source = new HealthSource(HealthFact.AttributesTruncated),
            Description = $"Attribute values (instance, database, wait type, counter names) cut to {MaxValueLength} characters because they were longer.",
            Meaning = $"attribute values cut to {MaxValueLength} characters because they were longer (each time a name becomes an attribute of a new series)",
            PromQL = "`sqlserver_monitor_attributes_truncated_total > 0`: a source hands names no SQL Server has",
        },
        new()
        {
            Name = "sqlserver.monitor.series.overflow", Unit = "{series}", Kind = MetricKind.Gauge, IsInteger = true, Attributes = [MetricName], Section = MetricSection.Monitor,
            Source = new HealthSource(HealthFact.SeriesOverflow),
            Description = "Series of a metric (metric.name) beyond the series limit (Exporters:CardinalityLimit): they are folded into one series labelled otel_metric_overflow=\"true\" and their databases cannot be told apart.",
            Meaning = "series of the metric named by `metric.name` beyond the series limit (`Exporters:CardinalityLimit`), highest since start: the SDK folds them into one series labelled `otel_metric_overflow=\"true\"`, so those databases are not visible one by one. Each metric that overflows is also logged once with the limit and the setting to change. Absent while nothing overflows",
            PromQL = "`max by (instance, metric_name) (sqlserver_monitor_series_overflow) > 0` (alert `LogFlushMonitorSeriesOverflow`)",
        },
    ]);

    /// <summary>The family named <paramref name="name"/>.</summary>
    /// <exception cref="KeyNotFoundException">When no family has that name.</exception>
    public static MetricDefinition Get(string name) =>
        All.FirstOrDefault(f => f.Name == name) ?? throw new KeyNotFoundException($"No metric family is named '{name}'.");

    /// <summary>
    /// The counters a family reads by name (of the Databases object, and two of Database Replica): always polled (the
    /// statement of the counter poll names exactly these, DmvSql.PerformanceCounters, kept equal by a test), in catalog order.
    /// </summary>
    public static IReadOnlyList<string> NamedCounters { get; } =
        [.. All.Select(f => f.Source).OfType<CounterSource>().Select(c => c.Counter).Distinct(StringComparer.Ordinal)];

    private static MetricDefinition[] Number(MetricDefinition[] families)
    {
        for (var i = 0; i < families.Length; i++)
        {
            families[i].Index = i;
        }

        return families;
    }

    private static MetricDefinition ReplicaGauge(string name, string unit, ReplicaColumn column, UnitScale scale, string description, string meaning, string promQL) => new()
    {
        Name = name, Unit = unit, Kind = MetricKind.Gauge, IsInteger = false, Description = description, Meaning = meaning, PromQL = promQL,
        Attributes = InstDbReplica, Source = new ReplicaSource(column, scale), Section = MetricSection.Replicas,
    };

    private static MetricDefinition Counter(string name, string unit, string counter, UnitScale scale, string description, string meaning, string promQL, CounterScope scope = CounterScope.Database) => new()
    {
        Name = name, Unit = unit, Kind = MetricKind.Counter, IsInteger = scale.IsNone, Description = description, Meaning = meaning, PromQL = promQL,
        Source = new CounterSource(counter, Cumulative: true, scope, scale),
        Attributes = scope == CounterScope.Database ? InstDb : Inst,
        Section = scope == CounterScope.Database ? MetricSection.Counters : MetricSection.InstanceCounters,
    };

    private static MetricDefinition Point(string name, string unit, string counter, UnitScale scale, CounterScope scope, string description, string meaning, string promQL) => new()
    {
        Name = name, Unit = unit, Kind = MetricKind.Gauge, IsInteger = unit == "By", Description = description, Meaning = meaning, PromQL = promQL,
        Source = new CounterSource(counter, Cumulative: false, scope, scale),
        Attributes = scope == CounterScope.Database ? InstDb : Inst,
        Section = scope == CounterScope.Database ? MetricSection.Counters : MetricSection.InstanceCounters,
    };

    private static MetricDefinition Other(string name, MetricKind kind, string unit, CounterArithmetic arithmetic, CounterScope scope, string description, string meaning, string promQL) => new()
    {
        Name = name, Unit = unit, Kind = kind, IsInteger = false, Description = description, Meaning = meaning, PromQL = promQL,
        Source = new OtherCountersSource(arithmetic, scope),
        Attributes = scope == CounterScope.Database ? InstDbCounter : InstCounter,
        Section = scope == CounterScope.Database ? MetricSection.Counters : MetricSection.InstanceCounters,
    };
}
