using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Core.Samples;

namespace LogFlushMonitor.Core.Aggregation;

/// <summary>
/// Availability-group replicas (sys.dm_hadr_database_replica_states): the send and redo queues, their rates, the
/// secondary's lag and the age of its last harden, per database and replica. An instance without availability groups
/// sends no rows and has no series.
/// </summary>
public sealed partial class LogFlushAggregator
{
    /// <inheritdoc />
    public void OnHadrReplica(in HadrReplicaSample replica)
    {
        lock (_gate)
        {
            var inst = Instance(replica.Instance);
            inst.LearnName(replica.DatabaseId, replica.DatabaseName);
            var key = (replica.DatabaseName, replica.AvailabilityGroup, replica.Replica, replica.Role, replica.AvailabilityMode);
            if (!inst.Replicas.TryGetValue(key, out var s))
            {
                s = new ReplicaSeries(inst.Name, replica.DatabaseName, replica.AvailabilityGroup, replica.Replica, replica.Role, replica.AvailabilityMode);
                inst.Replicas[key] = s;
            }

            s.Stamp = inst.CurrentStamp(PollKind.HadrReplicas);
            s.DatabaseId = replica.DatabaseId;
            s.SynchronizationState = replica.SynchronizationState;
            s.Values[(int)ReplicaColumn.LogSendQueueSize] = replica.LogSendQueueKb;
            s.Values[(int)ReplicaColumn.LogSendRate] = replica.LogSendRateKbPerSecond;
            s.Values[(int)ReplicaColumn.RedoQueueSize] = replica.RedoQueueKb;
            s.Values[(int)ReplicaColumn.RedoRate] = replica.RedoRateKbPerSecond;
            s.Values[(int)ReplicaColumn.SecondaryLag] = replica.SecondaryLagSeconds;
            s.Values[(int)ReplicaColumn.LastHardenedAge] = replica.LastHardenedAgeSeconds;
        }
    }

    /// <summary>Every availability-group database and replica as the last replica-states poll saw them.</summary>
    public IReadOnlyList<ReplicaSnapshot> SnapshotReplicas()
    {
        lock (_gate)
        {
            return [.. _instances.Values.SelectMany(i => i.Replicas.Select(r => new ReplicaSnapshot(
                i.Name, r.Key.Database, r.Key.Group, r.Key.Replica, r.Key.Role, r.Key.Mode, r.Value.SynchronizationState,
                r.Value.Values[(int)ReplicaColumn.LogSendQueueSize], r.Value.Values[(int)ReplicaColumn.LogSendRate],
                r.Value.Values[(int)ReplicaColumn.RedoQueueSize], r.Value.Values[(int)ReplicaColumn.RedoRate],
                r.Value.Values[(int)ReplicaColumn.SecondaryLag], r.Value.Values[(int)ReplicaColumn.LastHardenedAge])))];
        }
    }

    /// <summary>Under the lock: one value per replica series whose column the server answered (NULL gives no value, never 0).</summary>
    private static void ReadReplicas(InstanceState inst, MetricDefinition family, ReplicaSource source, MeasurementBuffers into)
    {
        foreach (var s in inst.Replicas.Values)
        {
            if (s.Values[(int)source.Column] is { } value)
            {
                var scaled = source.Scale.Apply(value);
                Add(into, family, (long)scaled, scaled, s.Tags);
            }
        }
    }
}
