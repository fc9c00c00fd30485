namespace LogFlushMonitor.Core.Aggregation;

/// <summary>One database's statistics at one moment (a copy: safe to keep and read from any thread).</summary>
public sealed record DatabaseSnapshot
{
    /// <summary>Instance name.</summary>
    public required string Instance { get; init; }

    /// <summary>database_id, or -1 when the database is known only from polled rows.</summary>
    public required int DatabaseId { get; init; }

    /// <summary>Database name, or "id:N" when not known.</summary>
    public required string Database { get; init; }

    /// <summary>Exact write-size distribution of the flush events (a copy).</summary>
    public required WriteSizeDistribution WriteSizes { get; init; }

    /// <summary>Flush durations from log_flush_complete (a copy).</summary>
    public required LatencyDistribution FlushDurations { get; init; }

    /// <summary>Waits by type from wait events.</summary>
    public required IReadOnlyList<WaitSnapshot> Waits { get; init; }

    /// <summary>
    /// WRITELOG time by client application (top 5 and "other", most time first), when wait events carried the
    /// client_app_name action; empty otherwise (histogram mode, a session without the action).
    /// </summary>
    public IReadOnlyList<ApplicationWriteLog> WriteLogApplications { get; init; } = [];

    /// <summary>
    /// WRITELOG time by statement (top 5 query hashes and "other", most time first), when wait events carried the
    /// query_hash action; empty otherwise.
    /// </summary>
    public IReadOnlyList<StatementWriteLog> WriteLogStatements { get; init; } = [];

    /// <summary>
    /// Log bytes by statement from Query Store (top 5 query hashes and "other", most log first), when the database was read;
    /// empty otherwise. <see cref="QueryStoreState"/> says what the last read found.
    /// </summary>
    public IReadOnlyList<StatementLog> LogStatements { get; init; } = [];

    /// <summary>The database's Query Store at the last read (<see cref="Signals.QueryStoreStates"/>), or null when not read.</summary>
    public string? QueryStoreState { get; init; }

    /// <summary>The top log writers at the last transactions poll (top 5 and "other", most log first); empty when none or not polled.</summary>
    public IReadOnlyList<ApplicationLogWriter> LogWriters { get; init; } = [];

    /// <summary>First and last event time, when any event arrived.</summary>
    public DateTime? FirstEventUtc { get; init; }

    /// <summary>Last event time.</summary>
    public DateTime? LastEventUtc { get; init; }

    /// <summary>Log Flushes/sec over the last poll interval (restart-safe), when polled.</summary>
    public double? CounterFlushesPerSecond { get; init; }

    /// <summary>Log Bytes Flushed/sec over the last poll interval.</summary>
    public double? CounterBytesPerSecond { get; init; }

    /// <summary>Log flushes counted by the server since monitoring began.</summary>
    public long? CounterFlushesTotal { get; init; }

    /// <summary>Average log write latency over the last poll interval (delta stall / delta writes), seconds.</summary>
    public double? LogWriteLatencySeconds { get; init; }

    /// <summary>
    /// Seconds commits spent waiting for log flushes per second over the last poll interval (the counter
    /// <c>Log Flush Wait Time</c>, milliseconds, as a rate): WRITELOG pressure from the server, when polled.
    /// </summary>
    public double? CounterFlushWaitSecondsPerSecond { get; init; }

    /// <summary>Commits that waited for a log flush per second over the last poll interval (<c>Log Flush Waits/sec</c>).</summary>
    public double? CounterFlushWaitsPerSecond { get; init; }

    /// <summary>Log writes per second over the last poll interval, from file stats.</summary>
    public double? LogWritesPerSecond { get; init; }

    /// <summary>Share of the flushes the server counted for which no event arrived (events vs Log Flushes/sec), when both are known.</summary>
    public double? EventLossRatio { get; init; }

    /// <summary>
    /// The 10 seconds with the most WRITELOG time waited, from the wait events of a file or recording (analyze,
    /// report); null in the service, whose alerts watch the rates themselves.
    /// </summary>
    public WriteLogWindow? BusiestWriteLogWindow { get; init; }

    /// <summary>
    /// Flushes that started and have not completed (log_flush_start without its log_flush_complete): now in the service
    /// (stream mode), at the end of the input in analyze. Null when nothing pairs this database's flushes (histogram mode).
    /// </summary>
    public int? OutstandingFlushes { get; init; }

    /// <summary>How long ago the oldest of <see cref="OutstandingFlushes"/> started, seconds (0 when none).</summary>
    public double? OldestOutstandingFlushSeconds { get; init; }

    /// <summary>Sessions waiting on WRITELOG now (the last sys.dm_os_waiting_tasks poll); null when not polled.</summary>
    public int? WriteLogWaitingSessions { get; init; }

    /// <summary>The longest of those sessions' current WRITELOG waits, seconds (0 when none waits).</summary>
    public double? WriteLogLongestWaitSeconds { get; init; }

    /// <summary>
    /// The average time a transaction waited for its synchronous availability-group secondaries in the last poll interval
    /// (Database Replica: Transaction Delay over Mirrored Write Transactions/sec), milliseconds; null without those
    /// counters or without a mirrored transaction in the interval.
    /// </summary>
    public double? SyncCommitDelayMsPerTransaction { get; init; }

    /// <summary>
    /// Where commit time went over the last minute or so (the commit budget: local flush, synchronous replica, log-rate
    /// governor, I/O-governance queue, log buffer), or null when no part has a source.
    /// </summary>
    public CommitBudgetSnapshot? CommitBudget { get; init; }

    /// <summary>
    /// Azure's log-rate governance of the database at the last poll (its tier, cap and the share written; on Managed
    /// Instance the instance's), or null on SQL Server and before the first poll.
    /// </summary>
    public Signals.LogRateSnapshot? LogRate { get; init; }

    /// <summary>
    /// The database's copies on its availability replicas at the last replica-states poll (on a primary, its own and each
    /// secondary's), with how far each is behind and its threshold; empty outside a group.
    /// </summary>
    public IReadOnlyList<ReplicaSnapshot> Replicas { get; init; } = [];

    /// <summary>
    /// The log's space at the last polls (sys.dm_db_log_stats with the log files' room): why it cannot be reused, how fast
    /// it grows, when it will be full; null when not polled.
    /// </summary>
    public Signals.LogSpaceSnapshot? LogSpace { get; init; }

    /// <summary>Seconds between the first and last event.</summary>
    public double EventSpanSeconds => FirstEventUtc is { } f && LastEventUtc is { } l ? (l - f).TotalSeconds : 0;
}
