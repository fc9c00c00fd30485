using System.Diagnostics.Metrics;
using LogFlushMonitor.Core.Health;

namespace LogFlushMonitor.Core.Metrics;

/// <summary>
/// Owns the one Meter and its instruments, created from <see cref="MetricCatalog"/> (the shape of ASP.NET Core's
/// HostingMetrics: built from <see cref="IMeterFactory"/>, recording methods that do nothing while no listener is
/// enabled). The aggregation calls <see cref="Record"/> per event, outside its lock; the observable families read the
/// aggregation (<see cref="IMetricReadings"/>, once per collect under its lock: the events' state and each signal's) or,
/// for the monitor's own, the health registries, which hold state only.
/// </summary>
/// <remarks>
/// Values read from the server's cumulative counters are exported as the increase observed since this process started
/// (restart-safe, see Aggregation.CumulativeTracker), which matches the start time the SDK reports for cumulative sums;
/// take rate() or increase() of them.
/// </remarks>
public sealed class LogFlushMetrics
{
    /// <summary>The one Meter's name; an OpenTelemetry MeterProvider adds it with AddMeter(MeterName).</summary>
    public const string MeterName = "LogFlushMonitor";

    private readonly SourceHealth _health;
    private readonly ExportHealth _exports;
    private readonly Histogram<long>? _flushWriteSize;
    private readonly Histogram<double>? _flushDuration;
    private readonly Histogram<double>? _waitDuration;

    // One collect reads the aggregation once: the first family a collect asks for fills every family's list under the
    // aggregation's lock; each family then hands out its list. A family asked for again means a new collect.
    private readonly Lock _collectGate = new();
    private readonly bool[] _served = new bool[MetricCatalog.All.Count];
    private MeasurementBuffers _buffers;
    private int _outstanding;
    private bool _filled;
    private IMetricReadings? _readings;

    // Series per family, highest seen in a collect (a cumulative stream keeps every series it has seen), and the families
    // whose overflow was announced (once each).
    private readonly int[] _series = new int[MetricCatalog.All.Count];
    private readonly bool[] _announced = new bool[MetricCatalog.All.Count];
    private List<SeriesOverflow>? _toAnnounce;

    /// <summary>Creates every instrument of <see cref="MetricCatalog.All"/> on the Meter <paramref name="meterFactory"/> makes (owned and disposed by the factory).</summary>
    public LogFlushMetrics(IMeterFactory meterFactory, SourceHealth health, ExportHealth? exports = null)
    {
        ArgumentNullException.ThrowIfNull(meterFactory);
        ArgumentNullException.ThrowIfNull(health);
        _health = health;
        _exports = exports ?? new ExportHealth();
        _buffers = NewBuffers();
        var meter = meterFactory.Create(new MeterOptions(MeterName) { Version = typeof(LogFlushMetrics).Assembly.GetName().Version?.ToString(3) });
        foreach (var family in MetricCatalog.All)
        {
            switch (family.Kind)
            {
                case MetricKind.Histogram when family.IsInteger:
                    var integers = meter.CreateHistogram(family.Name, family.Unit, family.Description, tags: null,
                        advice: new InstrumentAdvice<long> { HistogramBucketBoundaries = family.Buckets?.Select(b => (long)b).ToArray() });
                    if (family.Measure == EventMeasure.FlushWriteSize)
                    {
                        _flushWriteSize = integers;
                    }

                    break;
                case MetricKind.Histogram:
                    var fractions = meter.CreateHistogram(family.Name, family.Unit, family.Description, tags: null,
                        advice: new InstrumentAdvice<double> { HistogramBucketBoundaries = family.Buckets });
                    if (family.Measure == EventMeasure.FlushDuration)
                    {
                        _flushDuration = fractions;
                    }
                    else if (family.Measure == EventMeasure.WaitDuration)
                    {
                        _waitDuration = fractions;
                    }

                    break;
                case MetricKind.Counter when family.IsInteger:
                    meter.CreateObservableCounter(family.Name, () => ObserveLong(family), family.Unit, family.Description);
                    break;
                case MetricKind.Counter:
                    meter.CreateObservableCounter(family.Name, () => ObserveDouble(family), family.Unit, family.Description);
                    break;
                case MetricKind.Gauge when family.IsInteger:
                    meter.CreateObservableGauge(family.Name, () => ObserveLong(family), family.Unit, family.Description);
                    break;
                default:
                    meter.CreateObservableGauge(family.Name, () => ObserveDouble(family), family.Unit, family.Description);
                    break;
            }
        }
    }

    /// <summary>Where the observable families of the aggregation read from (the aggregation registers itself).</summary>
    public void ReadFrom(IMetricReadings readings)
    {
        ArgumentNullException.ThrowIfNull(readings);
        Volatile.Write(ref _readings, readings);
    }

    /// <summary>
    /// The series limit (cardinality limit) the host's OpenTelemetry view sets on each instrument of this Meter, 0 when none
    /// is known. Series beyond it are not exported one by one: the SDK folds them into one series labelled
    /// <c>otel_metric_overflow="true"</c>. This owner counts them per family (sqlserver.monitor.series.overflow) and raises
    /// <see cref="Overflowed"/> once per family.
    /// </summary>
    public int SeriesLimit { get; set; }

    /// <summary>Raised once per family, the first time its series exceed what <see cref="SeriesLimit"/> keeps; outside any lock.</summary>
    public event Action<SeriesOverflow>? Overflowed;

    /// <summary>
    /// The series of a family the SDK keeps one by one under a cardinality limit of <paramref name="limit"/>: all of them, the
    /// overflow series comes on top (OpenTelemetry .NET 1.20; SeriesOverflowTests checks it against the real SDK).
    /// </summary>
    public static int SeriesKept(int limit) => limit <= 0 ? int.MaxValue : limit;

