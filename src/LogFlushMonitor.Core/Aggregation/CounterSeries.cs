using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;

namespace LogFlushMonitor.Core.Aggregation;

/// <summary>
/// One performance counter (object, counter, instance) with its type's arithmetic (docs/sqlserver.md), created in the
/// group of the metric family it feeds (<see cref="Family"/>).
/// </summary>
internal sealed class CounterSeries : PolledSeries
{
    /// <summary>A series of <paramref name="kind"/> for <paramref name="counterInstance"/>.</summary>
    /// <param name="kind">What every series of the counter shares.</param>
    /// <param name="counterInstance">The database, or <c>_Total</c>.</param>
    /// <param name="owner">
    /// The instance's tags for <c>_Total</c> (the instance, internal databases included, not a database: its series carry
    /// no database attribute and go to the sqlserver.instance.* families, so a sum over databases never counts it), else
    /// the database's tags shared by its polled series (<see cref="InstanceState.AcquireDatabaseTags"/>).
    /// </param>
    public CounterSeries(CounterKind kind, string counterInstance, KeyValuePair<string, object?>[] owner)
    {
        Kind = kind;
        CounterInstance = counterInstance;
        Tags = kind.NamesCounter
            ? [.. owner, new(MetricAttributes.CounterObject, MetricAttributes.Limit(kind.ObjectName)), new(MetricAttributes.CounterName, MetricAttributes.Limit(kind.CounterName))]
            : owner;
    }

    /// <summary>What every series of this counter shares.</summary>
    public CounterKind Kind { get; }

    /// <summary>Whether this is the instance's <c>_Total</c> rather than a database.</summary>
    public bool IsInstanceTotal => Kind.IsInstanceTotal;

    public string ObjectName => Kind.ObjectName;

    public string CounterName => Kind.CounterName;

    public string CounterInstance { get; }

    public int CounterType => Kind.CounterType;

    /// <summary>The family the series is exported in, or null when none takes it.</summary>
    public MetricDefinition? Family => Kind.Family;

    /// <summary>The position of <see cref="Family"/> among the counters signal's families, or null.</summary>
    public int? FamilyIndex => Kind.FamilyIndex;

    /// <summary>From the counter's unit to the family's.</summary>
    public UnitScale Scale => Kind.Scale;

    /// <summary>Whether this is a database's Log Flushes/sec, against which the events' loss is measured.</summary>
    public bool TracksEventLoss => Kind.TracksEventLoss;

    /// <summary>The largest point value the counter can take, when it has one.</summary>
    public long? MaxPointValue => Kind.MaxPointValue;

    public CumulativeTracker Tracker;

    public long LastValue { get; set; }

    public long LastBase { get; set; }

    public bool HasLast { get; set; }

    /// <summary>Flush events of the database when this series took its baseline (for the loss ratio).</summary>
    public long EventsAtBaseline { get; set; } = -1;

    /// <summary>Flush events of the database at the last reading.</summary>
    public long EventsAtLastReading { get; set; }

    /// <summary>Whether any flush event of the database has arrived (no events, no loss figure: pollers alone say nothing about loss).</summary>
    public bool HasEvents { get; set; }

    /// <summary>The current point value after the type's arithmetic (fraction, average), null until computable.</summary>
    public double? Point { get; set; }

    /// <summary>Share of the flushes the server counted that arrived as no event; null until both sides have data.</summary>
    public double? LossRatio
    {
        get
        {
            if (!TracksEventLoss || !HasEvents || EventsAtBaseline < 0 || Tracker.Total <= 0)
            {
                return null;
            }

            var received = EventsAtLastReading - EventsAtBaseline;
            return Math.Clamp(1 - ((double)received / Tracker.Total), 0, 1);
        }
    }

    /// <summary>Whether the series has a value to export: a point value not computable yet (a first average, a zero base) or never read (its only reading refused) is left out, not exported as 0.</summary>
    public bool HasValue => Kind.IsCumulative || Point.HasValue;

    /// <summary>The value in the family's unit.</summary>
    public double Value => Scale.Apply(Kind.IsCumulative ? Tracker.Total : Point ?? 0);

    /// <summary>The value in the family's unit, as an integer (exact for a cumulative count).</summary>
    public long LongValue => Scale.IsNone && Kind.IsCumulative ? Tracker.Total : (long)Value;

    /// <summary>
    /// The largest log a database can have, in KB: 32,767 files of 2 TB each (Microsoft, "Maximum capacity
    /// specifications for SQL Server"). A larger Log File(s) Size or Used Size reading is not a size.
    /// </summary>
    public const long MaxLogSizeKb = 32_767L * (2L << 30);

    /// <summary>
    /// Applies one reading of this counter, read at <paramref name="timestampUtc"/>; <paramref name="inst"/> gives the restart epoch and the events received. A
    /// reading the counter cannot take (below zero, a percentage past 100, a fraction past its base, a cumulative value
    /// rising faster than <see cref="CumulativeTracker.MaxIncreasePerSecond"/>) changes nothing and is returned as rejected.
    /// </summary>
    public ReadingVerdict Apply(in CounterRow counter, DateTime timestampUtc, InstanceState inst)
    {
        if (counter.Value < 0 || counter.BaseValue < 0)
        {
            return ReadingVerdict.Negative;
        }

        switch (counter.CounterType)
        {
            case PerfCounterType.BulkCount or PerfCounterType.Counter:
                Tracker.Update(counter.Value, timestampUtc, inst.Epoch, inst.StartTimeUtc);
                if (Tracker.LastVerdict != ReadingVerdict.Accepted)
                {
                    return Tracker.LastVerdict;
                }

                if (TracksEventLoss)
                {
                    // Loss accounting: events received since the counter's baseline against its increase. A
                    // database with no events yet has received none since the baseline.
                    var events = inst.DatabaseByName(counter.CounterInstance);
                    var received = events?.Sizes.Count ?? 0;
                    if (EventsAtBaseline < 0)
                    {
                        EventsAtBaseline = received;
                    }

                    EventsAtLastReading = received;
                    HasEvents = events is not null;
                }

                break;
            case PerfCounterType.LargeRawFraction:
                if (counter.BaseValue > 0 && counter.Value > counter.BaseValue)
                {
                    return ReadingVerdict.OutOfRange; // a ratio past 1
                }

                Point = counter.BaseValue > 0 ? (double)counter.Value / counter.BaseValue : null;
                break;
            case PerfCounterType.AverageBulk:
                // Delta value / delta base; a reset (lower base, new epoch) leaves no honest average for this interval.
                var deltaBase = counter.BaseValue - LastBase;
                var deltaValue = counter.Value - LastValue;
                Point = HasLast && deltaBase > 0 && deltaValue >= 0 ? (double)deltaValue / deltaBase : HasLast && deltaBase == 0 ? Point : null;
                break;
            default:
                if (MaxPointValue is { } max && counter.Value > max)
                {
                    return ReadingVerdict.OutOfRange;
                }

                Point = counter.Value;
                break;
        }

        LastValue = counter.Value;
        LastBase = counter.BaseValue;
        HasLast = true;
        return ReadingVerdict.Accepted;
    }
}
