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
}

/// <summary>Marks the end of one poll of <see cref="Kind"/>: series the poll did not refresh are retired.</summary>
public readonly record struct PollCompleted(string Instance, DateTime TimestampUtc, PollKind Kind);
