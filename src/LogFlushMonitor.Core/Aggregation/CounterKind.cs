using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;

namespace LogFlushMonitor.Core.Aggregation;

/// <summary>
/// What every series of one performance counter (object, counter, cntr_type, database or <c>_Total</c>) shares: its
/// family, unit scale and limits, decided once (<see cref="CounterCatalog"/>). Thousands of databases each have a series of
/// the same counter; this is held once for all of them instead of in each. Immutable.
/// </summary>
internal sealed class CounterKind
{
    public CounterKind(string objectName, string counterName, int counterType, bool isInstanceTotal)
    {
        ObjectName = objectName;
        CounterName = counterName;
        CounterType = counterType;
        IsInstanceTotal = isInstanceTotal;
        IsCumulative = CounterCatalog.IsCumulative(counterType);
        FamilyIndex = CounterCatalog.FamilyOf(objectName, counterName, counterType, isInstanceTotal ? CounterScope.Instance : CounterScope.Database);
        Family = FamilyIndex is { } i ? CountersSignal.CounterFamilies[i].Family : null;
        Scale = FamilyIndex is { } f && CountersSignal.CounterFamilies[f].Source is CounterSource named ? named.Scale : UnitScale.None;
        TracksEventLoss = objectName == DatabasesCounters.Object && counterName == DatabasesCounters.LogFlushes && IsCumulative && !isInstanceTotal;
        MaxPointValue = CounterCatalog.MaxPointValue(objectName, counterName);
        NamesCounter = Family?.Attributes.Contains(MetricAttributes.CounterName) == true;
    }

    public string ObjectName { get; }

    public string CounterName { get; }

    public int CounterType { get; }

    /// <summary>Whether the series are the instance's <c>_Total</c> rather than a database's.</summary>
    public bool IsInstanceTotal { get; }

    /// <summary>Whether the counter is cumulative on the server (tracked restart-safe).</summary>
    public bool IsCumulative { get; }

    /// <summary>The family the series are exported in, or null when none takes them.</summary>
    public MetricDefinition? Family { get; }

    /// <summary>The position of <see cref="Family"/> in <see cref="CountersSignal.CounterFamilies"/>, or null.</summary>
    public int? FamilyIndex { get; }

    /// <summary>From the counter's unit to the family's.</summary>
    public UnitScale Scale { get; }

    /// <summary>Whether this is the databases' Log Flushes/sec, against which the events' loss is measured.</summary>
    public bool TracksEventLoss { get; }

    /// <summary>The largest point value the counter can take, when it has one.</summary>
    public long? MaxPointValue { get; }

    /// <summary>Whether the family's series carry the counter's object and name as attributes.</summary>
    public bool NamesCounter { get; }
}
