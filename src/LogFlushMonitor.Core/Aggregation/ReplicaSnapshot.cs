namespace LogFlushMonitor.Core.Aggregation;

/// <summary>One availability-group database on one replica, as last polled (values as the server gives them; null where NULL).</summary>
/// <param name="Instance">The monitored instance.</param>
/// <param name="Database">The database.</param>
/// <param name="AvailabilityGroup">The availability group.</param>
/// <param name="Replica">The instance hosting this copy.</param>
/// <param name="Role">PRIMARY, SECONDARY, RESOLVING or UNKNOWN.</param>
/// <param name="AvailabilityMode">SYNCHRONOUS_COMMIT or ASYNCHRONOUS_COMMIT.</param>
/// <param name="SynchronizationState">synchronization_state_desc.</param>
/// <param name="LogSendQueueKb">Log not yet sent, KB.</param>
/// <param name="LogSendRateKbPerSecond">Send rate, KB/s.</param>
/// <param name="RedoQueueKb">Log not yet redone, KB.</param>
/// <param name="RedoRateKbPerSecond">Redo rate, KB/s.</param>
/// <param name="SecondaryLagSeconds">secondary_lag_seconds.</param>
/// <param name="LastHardenedAgeSeconds">Seconds since last_hardened_time.</param>
/// <param name="CommitBehindSeconds">The primary's last_commit_time minus this copy's, seconds (on the primary), or null.</param>
/// <param name="BehindThresholdSeconds">How far behind this copy may fall before its alert fires (configuration), seconds.</param>
public sealed record ReplicaSnapshot(
    string Instance, string Database, string AvailabilityGroup, string Replica, string Role, string AvailabilityMode, string? SynchronizationState,
    long? LogSendQueueKb, long? LogSendRateKbPerSecond, long? RedoQueueKb, long? RedoRateKbPerSecond, long? SecondaryLagSeconds, long? LastHardenedAgeSeconds,
    double? CommitBehindSeconds = null, double? BehindThresholdSeconds = null)
{
    /// <summary>Seconds to send the queued log at the current send rate, or null (unknown, or a rate of 0).</summary>
    public double? SendDrainSeconds => Signals.HadrReplicasSignal.Drain(LogSendQueueKb, LogSendRateKbPerSecond);

    /// <summary>Seconds to redo the queued log at the current redo rate, or null.</summary>
    public double? RedoDrainSeconds => Signals.HadrReplicasSignal.Drain(RedoQueueKb, RedoRateKbPerSecond);

    /// <summary>Whether this copy is further behind than its threshold.</summary>
    public bool IsBehind => CommitBehindSeconds > BehindThresholdSeconds;
}
