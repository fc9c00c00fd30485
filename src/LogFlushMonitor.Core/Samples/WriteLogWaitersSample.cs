namespace LogFlushMonitor.Core.Samples;

/// <summary>
/// Sessions of one database waiting on WRITELOG at the moment of a poll (<c>sys.dm_os_waiting_tasks</c> joined to
/// <c>sys.dm_exec_requests</c>): in-flight waits, which a stalled log device makes grow while every cumulative figure
/// stays flat. A poll delivers one per watched database (0 sessions when none waits), then
/// <see cref="PollCompleted"/> of <see cref="PollKind.WriteLogWaiters"/>.
/// </summary>
/// <param name="Instance">The SQL Server instance name.</param>
/// <param name="TimestampUtc">When the poll read it.</param>
/// <param name="DatabaseId">database_id of the requests.</param>
/// <param name="DatabaseName">The database name.</param>
/// <param name="Sessions">Sessions with a task waiting on WRITELOG now.</param>
/// <param name="LongestWaitMs">The longest of their current waits (wait_duration_ms), 0 when none waits.</param>
public readonly record struct WriteLogWaitersSample(
    string Instance,
    DateTime TimestampUtc,
    int DatabaseId,
    string DatabaseName,
    int Sessions,
    long LongestWaitMs);