    /// <summary>Whether any per-event histogram has an enabled listener: with none, the aggregation records nothing.</summary>
    public bool RecordsEvents => _flushWriteSize?.Enabled == true || _flushDuration?.Enabled == true || _waitDuration?.Enabled == true;

    /// <summary>Records one event's value into its histogram when a listener is enabled; allocates nothing.</summary>
    public void Record(EventMeasure measure, double value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        switch (measure)
        {
            case EventMeasure.FlushWriteSize when _flushWriteSize is { Enabled: true } sizes:
                sizes.Record((long)value, tags);
                break;
            case EventMeasure.FlushDuration when _flushDuration is { Enabled: true } durations:
                durations.Record(value, tags);
                break;
            case EventMeasure.WaitDuration when _waitDuration is { Enabled: true } waits:
                waits.Record(value, tags);
                break;
        }
    }

    /// <summary>
    /// Records <paramref name="count"/> flushes of <paramref name="bytes"/> each (a histogram-mode bucket). The SDK's
    /// Histogram has no weighted Record, and no other set of values gives the same count, sum and bucket counts, so this
    /// records the one value <paramref name="count"/> times: exact and allocation-free (cost per flush in bench/:
    /// AggregationBenchmarks.FlushBucketWithSdk).
    /// </summary>
    public void RecordWriteSizes(long bytes, long count, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        if (_flushWriteSize is not { Enabled: true } sizes)
        {
            return;
        }

        for (long i = 0; i < count; i++)
        {
            sizes.Record(bytes, tags);
        }
    }

    private IEnumerable<Measurement<long>> ObserveLong(MetricDefinition family) => family.ObserveLong?.Invoke(this) ?? FromAggregation<long>(family);

    private IEnumerable<Measurement<double>> ObserveDouble(MetricDefinition family) => family.ObserveDouble?.Invoke(this) ?? FromAggregation<double>(family);

    /// <summary>The health of the sources (read by the monitor's families).</summary>
    internal SourceHealth Health => _health;

    /// <summary>The health of the exporters (read by the monitor's families).</summary>
    internal ExportHealth Exports => _exports;

    /// <summary>Per family over the limit: the series beyond what the SDK keeps, highest since start.</summary>
    internal Measurement<long>[] Overflows()
    {
        var kept = SeriesKept(SeriesLimit);
        lock (_collectGate)
        {
            return [.. MetricCatalog.All.Where(f => _series[f.Index] > kept)
                .Select(f => new Measurement<long>(_series[f.Index] - kept, new KeyValuePair<string, object?>(MetricAttributes.MetricName, f.Name)))];
        }
    }

    /// <summary>This family's list of the collect in progress, reading the aggregation first when a new collect began.</summary>
    private FamilyMeasurements<T> FromAggregation<T>(MetricDefinition family)
        where T : struct
    {
        List<SeriesOverflow>? announce;
        FamilyMeasurements<T> list;
        lock (_collectGate)
        {
            if (!_filled || _served[family.Index])
            {
                Refill();
            }

            _served[family.Index] = true;
            _outstanding++;
            list = _buffers.Of<T>(family);
            announce = _toAnnounce;
            _toAnnounce = null;
        }

        if (announce is not null)
        {
            foreach (var overflow in announce)
            {
                Overflowed?.Invoke(overflow);
            }
        }

        return list;
    }

    /// <summary>Under the collect lock: every family's list refilled from the aggregation (one lock of the aggregation).</summary>
    private void Refill()
    {
        if (_outstanding > 0)
        {
            // Another collect (a second MeterProvider) is still enumerating one of the lists: leave those to it.
            _buffers = NewBuffers();
            _outstanding = 0;
        }
        else
        {
            _buffers.Clear();
        }

        Array.Clear(_served);
        Volatile.Read(ref _readings)?.Read(_buffers);
        _filled = true;
        NoteSeries();
    }

    /// <summary>Under the collect lock: each family's series of this collect, and the families newly over the limit.</summary>
    private void NoteSeries()
    {
        var kept = SeriesKept(SeriesLimit);
        foreach (var family in MetricCatalog.All)
        {
            if (family.ReadByOwner)
            {
                continue; // a few per instance and component: far below any limit the host accepts (100 or more)
            }

            var series = Math.Max(_series[family.Index], _buffers.SeriesOf(family));
            _series[family.Index] = series;
            if (series > kept && !_announced[family.Index])
            {
                _announced[family.Index] = true;
                (_toAnnounce ??= []).Add(new SeriesOverflow(family.Name, series, SeriesLimit, series - kept));
            }
        }
    }

    private MeasurementBuffers NewBuffers()
    {
        MeasurementBuffers? buffers = null;
        buffers = new MeasurementBuffers(() => Returned(buffers!));
        return buffers;
    }

    private void Returned(MeasurementBuffers owner)
    {
        lock (_collectGate)
        {
            if (ReferenceEquals(owner, _buffers) && _outstanding > 0)
            {
                _outstanding--;
            }
        }
    }
}

/// <summary>A metric whose series exceed the series limit (<see cref="LogFlushMetrics.Overflowed"/>).</summary>
/// <param name="Metric">The family's OpenTelemetry name.</param>
/// <param name="Series">Its series when the overflow was noticed.</param>
/// <param name="Limit">The series limit (Exporters:CardinalityLimit).</param>
/// <param name="Folded">Series beyond what the limit keeps, folded into the overflow series.</param>
public readonly record struct SeriesOverflow(string Metric, int Series, int Limit, int Folded);
