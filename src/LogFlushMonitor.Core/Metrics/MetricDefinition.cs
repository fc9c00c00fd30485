using System.Diagnostics.Metrics;

namespace LogFlushMonitor.Core.Metrics;

/// <summary>
/// One exported metric family: what <see cref="LogFlushMetrics"/> creates its instrument from, and what docs/metrics.md's
/// tables are generated from (tests/…/MetricsDocumentationTests). Declared next to the code that fills it: a signal's
/// families in its own file (<see cref="Signals.Signal.Families"/>), the events' and the monitor's in
/// <see cref="MetricCatalog"/>.
/// </summary>
public sealed class MetricDefinition
{
    /// <summary>The OpenTelemetry name: lowercase, dotted, under <c>sqlserver.</c>; the unit is never in it.</summary>
    public required string Name { get; init; }

    /// <summary>The UCUM unit (<c>By</c>, <c>s</c>, <c>1</c>, <c>{flush}</c>).</summary>
    public required string Unit { get; init; }

    /// <summary>The instrument's kind.</summary>
    public required MetricKind Kind { get; init; }

    /// <summary>Whether the values are integers (<see cref="long"/>) or fractional (<see cref="double"/>).</summary>
    public required bool IsInteger { get; init; }

    /// <summary>The instrument's description (the Prometheus HELP line).</summary>
    public required string Description { get; init; }

    /// <summary>For a histogram recorded per event: which value of the event; else null.</summary>
    public EventMeasure? Measure { get; init; }

    /// <summary>
    /// For a family the metrics owner reads itself (the monitor's health), how: integer values; null for a family the
    /// aggregation fills at each collect.
    /// </summary>
    internal Func<LogFlushMetrics, IEnumerable<Measurement<long>>>? ObserveLong { get; init; }

    /// <summary>As <see cref="ObserveLong"/>, for fractional values.</summary>
    internal Func<LogFlushMetrics, IEnumerable<Measurement<double>>>? ObserveDouble { get; init; }

    /// <summary>Whether the metrics owner reads it itself rather than from the aggregation.</summary>
    internal bool ReadByOwner => ObserveLong is not null || ObserveDouble is not null;

    /// <summary>The signal whose state fills it, or null for the events' and the monitor's families.</summary>
    public Signals.Signal? Owner { get; internal set; }

    /// <summary>The attributes of its series, in the order they are set (<see cref="MetricAttributes"/>).</summary>
    public required IReadOnlyList<string> Attributes { get; init; }

    /// <summary>A histogram's bucket bounds (instrument advice), else null.</summary>
    public IReadOnlyList<double>? Buckets { get; init; }

    /// <summary>
    /// A histogram's base-2 exponential scale when exported as an exponential histogram (OTLP; bucket bounds are
    /// 2^(i / 2^scale)): the highest the SDK may use, chosen so the buckets that matter stay readable; else null.
    /// </summary>
    public int? ExponentialMaxScale { get; init; }

    /// <summary>Where docs/metrics.md lists it.</summary>
    public required MetricSection Section { get; init; }

    /// <summary>The meaning column of docs/metrics.md (Markdown).</summary>
    public required string Meaning { get; init; }

    /// <summary>The PromQL column of docs/metrics.md (Markdown), or empty.</summary>
    public string PromQL { get; init; } = "";

    /// <summary>The family's position in <see cref="MetricCatalog.All"/>.</summary>
    public int Index { get; internal set; } = -1;

    /// <inheritdoc />
    public override string ToString() => Name;
}

/// <summary>What a family's instrument is.</summary>
public enum MetricKind
{
    /// <summary>A cumulative sum read at collection (ObservableCounter): Prometheus <c>counter</c>, <c>_total</c>.</summary>
    Counter,

    /// <summary>A value read at collection (ObservableGauge): Prometheus <c>gauge</c>.</summary>
    Gauge,

    /// <summary>Recorded per event (Histogram): Prometheus <c>histogram</c>.</summary>
    Histogram,
}

/// <summary>The tables of docs/metrics.md, in the order they appear.</summary>
public enum MetricSection
{
    /// <summary>From events (Extended Events, per event).</summary>
    Events,

    /// <summary>From performance counters, per database.</summary>
    Counters,

    /// <summary>From the counters' <c>_Total</c> instance.</summary>
    InstanceCounters,

    /// <summary>From wait stats.</summary>
    WaitStats,

    /// <summary>From log-file I/O stats.</summary>
    FileStats,

    /// <summary>In flight now (flushes outstanding, sessions waiting): what a stalled log device shows.</summary>
    InFlight,

    /// <summary>Where commit time goes: the commit budget by part.</summary>
    CommitTime,

    /// <summary>The log-rate cap of Azure SQL Database and Managed Instance (resource governance).</summary>
    LogRate,

    /// <summary>Availability-group replicas (sys.dm_hadr_database_replica_states): the remote half of a synchronous commit.</summary>
    Replicas,

    /// <summary>The log's space: why it cannot be reused, how much room is left, when it will be full.</summary>
    LogSpace,

    /// <summary>The instance and the monitor.</summary>
    Monitor,
}
