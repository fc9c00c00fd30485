namespace LogFlushMonitor.Core.Samples;

/// <summary>The cntr_type values whose arithmetic LogFlushMonitor knows (docs/sqlserver.md, "Performance counters"; Microsoft, "WMI Performance Counter Types").</summary>
public static class PerfCounterType
{
    /// <summary>PERF_COUNTER_LARGE_RAWCOUNT: a point value.</summary>
    public const int LargeRawCount = 65792;

    /// <summary>PERF_COUNTER_RAWCOUNT: a point value (32-bit).</summary>
    public const int RawCount = 65536;

    /// <summary>PERF_COUNTER_BULK_COUNT: cumulative since the instance started (64-bit).</summary>
    public const int BulkCount = 272696576;

    /// <summary>
    /// PERF_COUNTER_COUNTER: cumulative like <see cref="BulkCount"/>, on 32 bits (Microsoft, "WMI Performance Counter
    /// Types"). The DMV reports it for some counters; Core treats it as <see cref="BulkCount"/>.
    /// </summary>
    public const int Counter = 272696320;

    /// <summary>PERF_LARGE_RAW_FRACTION: value / base at one sample.</summary>
    public const int LargeRawFraction = 537003264;

    /// <summary>PERF_LARGE_RAW_BASE: the base row of a fraction.</summary>
    public const int LargeRawBase = 1073939712;

    /// <summary>PERF_AVERAGE_BULK: delta value / delta base between two samples.</summary>
    public const int AverageBulk = 1073874176;
}
