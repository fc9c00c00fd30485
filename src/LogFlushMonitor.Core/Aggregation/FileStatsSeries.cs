namespace LogFlushMonitor.Core.Aggregation;

/// <summary>One log file's row of sys.dm_io_virtual_file_stats, tracked restart-safe.</summary>
internal sealed class FileStatsSeries : PolledSeries
{
    /// <summary>A log file of <paramref name="databaseName"/>, with the database's shared tags (<see cref="InstanceState.AcquireDatabaseTags"/>).</summary>
    public FileStatsSeries(int databaseId, string databaseName, KeyValuePair<string, object?>[] tags)
    {
        DatabaseId = databaseId;
        DatabaseName = databaseName;
        Tags = tags;
    }

    public int DatabaseId { get; }

    public string DatabaseName { get; }

    public CumulativeTracker Writes;

    public CumulativeTracker Bytes;

    public CumulativeTracker StallMs;

    /// <summary>io_stall_queued_write_ms, once a row carried it (a recording made before it was read has none).</summary>
    public CumulativeTracker QueuedMs;

    /// <summary>Whether a row carried io_stall_queued_write_ms.</summary>
    public bool HasQueued { get; set; }
}

/// <summary>The log files of one database on one instance: its file-stats families export their sum, with these tags.</summary>
internal sealed class DatabaseLogFiles(KeyValuePair<string, object?>[] tags)
{
    public KeyValuePair<string, object?>[] Tags { get; } = tags;

    public List<FileStatsSeries> Files { get; } = [];
}
