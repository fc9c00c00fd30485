namespace LogFlushMonitor.Core.Samples;

/// <summary>One row of <c>sys.dm_os_wait_stats</c> (cumulative, instance-wide).</summary>
public readonly record struct WaitStatsSample(
    string Instance,
    DateTime TimestampUtc,
    string WaitType,
    long WaitingTasks,
    long WaitTimeMs,
    long MaxWaitTimeMs,
    long SignalWaitTimeMs);

/// <summary>One log file's row of <c>sys.dm_io_virtual_file_stats</c> (cumulative since the file opened).</summary>
public readonly record struct FileStatsSample(
    string Instance,
    DateTime TimestampUtc,
    int DatabaseId,
    string DatabaseName,
    int FileId,
    long NumWrites,
    long BytesWritten,
    long IoStallWriteMs);

/// <summary>
/// The instance's start time (<c>sys.dm_os_sys_info.sqlserver_start_time</c>) as read at
/// <see cref="TimestampUtc"/>. A new value means every cumulative value of the instance restarted.
/// </summary>
public readonly record struct ServerStartSample(string Instance, DateTime TimestampUtc, DateTime StartTimeUtc);

/// <summary>What a completed poll covered; rows it did not return are gone (a dropped or offline database).</summary>
public enum PollKind
{
    /// <summary>sys.dm_os_performance_counters.</summary>
    Counters,

    /// <summary>sys.dm_os_wait_stats.</summary>
    WaitStats,

    /// <summary>sys.dm_io_virtual_file_stats.</summary>
    FileStats,

    /// <summary>sys.dm_os_waiting_tasks: sessions waiting on WRITELOG now (<see cref="WriteLogWaitersSample"/>).</summary>
    WriteLogWaiters,

    /// <summary>sys.dm_tran_database_transactions: log held by open transactions, by application (<see cref="LogWritersSample"/>).</summary>
    LogWriters,
    /// <summary>sys.dm_hadr_database_replica_states: availability-group databases and their replicas (<see cref="HadrReplicaSample"/>).</summary>
    HadrReplicas,
}

/// <summary>Marks the end of one poll of <see cref="Kind"/>: series the poll did not refresh are retired.</summary>
public readonly record struct PollCompleted(string Instance, DateTime TimestampUtc, PollKind Kind);

/// <summary>A database's id and name as sys.databases lists them, read at <see cref="TimestampUtc"/>.</summary>
public readonly record struct DatabaseNameSample(string Instance, DateTime TimestampUtc, int DatabaseId, string Name);

/// <summary>
/// <see cref="Count"/> log flushes of <see cref="WriteSize"/> bytes each, counted by a server-side histogram target
/// (package0.histogram on log_flush_start.write_size) since the previous reading.
/// </summary>
/// <param name="Instance">The SQL Server instance name.</param>
/// <param name="TimestampUtc">When the target was read.</param>
/// <param name="DatabaseId">database_id the target covers, 0 for an instance-wide target.</param>
/// <param name="DatabaseName">The database name, "(all)" for an instance-wide target.</param>
/// <param name="WriteSize">The slot's write size in bytes.</param>
/// <param name="Count">Flushes of that size since the previous reading (positive).</param>
public readonly record struct FlushBucketSample(
    string Instance,
    DateTime TimestampUtc,
    int DatabaseId,
    string? DatabaseName,
    uint WriteSize,
    long Count);
