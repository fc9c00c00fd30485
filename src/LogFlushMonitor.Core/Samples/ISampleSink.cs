namespace LogFlushMonitor.Core.Samples;

/// <summary>
/// Where every source (simulator, replay, .xel files, the live SQL Server stream and pollers) delivers what it
/// produces. Nothing downstream knows which source it was.
/// </summary>
/// <remarks>Implementations state their own threading rules.</remarks>
public interface ISampleSink
{
    /// <summary>A log_flush_start or log_flush_complete event.</summary>
    void OnLogFlush(in LogFlushEvent flush);

    /// <summary>A completed wait event.</summary>
    void OnWait(in WaitEvent wait);

    /// <summary>A performance-counter row.</summary>
    void OnCounter(in CounterSample counter);

    /// <summary>A wait-stats row.</summary>
    void OnWaitStats(in WaitStatsSample waitStats);

    /// <summary>A log file's I/O stats row.</summary>
    void OnFileStats(in FileStatsSample fileStats);

    /// <summary>The instance start time as read now.</summary>
    void OnServerStart(in ServerStartSample start);

    /// <summary>A poll finished.</summary>
    void OnPollCompleted(in PollCompleted completed);

    /// <summary>
    /// A database's id and name as the server lists them (sys.databases), so series keyed by database_id get the
    /// name even when the event session carries no name action. Sinks that have no use for it ignore it.
    /// </summary>
    void OnDatabaseName(string instance, int databaseId, string name)
    {
    }

    /// <summary>Events the source knows it lost (an event_sequence gap, a server-side drop, a malformed line).</summary>
    void OnSourceLoss(string instance, LossKind kind, long count);
}

/// <summary>Why events or samples were lost before they reached the aggregation.</summary>
public enum LossKind
{
    /// <summary>Gaps in package0.event_sequence.</summary>
    SequenceGap,

    /// <summary>The pipeline's bounded channel was full.</summary>
    ChannelFull,

    /// <summary>The server reported dropped events (sys.dm_xe_sessions).</summary>
    ServerDropped,

    /// <summary>An input line or record could not be parsed.</summary>
    Malformed,
}
