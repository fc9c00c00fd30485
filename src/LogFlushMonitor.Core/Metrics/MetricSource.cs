namespace LogFlushMonitor.Core.Metrics;

/// <summary>
/// The domain state a metric family reads, named as data: the aggregation groups its series by the family they feed
/// as it creates them (<see cref="IMetricReadings"/>), <see cref="LogFlushMetrics"/> reads the health registries itself.
/// </summary>
public abstract record MetricSource;

/// <summary>Recorded once per event by the aggregation, outside its lock (a histogram).</summary>
/// <param name="Measure">Which value of the event.</param>
public sealed record EventSource(EventMeasure Measure) : MetricSource;

/// <summary>
/// One counter of the Databases object, chosen by name when it has the type it is documented with: cumulative
/// (BULK_COUNT or its 32-bit twin) or a point value (LARGE_RAWCOUNT, RAWCOUNT). Any other type of that name is exported
/// as one of the other counters (<see cref="OtherCountersSource"/>).
/// </summary>
/// <param name="Counter">The counter name (<see cref="Samples.DatabasesCounters"/>).</param>
/// <param name="Cumulative">True for a cumulative counter, false for a point value.</param>
/// <param name="Scope">The databases' series or the instance's <c>_Total</c>.</param>
/// <param name="Scale">From the counter's unit to the family's.</param>
/// <param name="Object">The counter's object after the colon: the Databases object, or Database Replica.</param>
public sealed record CounterSource(string Counter, bool Cumulative, CounterScope Scope, UnitScale Scale, string Object = Samples.DatabasesCounters.Object) : MetricSource;

/// <summary>Every counter of the Databases object no <see cref="CounterSource"/> claims, by the arithmetic of its type.</summary>
/// <param name="Arithmetic">The counter types the family takes.</param>
/// <param name="Scope">The databases' series or the instance's <c>_Total</c>.</param>
public sealed record OtherCountersSource(CounterArithmetic Arithmetic, CounterScope Scope) : MetricSource;

/// <summary>A column of <c>sys.dm_os_wait_stats</c>, per wait type (cumulative, restart-safe).</summary>
/// <param name="Column">The column.</param>
/// <param name="Scale">From the column's unit to the family's.</param>
public sealed record WaitStatsSource(WaitStatsColumn Column, UnitScale Scale) : MetricSource;

/// <summary>A column of <c>sys.dm_io_virtual_file_stats</c> for log files, summed over each database's log files.</summary>
/// <param name="Column">The column.</param>
/// <param name="Scale">From the column's unit to the family's.</param>
public sealed record FileStatsSource(FileStatsColumn Column, UnitScale Scale) : MetricSource;

/// <summary>
/// A column of <c>sys.dm_hadr_database_replica_states</c>, per database and availability replica (a point value as of
/// the last poll; no value where the server answered NULL).
/// </summary>
/// <param name="Column">The column.</param>
/// <param name="Scale">From the column's unit to the family's.</param>
public sealed record ReplicaSource(ReplicaColumn Column, UnitScale Scale) : MetricSource;

/// <summary>What the aggregation knows of an instance or of its databases' events.</summary>
/// <param name="Fact">Which fact.</param>
public sealed record AggregationSource(AggregationFact Fact) : MetricSource;

/// <summary>The monitor's own state, read by <see cref="LogFlushMetrics"/> from the health registries.</summary>
/// <param name="Fact">Which fact.</param>
public sealed record HealthSource(HealthFact Fact) : MetricSource;

/// <summary>A unit conversion: the value read times <see cref="Multiply"/>, divided by <see cref="Divide"/> (each exact when 1).</summary>
/// <param name="Multiply">The factor.</param>
/// <param name="Divide">The divisor.</param>
public readonly record struct UnitScale(double Multiply, double Divide)
{
    /// <summary>No conversion.</summary>
    public static UnitScale None { get; } = new(1, 1);

    /// <summary>Milliseconds to seconds.</summary>
    public static UnitScale MillisecondsToSeconds { get; } = new(1, 1000);

    /// <summary>A percentage to a fraction of 1.</summary>
    public static UnitScale PercentToRatio { get; } = new(1, 100);

    /// <summary>Kilobytes (1,024 bytes, as the counters mean them) to bytes.</summary>
    public static UnitScale KilobytesToBytes { get; } = new(1024, 1);

    /// <summary>Whether the value passes unchanged.</summary>
    public bool IsNone => Multiply == 1 && Divide == 1;

    /// <summary>The converted value.</summary>
    public double Apply(double value) => value * Multiply / Divide;
}

/// <summary>The per-event values recorded into histograms.</summary>
public enum EventMeasure
{
    /// <summary>log_flush_start write_size, bytes.</summary>
    FlushWriteSize,

    /// <summary>A flush's duration, seconds.</summary>
    FlushDuration,

    /// <summary>A completed wait's duration, seconds, with its wait type.</summary>
    WaitDuration,
}

/// <summary>Whose series a counter family exports.</summary>
public enum CounterScope
{
    /// <summary>Each database's counter instance.</summary>
    Database,

