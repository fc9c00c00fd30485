using LogFlushMonitor.Core.Metrics;

namespace LogFlushMonitor.Core.Aggregation;

/// <summary>
/// One database on one availability replica as the last replica-states poll saw it: point values, each null where the
/// server answered NULL (a column the version lacks, a figure the server does not know on this side).
/// </summary>
internal sealed class ReplicaSeries : PolledSeries
{
    public ReplicaSeries(string instance, string database, string group, string replica, string role, string mode)
    {
        Replica = replica;
        Role = role;
        Mode = mode;
        Tags =
        [
            new(MetricAttributes.Instance, MetricAttributes.Limit(instance)), new(MetricAttributes.Database, MetricAttributes.Limit(database)),
            new(MetricAttributes.AvailabilityGroup, MetricAttributes.Limit(group)), new(MetricAttributes.Replica, MetricAttributes.Limit(replica)),
            new(MetricAttributes.ReplicaRole, MetricAttributes.Limit(role)), new(MetricAttributes.AvailabilityMode, MetricAttributes.Limit(mode)),
        ];
    }

    public string Replica { get; }

    public string Role { get; }

    public string Mode { get; }

    public int DatabaseId { get; set; }

    public string? SynchronizationState { get; set; }

    /// <summary>The values by <see cref="ReplicaColumn"/>, as the server gives them (KB, KB/s, seconds).</summary>
    public long?[] Values { get; } = new long?[Enum.GetValues<ReplicaColumn>().Length];
}
