namespace LogFlushMonitor.Core.Samples;

/// <summary>
/// Where polled rows go: a few hundred per poll interval from the DMV pollers and histogram reads. They go straight
/// to the aggregation (no channel) and are never dropped.
/// </summary>
public interface IPollSink : ILossSink
{
    /// <summary>A performance-counter row.</summary>
    void OnCounter(in CounterSample counter);

    /// <summary>A wait-stats row.</summary>
    void OnWaitStats(in WaitStatsSample waitStats);

    /// <summary>A log file's I/O stats row.</summary>
    void OnFileStats(in FileStatsSample fileStats);

    /// <summary>The instance start time as read now.</summary>
    void OnServerStart(in ServerStartSample start);

    /// <summary>A poll finished: series it did not refresh are retired.</summary>
    void OnPollCompleted(in PollCompleted completed);

    /// <summary>
    /// A database's id and name as the server lists them (sys.databases), so series keyed by database_id get the
    /// name even when the event session carries no name action.
    /// </summary>
    void OnDatabaseName(in DatabaseNameSample database);

    /// <summary>
    /// Flushes counted by a server-side histogram target: <see cref="FlushBucketSample.Count"/> flushes of one write
    /// size, delivered once instead of as that many events.
    /// </summary>
    void OnFlushBucket(in FlushBucketSample bucket);

    /// <summary>Sessions of one database waiting on WRITELOG now (0 when none): in-flight waits, polled.</summary>
    void OnWriteLogWaiters(in WriteLogWaitersSample waiters);

    /// <summary>The log held by one application's open transactions in one database (the top 5 and "other"), polled.</summary>
    void OnLogWriters(in LogWritersSample writers);

    /// <summary>One availability-group database on one replica (queues, rates, lag): the remote half of a synchronous commit.</summary>
    void OnHadrReplica(in HadrReplicaSample replica);

    /// <summary>
    /// Where a source keeps the flushes of one instance that started and have not completed, read when the metrics are
    /// collected (<see cref="XEvents.OutstandingFlushSource"/>). Sent once per source; a later one for the same instance
    /// replaces it, and a closed one is no longer read (its series go).
    /// </summary>
    void OnOutstandingFlushes(XEvents.OutstandingFlushSource source);
}
