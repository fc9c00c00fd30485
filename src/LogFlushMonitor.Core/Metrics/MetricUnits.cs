namespace LogFlushMonitor.Core.Metrics;

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

    /// <summary>
    /// The primary database's last_commit_time minus this copy's, milliseconds (on the primary; null on the primary's own
    /// row and where the primary's row is not visible, as on a secondary).
    /// </summary>
    CommitBehind,
}
