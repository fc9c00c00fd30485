using LogFlushMonitor.Core.Samples;

namespace LogFlushMonitor.Core.Aggregation;

/// <summary>Which exported instrument a counter series feeds.</summary>
internal enum CounterExport
{
    None,
    Flushes,
    FlushedBytes,
    FlushWaits,
    FlushWaitTime,
    LogUsedRatio,
    LogUsedBytes,
    LogSizeBytes,
    GenericTotal,
    GenericValue,
    GenericFraction,
    GenericAverage,
}

/// <summary>
/// Maps a counter row to an instrument. The arithmetic is decided by cntr_type alone; a known name only
/// chooses a dedicated instrument when its type is the one that name is documented with.
/// </summary>
internal static class CounterCatalog
{
    /// <summary>The performance-counter object whose instances are databases.</summary>
    public const string DatabasesObject = "Databases";

    /// <summary>The counter of log flushes (cumulative): the server's count the event loss is measured against.</summary>
    public const string LogFlushesCounter = "Log Flushes/sec";

    /// <summary>The counter of bytes flushed (cumulative).</summary>
    public const string LogBytesFlushedCounter = "Log Bytes Flushed/sec";

    /// <summary>The counter of commits that waited for a flush (cumulative).</summary>
    public const string LogFlushWaitsCounter = "Log Flush Waits/sec";

    /// <summary>The counter of time commits waited for flushes (cumulative milliseconds despite the name).</summary>
    public const string LogFlushWaitTimeCounter = "Log Flush Wait Time";

    /// <summary>The log space in use, in percent (a point value).</summary>
    public const string PercentLogUsedCounter = "Percent Log Used";

    /// <summary>The log space in use, in KB (a point value).</summary>
    public const string LogUsedSizeCounter = "Log File(s) Used Size (KB)";

    /// <summary>The size of the log files, in KB (a point value).</summary>
    public const string LogSizeCounter = "Log File(s) Size (KB)";

    /// <summary>The counter instance that sums all databases.</summary>
    public const string TotalInstance = "_Total";

    public static CounterExport Classify(string objectName, string counterName, int counterType)
    {
        if (objectName == DatabasesObject)
        {
            var known = (counterName, counterType) switch
            {
                (LogFlushesCounter, PerfCounterType.BulkCount or PerfCounterType.Counter) => CounterExport.Flushes,
                (LogBytesFlushedCounter, PerfCounterType.BulkCount or PerfCounterType.Counter) => CounterExport.FlushedBytes,
                (LogFlushWaitsCounter, PerfCounterType.BulkCount or PerfCounterType.Counter) => CounterExport.FlushWaits,
                (LogFlushWaitTimeCounter, PerfCounterType.BulkCount or PerfCounterType.Counter) => CounterExport.FlushWaitTime,
                (PercentLogUsedCounter, PerfCounterType.LargeRawCount or PerfCounterType.RawCount) => CounterExport.LogUsedRatio,
                (LogUsedSizeCounter, PerfCounterType.LargeRawCount or PerfCounterType.RawCount) => CounterExport.LogUsedBytes,
                (LogSizeCounter, PerfCounterType.LargeRawCount or PerfCounterType.RawCount) => CounterExport.LogSizeBytes,
                _ => CounterExport.None,
            };
            if (known != CounterExport.None)
            {
                return known;
            }
        }

        return counterType switch
        {
            PerfCounterType.BulkCount or PerfCounterType.Counter => CounterExport.GenericTotal,
            PerfCounterType.LargeRawCount or PerfCounterType.RawCount => CounterExport.GenericValue,
            PerfCounterType.LargeRawFraction => CounterExport.GenericFraction,
            PerfCounterType.AverageBulk => CounterExport.GenericAverage,
            _ => CounterExport.None,
        };
    }

    /// <summary>
    /// The counter series an instrument reads, and whether it reads the instance's <c>_Total</c> (the
    /// sqlserver.instance.* families) or the databases'.
    /// </summary>
    public static (CounterExport Export, bool InstanceTotal) ExportOf(AggregationReading reading) => reading switch
    {
        AggregationReading.LogFlushes => (CounterExport.Flushes, false),
        AggregationReading.LogFlushedBytes => (CounterExport.FlushedBytes, false),
        AggregationReading.LogFlushWaits => (CounterExport.FlushWaits, false),
        AggregationReading.LogFlushWaitTime => (CounterExport.FlushWaitTime, false),
        AggregationReading.LogUsage => (CounterExport.LogUsedRatio, false),
        AggregationReading.LogUsedSize => (CounterExport.LogUsedBytes, false),
        AggregationReading.LogSize => (CounterExport.LogSizeBytes, false),
        AggregationReading.PerformanceTotal => (CounterExport.GenericTotal, false),
        AggregationReading.PerformanceValue => (CounterExport.GenericValue, false),
        AggregationReading.PerformanceFraction => (CounterExport.GenericFraction, false),
        AggregationReading.PerformanceAverage => (CounterExport.GenericAverage, false),
        AggregationReading.InstanceLogFlushes => (CounterExport.Flushes, true),
        AggregationReading.InstanceLogFlushedBytes => (CounterExport.FlushedBytes, true),
        AggregationReading.InstanceLogFlushWaits => (CounterExport.FlushWaits, true),
        AggregationReading.InstanceLogFlushWaitTime => (CounterExport.FlushWaitTime, true),
        AggregationReading.InstanceLogUsedSize => (CounterExport.LogUsedBytes, true),
        AggregationReading.InstanceLogSize => (CounterExport.LogSizeBytes, true),
        AggregationReading.InstancePerformanceTotal => (CounterExport.GenericTotal, true),
        AggregationReading.InstancePerformanceValue => (CounterExport.GenericValue, true),
        AggregationReading.InstancePerformanceFraction => (CounterExport.GenericFraction, true),
        AggregationReading.InstancePerformanceAverage => (CounterExport.GenericAverage, true),
        _ => (CounterExport.None, false),
    };

    /// <summary>True when the series is cumulative on the server (tracked restart-safe): BULK_COUNT or its 32-bit twin.</summary>
    public static bool IsCumulative(int counterType) => counterType is PerfCounterType.BulkCount or PerfCounterType.Counter;
}
