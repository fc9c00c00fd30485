using LogFlushMonitor.Core.Samples;

namespace LogFlushMonitor.SqlServer.PerfMon;

/// <summary>
/// Turns a PerfMon counter type (the int value of <c>System.Diagnostics.PerformanceCounterType</c>, which is the
/// Windows PERF_* constant) into the cntr_type sys.dm_os_performance_counters reports for the same counter, so Core
/// does the same arithmetic whichever path read it. Kept on plain ints so it runs, and is tested, on every platform.
/// </summary>
internal static class PerfMonCounterTypes
{
    /// <summary>PerformanceCounterType.NumberOfItems32 (PERF_COUNTER_RAWCOUNT).</summary>
    public const int NumberOfItems32 = 65536;

    /// <summary>PerformanceCounterType.NumberOfItems64 (PERF_COUNTER_LARGE_RAWCOUNT).</summary>
    public const int NumberOfItems64 = 65792;

    /// <summary>PerformanceCounterType.RateOfCountsPerSecond32 (PERF_COUNTER_COUNTER).</summary>
    public const int RateOfCountsPerSecond32 = 272696320;

    /// <summary>PerformanceCounterType.RateOfCountsPerSecond64 (PERF_COUNTER_BULK_COUNT).</summary>
    public const int RateOfCountsPerSecond64 = 272696576;

    /// <summary>PerformanceCounterType.RawFraction (PERF_RAW_FRACTION, 32-bit).</summary>
    public const int RawFraction = 537003008;

    /// <summary>
    /// PERF_LARGE_RAW_FRACTION: no member of the .NET enum has it, but SQL Server registers its ratios with it and
    /// PerformanceCounter hands the raw value through.
    /// </summary>
    public const int LargeRawFraction = 537003264;

    /// <summary>PerformanceCounterType.AverageCount64 (PERF_AVERAGE_BULK).</summary>
    public const int AverageCount64 = 1073874176;

    /// <summary>
    /// The cntr_type for a PerfMon type, or null for types Core has no arithmetic for (base counters among them:
    /// they travel as <see cref="CounterSample.BaseValue"/> of their fraction or average).
    /// </summary>
    public static int? ToCntrType(int perfMonType) => perfMonType switch
    {
        NumberOfItems32 => PerfCounterType.RawCount,
        NumberOfItems64 => PerfCounterType.LargeRawCount,

        // RawValue of a rate counter is the cumulative count; the rate is Core's delta / elapsed. The 32-bit type is
        // PERF_COUNTER_COUNTER, which the DMV reports as 272696320 for the same counter: passed on as that, so both
        // paths hand Core the same row (Core treats it as BULK_COUNT).
        RateOfCountsPerSecond32 => PerfCounterType.Counter,
        RateOfCountsPerSecond64 => PerfCounterType.BulkCount,
        RawFraction or LargeRawFraction => PerfCounterType.LargeRawFraction,
        AverageCount64 => PerfCounterType.AverageBulk,
        _ => null,
    };

    /// <summary>Whether a cntr_type is read together with a base value.</summary>
    public static bool NeedsBase(int cntrType) => cntrType is PerfCounterType.LargeRawFraction or PerfCounterType.AverageBulk;
}
