namespace LogFlushMonitor.Simulation;

/// <summary>
/// One simulated database: its workload and the cumulative values the server would report for it. Every
/// counter, file stat and event comes from the same increments, so they agree by construction.
/// </summary>
internal sealed class SimulatedDatabase
{
    public SimulatedDatabase(int id, string name, Workload workload, bool emitComplete, long logSizeKb, TimeSpan? dropAfter = null, LogPlan? log = null)
    {
        Id = id;
        Name = name;
        Workload = workload;
        EmitComplete = emitComplete;
        Log = new SimulatedLog(logSizeKb, log ?? new LogPlan());
        LogBytesInUse = Log.Plan.InitialActiveBytes;
        DropAfter = dropAfter;
        // Log block ids are positions in the log: start somewhere plausible, grow with every write.
        NextBlock = ((ulong)id << 24) + 4096;
        CacheHitRatio = 0.95 + (0.049 * ((id * 7919) % 100) / 100.0);
    }

    public int Id { get; }

    public string Name { get; }

    public Workload Workload { get; }

    public bool EmitComplete { get; }

    /// <summary>The log file: its size, limits, growth and backups.</summary>
    public SimulatedLog Log { get; }

    /// <summary>Log File(s) Size (KB): the log file's size now.</summary>
    public long LogSizeKb => Log.SizePages * 8;

    public TimeSpan? DropAfter { get; }

    /// <summary>Absolute drop time in ticks, long.MaxValue when never dropped (set when the simulation starts).</summary>
    public long DropAtTicks { get; set; } = long.MaxValue;

    public double CacheHitRatio { get; }

    public ulong NextBlock { get; set; }

    public long Flushes { get; set; }

    public long BytesFlushed { get; set; }

    /// <summary>BytesFlushed at the last transactions poll (the log written since stands for the open transactions' log).</summary>
    public long BytesAtLastWritersPoll { get; set; }

    /// <summary>Log bytes flushed and write transactions at the last Query Store answer (null before the first: its baseline).</summary>
    public (long Bytes, long Transactions)? AtLastQueryStore { get; set; }

    public long FlushWaits { get; set; }

    /// <summary>Transactions that wrote and committed (Write Transactions/sec), counted by the workload.</summary>
    public long WriteTransactions { get; set; }

    public long FlushWaitTicks { get; set; }

    public long StallTicks { get; set; }

    /// <summary>The part of <see cref="StallTicks"/> I/O governance queued (io_stall_queued_write_ms; Azure only, else 0).</summary>
    public long QueuedTicks { get; set; }

    /// <summary>LOG_RATE_GOVERNOR waits of the database (Azure's log-rate cap).</summary>
    public long GovernorWaits { get; set; }

    /// <summary>Their time, ticks.</summary>
    public long GovernorTicks { get; set; }

    /// <summary>BytesFlushed and the time at the last governance poll (the log write percentage of the interval since).</summary>
    public (long Bytes, long Ticks) AtLastGovernancePoll { get; set; } = (-1, 0);

    /// <summary>What the asynchronous secondary has been sent, and BytesFlushed and the time at the last replica poll.</summary>
    public (long Sent, long Bytes, long Ticks) AsyncLink { get; set; } = (-1, 0, 0);

    /// <summary>BytesFlushed when the synchronous secondary lost its connection (its send queue since), -1 while it is connected.</summary>
    public long BytesAtSyncLoss { get; set; } = -1;

    /// <summary>The database's availability-group secondaries, or null outside a group.</summary>
    public SyncReplica? Replica { get; init; }

    /// <summary>Transactions that waited for the synchronous secondary (Database Replica: Mirrored Write Transactions/sec).</summary>
    public long MirroredTransactions { get; set; }

    /// <summary>Time they waited for it, ticks (Database Replica: Transaction Delay).</summary>
    public long SyncDelayTicks { get; set; }

    /// <summary>The synchronous secondary's last harden round trip, ticks: what its send queue and lag follow.</summary>
    public long LastSyncDelayTicks { get; set; }

    /// <summary>Bytes of log not yet truncated (drives Percent Log Used; survives a restart).</summary>
    public long LogBytesInUse { get; set; }

    public long LogUsedKb => LogBytesInUse / 1024;

    public long CacheLookups => Flushes * 2;

    public long CacheHits => (long)(CacheLookups * CacheHitRatio);

    /// <summary>A restart: every cumulative value the server keeps in memory starts from zero again.</summary>
    public void ResetCumulative()
    {
        Flushes = 0;
        BytesFlushed = 0;
        FlushWaits = 0;
        WriteTransactions = 0;
        FlushWaitTicks = 0;
        StallTicks = 0;
        QueuedTicks = 0;
        GovernorWaits = 0;
        GovernorTicks = 0;
        MirroredTransactions = 0;
        SyncDelayTicks = 0;
        Log.Growths = 0;
    }

    /// <summary>
    /// A log backup at <paramref name="ticks"/> when the log passes 70 % full, while backups run: back to 10 %, so Percent
    /// Log Used saws. When they have stopped nothing truncates the log.
    /// </summary>
    public void TruncateIfFull(long ticks)
    {
        var size = LogSizeKb * 1024;
        if (Log.Plan.Backups && LogBytesInUse > size * 7 / 10)
        {
            LogBytesInUse = size / 10;
            Log.LastBackupTicks = ticks;
            Log.SinceBackupBytes = 0;
        }
    }
}
