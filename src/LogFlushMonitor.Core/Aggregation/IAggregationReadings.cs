using System.Diagnostics.Metrics;

namespace LogFlushMonitor.Core.Aggregation;

/// <summary>
/// The read-only view of the aggregation that the observable instruments (<see cref="Metrics.LogFlushMetrics"/>) read
/// at collection time: one measurement per series of one exported family, copied under the aggregation's lock into a
/// list the caller owns (and reuses: a scrape of a large fleet then allocates no measurement arrays). The metrics hold
/// this view; the aggregation knows nothing of them.
/// </summary>
public interface IAggregationReadings
{
    /// <summary>Appends the current values of an integer-valued family to <paramref name="into"/>.</summary>
    /// <exception cref="ArgumentOutOfRangeException">When <paramref name="reading"/> is a fractional family.</exception>
    void ReadLong(AggregationReading reading, List<Measurement<long>> into);

    /// <summary>Appends the current values of a fractional family to <paramref name="into"/>.</summary>
    /// <exception cref="ArgumentOutOfRangeException">When <paramref name="reading"/> is an integer-valued family.</exception>
    void ReadDouble(AggregationReading reading, List<Measurement<double>> into);
}

/// <summary>The exported series families of the aggregation, one per observable instrument (docs/metrics.md).</summary>
public enum AggregationReading
{
    /// <summary>sqlserver.log.flushes (long).</summary>
    LogFlushes,

    /// <summary>sqlserver.log.flushed.bytes (long).</summary>
    LogFlushedBytes,

    /// <summary>sqlserver.log.flush.waits (long).</summary>
    LogFlushWaits,

    /// <summary>sqlserver.log.flush.wait.time (double, seconds).</summary>
    LogFlushWaitTime,

    /// <summary>sqlserver.log.usage (double, 0..1).</summary>
    LogUsage,

    /// <summary>sqlserver.log.used.size (long, bytes).</summary>
    LogUsedSize,

    /// <summary>sqlserver.log.size (long, bytes).</summary>
    LogSize,

    /// <summary>sqlserver.performance.total (double).</summary>
    PerformanceTotal,

    /// <summary>sqlserver.performance.value (double).</summary>
    PerformanceValue,

    /// <summary>sqlserver.performance.fraction (double).</summary>
    PerformanceFraction,

    /// <summary>sqlserver.performance.average (double).</summary>
    PerformanceAverage,

    /// <summary>sqlserver.wait.tasks (long).</summary>
    WaitTasks,

    /// <summary>sqlserver.wait.time (double, seconds).</summary>
    WaitTime,

    /// <summary>sqlserver.wait.signal.time (double, seconds).</summary>
    WaitSignalTime,

    /// <summary>sqlserver.log.file.writes (long).</summary>
    LogFileWrites,

    /// <summary>sqlserver.log.file.written.bytes (long).</summary>
    LogFileWrittenBytes,

    /// <summary>sqlserver.log.file.write.stall (double, seconds).</summary>
    LogFileWriteStall,

    /// <summary>sqlserver.instance.start_time (double, seconds since the Unix epoch).</summary>
    InstanceStartTime,

    /// <summary>sqlserver.instance.restarts (long).</summary>
    InstanceRestarts,

    /// <summary>sqlserver.monitor.events (long).</summary>
    EventsReceived,

    /// <summary>sqlserver.monitor.events.lost (long).</summary>
    EventsLost,

    /// <summary>sqlserver.monitor.events.loss (double, 0..1).</summary>
    EventLossRatio,

    /// <summary>sqlserver.instance.log.flushes (long): _Total of Log Flushes/sec.</summary>
    InstanceLogFlushes,

    /// <summary>sqlserver.instance.log.flushed.bytes (long).</summary>
    InstanceLogFlushedBytes,

    /// <summary>sqlserver.instance.log.flush.waits (long).</summary>
    InstanceLogFlushWaits,

    /// <summary>sqlserver.instance.log.flush.wait.time (double, seconds).</summary>
    InstanceLogFlushWaitTime,

    /// <summary>sqlserver.instance.log.used.size (long, bytes).</summary>
    InstanceLogUsedSize,

    /// <summary>sqlserver.instance.log.size (long, bytes).</summary>
    InstanceLogSize,

    /// <summary>sqlserver.instance.performance.total (double).</summary>
    InstancePerformanceTotal,

    /// <summary>sqlserver.instance.performance.value (double).</summary>
    InstancePerformanceValue,

    /// <summary>sqlserver.instance.performance.fraction (double).</summary>
    InstancePerformanceFraction,

    /// <summary>sqlserver.instance.performance.average (double).</summary>
    InstancePerformanceAverage,

    /// <summary>sqlserver.log.flush.outstanding (long): flushes started and not completed, per database (stream mode).</summary>
    LogFlushOutstanding,

    /// <summary>sqlserver.log.flush.outstanding.age (double, seconds): age of the oldest of them.</summary>
    LogFlushOutstandingAge,

    /// <summary>sqlserver.database.writelog.waiting (long): sessions waiting on WRITELOG now, per database.</summary>
    WriteLogWaiting,

    /// <summary>sqlserver.database.writelog.longest_wait (double, seconds): the longest of their current waits.</summary>
    WriteLogLongestWait,
}