    /// <summary>The <c>_Total</c> counter instance: the whole SQL Server instance.</summary>
    Instance,
}

/// <summary>The arithmetic a counter's type calls for (docs/sqlserver.md).</summary>
public enum CounterArithmetic
{
    /// <summary>BULK_COUNT and PERF_COUNTER_COUNTER: cumulative, exported as the increase since monitoring began.</summary>
    Cumulative,

    /// <summary>LARGE_RAWCOUNT and RAWCOUNT: the value as read.</summary>
    PointValue,

    /// <summary>RAW_FRACTION: the value over its base, 0..1.</summary>
    Fraction,

    /// <summary>AVERAGE_BULK: the change of the value over the change of its base.</summary>
    Average,
}

/// <summary>The columns of <c>sys.dm_os_wait_stats</c> the aggregation keeps.</summary>
public enum WaitStatsColumn
{
    /// <summary>waiting_tasks_count.</summary>
    WaitingTasksCount,

    /// <summary>wait_time_ms.</summary>
    WaitTimeMs,

    /// <summary>signal_wait_time_ms.</summary>
    SignalWaitTimeMs,
}

/// <summary>The columns of <c>sys.dm_io_virtual_file_stats</c> the aggregation keeps for log files.</summary>
public enum FileStatsColumn
{
    /// <summary>num_of_writes.</summary>
    NumOfWrites,

    /// <summary>num_of_bytes_written.</summary>
    NumOfBytesWritten,

    /// <summary>io_stall_write_ms.</summary>
    IoStallWriteMs,
}

/// <summary>The columns of <c>sys.dm_hadr_database_replica_states</c> the aggregation keeps (units as the server gives them).</summary>
public enum ReplicaColumn
{
    /// <summary>log_send_queue_size, KB.</summary>
    LogSendQueueSize,

    /// <summary>log_send_rate, KB/s.</summary>
    LogSendRate,

    /// <summary>redo_queue_size, KB.</summary>
    RedoQueueSize,

    /// <summary>redo_rate, KB/s.</summary>
    RedoRate,

    /// <summary>secondary_lag_seconds, seconds (SQL Server 2016 and later).</summary>
    SecondaryLag,

    /// <summary>Seconds since last_hardened_time, on the server's clock.</summary>
    LastHardenedAge,
}

/// <summary>Facts the aggregation keeps per instance, or per database from the events.</summary>
public enum AggregationFact
{
    /// <summary>sqlserver_start_time, seconds since the Unix epoch (none until read).</summary>
    InstanceStartTime,

    /// <summary>Restarts observed (a new start time).</summary>
    InstanceRestarts,

    /// <summary>Events that reached the aggregation.</summary>
    EventsReceived,

    /// <summary>Events lost before the aggregation, per loss kind.</summary>
    EventsLost,

    /// <summary>Per database: the share of the flushes the server counted that arrived as no event.</summary>
    EventLossRatio,

    /// <summary>
    /// Per database: flushes started and not completed, read from the source's pair table at collection time (stream mode;
    /// no series when nothing pairs the instance's flushes).
    /// </summary>
    OutstandingFlushes,

    /// <summary>Per database: how long ago the oldest of <see cref="OutstandingFlushes"/> started, seconds (0 when none).</summary>
    OutstandingFlushAge,

    /// <summary>Per database: sessions waiting on WRITELOG now, as of the last waiting-tasks poll.</summary>
    WriteLogWaiting,

    /// <summary>Per database: the longest current WRITELOG wait of those sessions, seconds (0 when none waits).</summary>
    WriteLogLongestWait,

    /// <summary>Per instance and quantity: the events' figure over the server's, of the last window that could be compared.</summary>
    AgreementRatio,

    /// <summary>Per database and client application (top five and other): WRITELOG seconds from wait events, cumulative.</summary>
    WriteLogApplicationTime,

    /// <summary>Per database and client application (top five and other): WRITELOG waits from wait events, cumulative.</summary>
    WriteLogApplicationWaits,

    /// <summary>Per database and application (top five and other): log bytes used by open transactions, as of the last poll.</summary>
    LogWriterBytesUsed,

    /// <summary>Per database and application (top five and other): log bytes reserved by open transactions, as of the last poll.</summary>
    LogWriterBytesReserved,

    /// <summary>Per database and application (top five and other): open transactions, as of the last poll.</summary>
    LogWriterTransactions,
}

/// <summary>The monitor's own state.</summary>
public enum HealthFact
{
    /// <summary>Whether each source component works.</summary>
    ComponentUp,

    /// <summary>Each source component's last success.</summary>
    ComponentLastSuccess,

    /// <summary>Errors per component and kind.</summary>
    ComponentErrors,

    /// <summary>The collection mode of each instance.</summary>
    CollectionMode,

    /// <summary>Automatic fallbacks per instance.</summary>
    Fallbacks,

    /// <summary>Failed metric pushes per exporter and reason.</summary>
    ExportFailures,

    /// <summary>Attribute values cut to their maximum length.</summary>
    AttributesTruncated,

    /// <summary>Per metric: series beyond the series limit, folded by the SDK into its overflow series.</summary>
    SeriesOverflow,
}
