namespace LogFlushMonitor.Core.Signals;

/// <summary>
/// Every signal, registered once, in the order an instance's poll reads them: the start time first (so a restart is seen
/// before the rows that follow it), then the catalog (which the counters and the waiters read), then the rest. The poller,
/// the aggregation, the recorder, the replay, <c>check</c> and <c>check --capture</c> take their list from here; adding a
/// signal is a file of its own and one line here (docs/architecture.md, "Adding a signal").
/// </summary>
public static class SignalRegistry
{
    /// <summary>sys.dm_os_sys_info: the instance's start time.</summary>
    public static ServerStartSignal ServerStart { get; } = new();

    /// <summary>sys.databases: names, states, the list the others read.</summary>
    public static DatabasesSignal Databases { get; } = new();

    /// <summary>sys.dm_os_performance_counters: the Databases object's counters.</summary>
    public static CountersSignal Counters { get; } = new();

    /// <summary>sys.dm_os_wait_stats: the log's waits.</summary>
    public static WaitStatsSignal WaitStats { get; } = new();

    /// <summary>sys.dm_io_virtual_file_stats: log-file I/O.</summary>
    public static FileStatsSignal FileStats { get; } = new();

    /// <summary>sys.dm_xe_sessions: the event session's drops.</summary>
    public static XeDropsSignal XeDrops { get; } = new();

    /// <summary>sys.dm_xe_session_events and sys.dm_xe_sessions: what the event session costs the server.</summary>
    public static XeSessionCostSignal XeSessionCost { get; } = new();

    /// <summary>sys.dm_os_waiting_tasks: sessions waiting on WRITELOG now.</summary>
    public static WriteLogWaitersSignal WriteLogWaiters { get; } = new();

    /// <summary>sys.dm_tran_database_transactions: the log held by open transactions, by application.</summary>
    public static LogWritersSignal LogWriters { get; } = new();

    /// <summary>sys.dm_hadr_database_replica_states: availability-group replicas.</summary>
    public static HadrReplicasSignal HadrReplicas { get; } = new();

    /// <summary>Azure's log-rate governance: the cap, the share of it written, Hyperscale's limiting component.</summary>
    public static LogRateSignal LogRate { get; } = new();

    /// <summary>sys.master_files and sys.dm_os_volume_stats: the log files' size, max size, growth and the room under them.</summary>
    public static LogFilesSignal LogFiles { get; } = new();

    /// <summary>sys.dm_db_log_stats: why the log cannot be reused, its active size, and when it will be full.</summary>
    public static LogSpaceSignal LogSpace { get; } = new();

    /// <summary>Query Store: log bytes by statement in the busiest databases (every QueryStoreInterval).</summary>
    public static QueryStoreSignal QueryStore { get; } = new();

    /// <summary>The histogram target: flushes counted by write size (histogram mode).</summary>
    public static FlushBucketsSignal FlushBuckets { get; } = new();

    /// <summary>The pair table of the event reader: flushes started and not completed.</summary>
    public static OutstandingFlushesSignal OutstandingFlushes { get; } = new();

    /// <summary>The live stream's rows, counted by type.</summary>
    public static StreamRowsSignal StreamRows { get; } = new();

    /// <summary>Every signal, in poll order.</summary>
    public static IReadOnlyList<Signal> All { get; } = Number(
        [ServerStart, Databases, Counters, WaitStats, FileStats, XeDrops, XeSessionCost, WriteLogWaiters, LogWriters, HadrReplicas, LogRate, LogFiles, LogSpace, QueryStore, FlushBuckets, OutstandingFlushes, StreamRows]);

    /// <summary>The signal whose recorded lines are of <paramref name="lineType"/>, or null.</summary>
    public static SignalRecording? RecordingOf(string lineType) => All.Select(s => s.Recording).FirstOrDefault(r => r?.LineType == lineType);

    /// <summary>The signal whose <c>poll_completed</c> lines are of <paramref name="kind"/>, or null.</summary>
    public static SignalRecording? CompletedBy(string kind) => All.Select(s => s.Recording).FirstOrDefault(r => r?.CompletedKind == kind);

    private static Signal[] Number(Signal[] signals)
    {
        for (var i = 0; i < signals.Length; i++)
        {
            signals[i].Index = i;
        }

        return signals;
    }
}
