using System.Diagnostics;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.SqlServer.PerfMon;

// The enum's members are compile-time constants: using them runs nothing of the Windows-only assembly, and checks
// the mapping against the real PerformanceCounterType values rather than our own copies.
#pragma warning disable CA1416

namespace LogFlushMonitor.SqlServer.Tests.PerfMon;

public class PerfMonCounterTypesTests
{
    [Theory]
    [InlineData(PerformanceCounterType.NumberOfItems32, PerfCounterType.RawCount)]
    [InlineData(PerformanceCounterType.NumberOfItems64, PerfCounterType.LargeRawCount)]
    [InlineData(PerformanceCounterType.RateOfCountsPerSecond32, PerfCounterType.Counter)]
    [InlineData(PerformanceCounterType.RateOfCountsPerSecond64, PerfCounterType.BulkCount)]
    [InlineData(PerformanceCounterType.RawFraction, PerfCounterType.LargeRawFraction)]
    [InlineData(PerformanceCounterType.AverageCount64, PerfCounterType.AverageBulk)]
    public void A_PerfMon_type_maps_to_the_cntr_type_the_DMV_reports(PerformanceCounterType perfMon, int cntrType) =>
        Assert.Equal(cntrType, PerfMonCounterTypes.ToCntrType((int)perfMon));

    [Fact]
    public void The_64_bit_raw_fraction_SQL_Server_registers_maps_to_itself() =>
        Assert.Equal(PerfCounterType.LargeRawFraction, PerfMonCounterTypes.ToCntrType(PerfCounterType.LargeRawFraction));

    [Theory]
    [InlineData(PerformanceCounterType.RawBase)]
    [InlineData(PerformanceCounterType.AverageBase)]
    [InlineData(PerformanceCounterType.AverageTimer32)]
    [InlineData(PerformanceCounterType.CounterDelta64)]
    public void Base_and_unknown_types_are_not_delivered_as_values(PerformanceCounterType perfMon) =>
        Assert.Null(PerfMonCounterTypes.ToCntrType((int)perfMon));

    [Fact]
    public void The_large_raw_base_is_not_delivered_as_a_value() =>
        Assert.Null(PerfMonCounterTypes.ToCntrType(PerfCounterType.LargeRawBase));

    [Theory]
    [InlineData(PerfCounterType.LargeRawFraction, true)]
    [InlineData(PerfCounterType.AverageBulk, true)]
    [InlineData(PerfCounterType.BulkCount, false)]
    [InlineData(PerfCounterType.LargeRawCount, false)]
    public void Only_fractions_and_averages_carry_a_base(int cntrType, bool needsBase) =>
        Assert.Equal(needsBase, PerfMonCounterTypes.NeedsBase(cntrType));
}
