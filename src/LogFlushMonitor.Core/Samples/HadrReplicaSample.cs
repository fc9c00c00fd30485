namespace LogFlushMonitor.Core.Samples;

/// <summary>
/// One database on one availability replica as the local instance sees it (<c>sys.dm_hadr_database_replica_states</c>
/// with the replica, group and role): on a primary, one for its own database and one for each secondary's copy. A poll
/// delivers one per row, then <see cref="PollCompleted"/> of <see cref="PollKind.HadrReplicas"/>; an instance without
/// availability groups delivers none. A figure the server left NULL (a column the version lacks, a value it does not
/// know on this side) is null here and exported as no value, never as 0.
/// </summary>
/// <param name="Instance">The SQL Server instance name.</param>
/// <param name="TimestampUtc">When the poll read it.</param>
/// <param name="DatabaseId">database_id (of the local database).</param>
/// <param name="DatabaseName">The database name.</param>
/// <param name="AvailabilityGroup">sys.availability_groups.name.</param>
/// <param name="Replica">sys.availability_replicas.replica_server_name: the instance hosting this copy.</param>
/// <param name="Role">role_desc of that replica (PRIMARY, SECONDARY, RESOLVING).</param>
/// <param name="AvailabilityMode">availability_mode_desc of that replica (SYNCHRONOUS_COMMIT, ASYNCHRONOUS_COMMIT, CONFIGURATION_ONLY).</param>
/// <param name="SynchronizationState">synchronization_state_desc (SYNCHRONIZED, SYNCHRONIZING, NOT SYNCHRONIZING, ...).</param>
/// <param name="LogSendQueueKb">log_send_queue_size: log not yet sent to the secondary, KB.</param>
/// <param name="LogSendRateKbPerSecond">log_send_rate: average send rate of the last active period, KB/s.</param>
/// <param name="RedoQueueKb">redo_queue_size: log hardened on the secondary and not yet redone, KB.</param>
/// <param name="RedoRateKbPerSecond">redo_rate: average redo rate, KB/s.</param>
/// <param name="SecondaryLagSeconds">secondary_lag_seconds (SQL Server 2016 and later): how far the secondary is behind, seconds.</param>
/// <param name="LastHardenedAgeSeconds">Seconds from last_hardened_time to the server's clock at the poll.</param>
public readonly record struct HadrReplicaSample(
    string Instance,
    DateTime TimestampUtc,
    int DatabaseId,
    string DatabaseName,
    string AvailabilityGroup,
    string Replica,
    string Role,
    string AvailabilityMode,
    string? SynchronizationState,
    long? LogSendQueueKb,
    long? LogSendRateKbPerSecond,
    long? RedoQueueKb,
    long? RedoRateKbPerSecond,
    long? SecondaryLagSeconds,
    long? LastHardenedAgeSeconds);
