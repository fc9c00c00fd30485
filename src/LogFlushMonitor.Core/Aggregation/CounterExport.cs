using LogFlushMonitor.Core.Samples;

namespace LogFlushMonitor.Core.Aggregation;

/// <summary>Which exported instrument a series feeds.</summary>
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
    InstanceStart,
    InstanceRestarts,
    EventsReceived,
    EventsLost,
    EventLossRatio,
}

internal enum WaitStatsField
{
    Tasks,
    WaitTime,
    SignalTime,
}

internal enum FileStatsField
{
    Writes,
    Bytes,
}

/// <summary>
/// Maps a counter row to an instrument. The arithmetic is decided by cntr_type alone; a known name only
/// chooses a dedicated instrument when its type is the one that name is documented with.
/// </summary>
internal static class CounterCatalog
{
    public static CounterExport Classify(string objectName, string counterName, int counterType)
    {
        if (objectName == "Databases")
        {
            var known = (counterName, counterType) switch
            {
                ("Log Flushes/sec", PerfCounterType.BulkCount) => CounterExport.Flushes,
                ("Log Bytes Flushed/sec", PerfCounterType.BulkCount) => CounterExport.FlushedBytes,
                ("Log Flush Waits/sec", PerfCounterType.BulkCount) => CounterExport.FlushWaits,
                ("Log Flush Wait Time", PerfCounterType.BulkCount) => CounterExport.FlushWaitTime,
                ("Percent Log Used", PerfCounterType.LargeRawCount or PerfCounterType.RawCount) => CounterExport.LogUsedRatio,
                ("Log File(s) Used Size (KB)", PerfCounterType.LargeRawCount or PerfCounterType.RawCount) => CounterExport.LogUsedBytes,
                ("Log File(s) Size (KB)", PerfCounterType.LargeRawCount or PerfCounterType.RawCount) => CounterExport.LogSizeBytes,
                _ => CounterExport.None,
            };
            if (known != CounterExport.None)
            {
                return known;
            }
        }

        return counterType switch
        {
            PerfCounterType.BulkCount => CounterExport.GenericTotal,
            PerfCounterType.LargeRawCount or PerfCounterType.RawCount => CounterExport.GenericValue,
            PerfCounterType.LargeRawFraction => CounterExport.GenericFraction,
            PerfCounterType.AverageBulk => CounterExport.GenericAverage,
            _ => CounterExport.None,
        };
    }

    /// <summary>True when the series is cumulative on the server (tracked restart-safe).</summary>
    public static bool IsCumulative(int counterType) => counterType == PerfCounterType.BulkCount;
}
