using System.Diagnostics.Metrics;

namespace LogFlushMonitor.Core.Metrics;

/// <summary>
/// The state behind the observable families the aggregation fills: the events' own and each signal's (every family but the
/// monitor's health, which <see cref="LogFlushMetrics"/> reads from the registries). <see cref="LogFlushMetrics"/> reads it
/// once per collect; the aggregation implements it, each signal's state appending its own families' series.
/// </summary>
public interface IMetricReadings
{
    /// <summary>
    /// Appends the current measurements of every such family to <paramref name="into"/>, all under one lock: one
    /// collect sees one moment of the aggregation.
    /// </summary>
    void Read(MeasurementBuffers into);
}

/// <summary>One list of measurements per family of <see cref="MetricCatalog.All"/>, reused from collect to collect.</summary>
public sealed class MeasurementBuffers
{
    private readonly FamilyMeasurements<long>?[] _long;
    private readonly FamilyMeasurements<double>?[] _double;
    private readonly int[] _series;

    /// <summary>Empty lists for every observable family (a reader of its own: tests, tools).</summary>
    public MeasurementBuffers()
        : this(null)
    {
    }

    internal MeasurementBuffers(Action? returned)
    {
        var families = MetricCatalog.All;
        _long = new FamilyMeasurements<long>?[families.Count];
        _double = new FamilyMeasurements<double>?[families.Count];
        _series = new int[families.Count];
        foreach (var family in families)
        {
            if (family.Kind == MetricKind.Histogram)
            {
                continue;
            }

            if (family.IsInteger)
            {
                _long[family.Index] = new FamilyMeasurements<long>(returned);
            }
            else
            {
                _double[family.Index] = new FamilyMeasurements<double>(returned);
            }
        }
    }

    /// <summary>The measurements of an integer-valued family, as a new list (tests and tools; a collect reads the family itself).</summary>
    /// <exception cref="ArgumentException">When <paramref name="family"/> is fractional or a histogram.</exception>
    public List<Measurement<long>> Long(MetricDefinition family) => [.. LongFamily(family).Items.Select(m => new Measurement<long>(m.Value, m.Tags))];

    /// <summary>The measurements of a fractional family, as a new list (tests and tools; a collect reads the family itself).</summary>
    /// <exception cref="ArgumentException">When <paramref name="family"/> is integer-valued or a histogram.</exception>
    public List<Measurement<double>> Double(MetricDefinition family) => [.. DoubleFamily(family).Items.Select(m => new Measurement<double>(m.Value, m.Tags))];

    /// <summary>
    /// Appends one measurement of an integer-valued family. <paramref name="tags"/> is the series' own array, kept until
    /// the collect has read it: it must not change afterwards (build a new array instead).
    /// </summary>
    /// <exception cref="ArgumentException">When <paramref name="family"/> is fractional or a histogram.</exception>
    public void Add(MetricDefinition family, long value, KeyValuePair<string, object?>[] tags) => LongFamily(family).Items.Add((value, tags));

    /// <summary>
    /// Appends one measurement of a fractional family. <paramref name="tags"/> is the series' own array, kept until the
    /// collect has read it: it must not change afterwards (build a new array instead).
    /// </summary>
    /// <exception cref="ArgumentException">When <paramref name="family"/> is integer-valued or a histogram.</exception>
    public void Add(MetricDefinition family, double value, KeyValuePair<string, object?>[] tags) => DoubleFamily(family).Items.Add((value, tags));

    private FamilyMeasurements<long> LongFamily(MetricDefinition family)
    {
        ArgumentNullException.ThrowIfNull(family);
        return _long[family.Index] ?? throw new ArgumentException($"{family.Name} is not an integer-valued observable family.", nameof(family));
    }

    private FamilyMeasurements<double> DoubleFamily(MetricDefinition family)
    {
        ArgumentNullException.ThrowIfNull(family);
        return _double[family.Index] ?? throw new ArgumentException($"{family.Name} is not a fractional observable family.", nameof(family));
    }

    /// <summary>
    /// Notes <paramref name="count"/> more series of a per-event family (a histogram: its series are recorded per event,
    /// so the aggregation counts the tag sets it has recorded under rather than listing measurements).
    /// </summary>
    public void NoteSeries(MetricDefinition family, int count)
    {
        ArgumentNullException.ThrowIfNull(family);
        _series[family.Index] += count;
    }

    /// <summary>The series a family has in this collect: its measurements, or for a histogram the series noted.</summary>
    internal int SeriesOf(MetricDefinition family) =>
        _long[family.Index]?.Items.Count ?? _double[family.Index]?.Items.Count ?? _series[family.Index];

    internal FamilyMeasurements<T> Of<T>(MetricDefinition family)
        where T : struct =>
        (typeof(T) == typeof(long) ? _long[family.Index] as FamilyMeasurements<T> : _double[family.Index] as FamilyMeasurements<T>)
        ?? throw new ArgumentException($"{family.Name} does not take {typeof(T).Name} values.", nameof(family));

    /// <summary>Empties every list (the tag arrays of the last collect are let go).</summary>
    internal void Clear()
    {
        foreach (var l in _long)
        {
            l?.Items.Clear();
        }

        foreach (var d in _double)
        {
            d?.Items.Clear();
        }

        Array.Clear(_series);
    }
}
