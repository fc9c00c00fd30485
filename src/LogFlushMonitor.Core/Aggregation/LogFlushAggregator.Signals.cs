using LogFlushMonitor.Core.Signals;

namespace LogFlushMonitor.Core.Aggregation;

/// <summary>
/// The polled side: every signal's batches, applied by the signal's own state of the instance (created with the
/// instance's first batch of that signal), whatever the signal.
/// </summary>
public sealed partial class LogFlushAggregator
{
    /// <inheritdoc />
    public void OnBatch(SignalBatch batch)
    {
        ArgumentNullException.ThrowIfNull(batch);
        var outcome = new SignalOutcome();
        lock (_gate)
        {
            var inst = Instance(batch.Instance);
            inst.LastBatchTicks = Math.Max(inst.LastBatchTicks, batch.TimestampUtc.Ticks);
            inst.StateOf(batch.Signal).Apply(batch, outcome);
            if (batch.EndsPoll && (batch.Signal == SignalRegistry.Counters || batch.Signal == SignalRegistry.WaitStats || batch.Signal == SignalRegistry.FileStats))
            {
                // The commit budget reads these (and the events since the last poll): once per poll of each, never per event or collect.
                inst.Budgets.Advance();
            }
        }

        // Outside the lock: logging, the host's /readyz and the SDK's records never hold up a collect or another source.
        foreach (var r in outcome.Rejected ?? [])
        {
            _rejected?.Invoke(r);
        }

        foreach (var r in outcome.Agreement ?? [])
        {
            _agreement?.Invoke(r);
        }

        foreach (var (bytes, count, tags) in outcome.WriteSizes ?? [])
        {
            _metrics?.RecordWriteSizes(bytes, count, tags);
        }
    }

    /// <summary>Every availability-group database and replica as the last replica-states poll saw them.</summary>
    public IReadOnlyList<ReplicaSnapshot> SnapshotReplicas()
    {
        lock (_gate)
        {
            return [.. _instances.Values.SelectMany(i => (i.Find<HadrReplicasSignal.State>(SignalRegistry.HadrReplicas)?.Series ?? []).Select(r => SnapshotBuilder.ReplicaOf(i, r.Key, r.Value)))];
        }
    }
}
