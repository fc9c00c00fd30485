using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;

namespace LogFlushMonitor.Core.Aggregation;

/// <summary>
/// Which metric family a counter series feeds, decided once when the series is created. The arithmetic is decided by
/// cntr_type alone; a counter a family names (<see cref="CounterSource"/>) goes to that family only when its type is the
/// one the name is documented with, any other counter to the family of its arithmetic (<see cref="OtherCountersSource"/>).
/// The families are the counters signal's (<see cref="CountersSignal"/>).
/// </summary>
internal static class CounterCatalog
{
    /// <summary>The families that name a counter (their position in <see cref="CountersSignal.CounterFamilies"/>), by counter name.</summary>
    private static readonly Dictionary<string, (CounterSource Source, int Family)[]> Named =
        CountersSignal.CounterFamilies.Select((f, i) => (f.Source, Index: i)).Where(f => f.Source is CounterSource)
            .GroupBy(f => ((CounterSource)f.Source).Counter, StringComparer.Ordinal)
            .ToDictionary(g => g.Key, g => g.Select(f => ((CounterSource)f.Source, f.Index)).ToArray(), StringComparer.Ordinal);

    /// <summary>The families of every other counter, by arithmetic and scope.</summary>
    private static readonly Dictionary<(CounterArithmetic, CounterScope), int> Others =
        CountersSignal.CounterFamilies.Select((f, i) => (f.Source, Index: i)).Where(f => f.Source is OtherCountersSource)
            .ToDictionary(f => (((OtherCountersSource)f.Source).Arithmetic, ((OtherCountersSource)f.Source).Scope), f => f.Index);

    /// <summary>
    /// The family a counter feeds (its position in <see cref="CountersSignal.CounterFamilies"/>), or null: a type with no arithmetic here (a base row), or a counter a family names for
    /// the other scope only (<c>_Total</c>'s <c>Percent Log Used</c>: the instance's ratio is left to the two sizes).
    /// </summary>
    public static int? FamilyOf(string objectName, string counterName, int counterType, CounterScope scope)
    {
        var arithmetic = ArithmeticOf(counterType);
        if (arithmetic is null)
        {
            return null;
        }

        if (Named.TryGetValue(counterName, out var named))
        {
            var claimed = false;
            foreach (var (source, family) in named)
            {
                if (source.Object != objectName || arithmetic != (source.Cumulative ? CounterArithmetic.Cumulative : CounterArithmetic.PointValue))
                {
                    continue;
                }

                claimed = true;
                if (source.Scope == scope)
                {
                    return family;
                }
            }

            if (claimed)
            {
                return null;
            }
        }

        return Others.TryGetValue((arithmetic.Value, scope), out var other) ? other : null;
    }

    /// <summary>The arithmetic of a counter type, or null for a type that is not a value (a base).</summary>
    public static CounterArithmetic? ArithmeticOf(int counterType) => counterType switch
    {
        PerfCounterType.BulkCount or PerfCounterType.Counter => CounterArithmetic.Cumulative,
        PerfCounterType.LargeRawCount or PerfCounterType.RawCount => CounterArithmetic.PointValue,
        PerfCounterType.LargeRawFraction => CounterArithmetic.Fraction,
        PerfCounterType.AverageBulk => CounterArithmetic.Average,
        _ => null,
    };

    /// <summary>
    /// The largest point value a counter of the Databases object can take, or null when any non-negative value can be:
    /// <c>Percent Log Used</c> 100, the two log sizes <see cref="CounterSeries.MaxLogSizeKb"/>.
    /// </summary>
    public static long? MaxPointValue(string objectName, string counterName) => objectName != DatabasesCounters.Object ? null : counterName switch
    {
        DatabasesCounters.PercentLogUsed => 100,
        DatabasesCounters.LogUsedSize or DatabasesCounters.LogSize => CounterSeries.MaxLogSizeKb,
        _ => null,
    };

    /// <summary>True when the series is cumulative on the server (tracked restart-safe): BULK_COUNT or its 32-bit twin.</summary>
    public static bool IsCumulative(int counterType) => counterType is PerfCounterType.BulkCount or PerfCounterType.Counter;
}
