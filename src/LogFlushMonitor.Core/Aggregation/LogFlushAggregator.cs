using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;

namespace LogFlushMonitor.Core.Aggregation;

/// <summary>
/// Aggregates every sample per (instance, database): exact write-size distributions, flush and wait durations from the
/// events, and each signal's batches in the signal's own state (restart-safe counters, wait stats, log-file stats, ...).
/// Hands each event's values to
/// <see cref="LogFlushMetrics"/> outside its lock, and its state to the observable families
/// (<see cref="IMetricReadings"/>), the terminal and the advisor.
/// </summary>
/// <remarks>
/// The parts: events (<c>LogFlushAggregator.Events.cs</c>), signals' batches (<c>.Signals.cs</c>), what the families read
/// (<c>.Readings.cs</c>), in flight (<c>.InFlight.cs</c>). Thread-safety: every public member may be called from any thread; one lock serialises them.
/// The intended shape is one consumer thread per pipeline delivering events (a batch under one lock), pollers
/// delivering their rows, and the metrics SDK's collection thread reading once per collect. Each series is created in
/// the group of the family it feeds, so a collect reads the groups and scans nothing. The per-event path allocates
/// nothing once a database is known.
/// </remarks>
public sealed partial class LogFlushAggregator : ISampleSink, IMetricReadings
{
    private readonly Lock _gate = new();
    private readonly Dictionary<string, InstanceState> _instances = new(StringComparer.Ordinal);
    private readonly LogFlushMetrics? _metrics;
    private readonly CounterSelection _counters;
    private readonly Action<RejectedReading>? _rejected;
    private readonly Action<AgreementReport>? _agreement;
    private readonly ReplicaBehindThresholds _replicas;
    private InstanceState? _last;

    /// <summary>Creates an aggregation that <paramref name="metrics"/>, when given, records and reads.</summary>
    /// <param name="metrics">Where each event is recorded and whose observable families read this aggregation, or null.</param>
    /// <param name="counters">
    /// Which performance counters become series (default <see cref="CounterSelection.Default"/>): every source, the
    /// simulated and replayed ones included, is held to the set a real poll asks for.
    /// </param>
    /// <param name="rejected">
    /// Told of every polled value refused as impossible (also counted as malformed), outside the aggregation's lock, on
    /// the caller's thread; the host logs it.
    /// </param>
    /// <param name="agreement">
    /// Told when an event figure starts or stops disagreeing with the server's own for several windows, or a wait unit
    /// was corrected (<see cref="AgreementReport"/>), outside the lock; the host logs it once and shows it in /readyz.
    /// </param>
    /// <param name="replicas">How far behind each availability replica may fall (default <see cref="ReplicaBehindThresholds.Default"/>).</param>
    public LogFlushAggregator(LogFlushMetrics? metrics = null, CounterSelection? counters = null, Action<RejectedReading>? rejected = null, Action<AgreementReport>? agreement = null,
        ReplicaBehindThresholds? replicas = null)
    {
        _replicas = replicas ?? ReplicaBehindThresholds.Default;
        _metrics = metrics;
        _counters = counters ?? CounterSelection.Default;
        _rejected = rejected;
        _agreement = agreement;
        metrics?.ReadFrom(this);
    }

    /// <summary>Whether the calling thread holds the aggregation's lock (tests: nothing is recorded under it).</summary>
    internal bool HoldsLock => _gate.IsHeldByCurrentThread;

    /// <summary>The counters this aggregation keeps.</summary>
    public CounterSelection Counters => _counters;

    /// <summary>A consistent copy of every database's statistics, for reports, the terminal and the advisor.</summary>
    public IReadOnlyList<DatabaseSnapshot> Snapshot()
    {
        lock (_gate)
        {
            return AddInFlight(SnapshotBuilder.Build(_instances.Values));
        }
    }

    /// <summary>Per-instance totals (events, losses, restarts).</summary>
    public IReadOnlyList<InstanceSnapshot> SnapshotInstances()
    {
        lock (_gate)
        {
            return _instances.Values.Select(i => new InstanceSnapshot(
                i.Name, i.EventsReceived, i.Lost[(int)LossKind.SequenceGap], i.Lost[(int)LossKind.ChannelFull],
                i.Lost[(int)LossKind.ServerDropped], i.Lost[(int)LossKind.Malformed], i.Restarts,
                i.StartTimeUtc == default ? null : i.StartTimeUtc)).ToList();
        }
    }

    /// <summary>The state of an instance, or null (tests, which call it while no source delivers).</summary>
    internal InstanceState? InstanceOf(string name)
    {
        lock (_gate)
        {
            return _instances.GetValueOrDefault(name);
        }
    }

    /// <summary>The state of an instance, created on first use. Called under the lock.</summary>
    private InstanceState Instance(string name)
    {
        // Sources hand the same string instance with every sample: a reference check avoids hashing per event.
        if (_last is { } last && (ReferenceEquals(last.Name, name) || last.Name == name))
        {
            return last;
        }

        if (!_instances.TryGetValue(name, out var inst))
        {
            inst = new InstanceState(name, _counters) { ReplicaThresholds = _replicas };
            _instances[name] = inst;
        }

        _last = inst;
        return inst;
    }
}
