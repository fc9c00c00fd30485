namespace LogFlushMonitor.SqlServer.Tests.Scripted;

/// <summary>One database of a <see cref="ScriptedSqlServer"/>: its catalog row, how fast it flushes, and its cumulative values.</summary>
public sealed class ScriptedDatabase
{
    internal ScriptedDatabase(int id, string name)
    {
        Id = id;
        Name = name;
    }

    /// <summary>database_id.</summary>
    public int Id { get; }

    /// <summary>name.</summary>
    public string Name { get; }

    /// <summary>sys.databases.state_desc (ONLINE, OFFLINE, RESTORING...). Only ONLINE databases have counter and file rows.</summary>
    public string State { get; set; } = "ONLINE";

    /// <summary>sys.databases.recovery_model_desc.</summary>
    public string RecoveryModel { get; set; } = "FULL";

    /// <summary>sys.databases.delayed_durability_desc.</summary>
    public string DelayedDurability { get; set; } = "DISABLED";

    /// <summary>Log flushes added to Log Flushes/sec (and log writes to the file stats) at each poll.</summary>
    public long FlushesPerPoll { get; set; } = 100;

    /// <summary>Bytes per flush (Log Bytes Flushed/sec and num_of_bytes_written grow by flushes × this).</summary>
    public long BytesPerFlush { get; set; } = 4096;

    /// <summary>Flush waits per poll (Log Flush Waits/sec).</summary>
    public long FlushWaitsPerPoll { get; set; } = 80;

    /// <summary>Milliseconds of flush wait per poll (Log Flush Wait Time, and io_stall_write_ms).</summary>
    public long FlushWaitMsPerPoll { get; set; } = 40;

    /// <summary>Percent Log Used (a point value).</summary>
    public long PercentLogUsed { get; set; } = 12;

    /// <summary>Log File(s) Size (KB); Log File(s) Used Size (KB) is this times <see cref="PercentLogUsed"/> / 100.</summary>
    public long LogSizeKb { get; set; } = 8_184;

    /// <summary>
    /// sys.databases.physical_database_name as Azure SQL Database and Managed Instance show it for a user database, and
    /// the counter instance name there: a GUID (deterministic per id here).
    /// </summary>
    public string PhysicalName => new Guid(Id, 0x5eed, 0x4a11, 0x9b, 0x3c, 0x1d, 0x2e, 0x3f, 0x40, 0x51, 0x62).ToString().ToUpperInvariant();

    /// <summary>sys.databases.is_auto_close_on: a closed AUTO_CLOSE database has no counter rows.</summary>
    public bool AutoClose { get; set; }

    /// <summary>False: online in sys.databases yet absent from the counters (a closed AUTO_CLOSE database, or a fault).</summary>
    public bool HasCounters { get; set; } = true;

    /// <summary>Sessions waiting on WRITELOG now (sys.dm_os_waiting_tasks); 0 on a healthy log at the moment of a poll.</summary>
    public int WriteLogWaiting { get; set; }

    /// <summary>The longest of their current waits (wait_duration_ms).</summary>
    public long WriteLogLongestWaitMs { get; set; }

    /// <summary>The log file's file_id.</summary>
    public int LogFileId { get; set; } = 2;

    /// <summary>
    /// log_truncation_holdup_reason / log_reuse_wait_desc as the server writes it: NOTHING by default, LOG_BACKUP is usual
    /// for a database in the full recovery model between log backups; null on an availability-group secondary.
    /// </summary>
    public string? LogReuseWait { get; set; } = "NOTHING";

    /// <summary>An availability-group secondary: sys.dm_db_log_stats gives only database_id, recovery_model and log_backup_time (Microsoft docs).</summary>
    public bool IsSecondaryReplica { get; set; }

    /// <summary>total_vlf_count (a log under 64 MB made in one step has 4 VLFs: Microsoft's VLF formula).</summary>
    public long Vlfs { get; set; } = 4;

    /// <summary>active_vlf_count.</summary>
    public long ActiveVlfs { get; set; } = 1;

    /// <summary>log_since_last_log_backup_mb.</summary>
    public double LogSinceBackupMb { get; set; } = 0.5;

    /// <summary>log_since_last_checkpoint_mb.</summary>
    public double LogSinceCheckpointMb { get; set; } = 0.25;

    /// <summary>log_backup_time (server-local); null for a log never backed up, which the DMV shows as 1900-01-01.</summary>
    public DateTime? LogBackupTimeLocal { get; set; }

    /// <summary>max_size of the log file, pages: 268,435,456 (2 TB), a new database's default since SQL Server 2005; -1 unlimited, 0 no growth.</summary>
    public long LogMaxSizePages { get; set; } = 268_435_456;

    /// <summary>growth of the log file: pages (8,192 = 64 MB, the default since SQL Server 2016), or a percent with <see cref="LogPercentGrowth"/>.</summary>
    public long LogGrowth { get; set; } = 8_192;

    /// <summary>is_percent_growth of the log file.</summary>
    public bool LogPercentGrowth { get; set; }

    /// <summary>The volume_mount_point under the log file; one <see cref="ScriptedSqlServer.Volumes"/> does not know has no row of sys.dm_os_volume_stats.</summary>
    public string LogVolume { get; set; } = "/var/opt/mssql/";

    /// <summary>Log Flushes/sec as the server reports it now.</summary>
    public long Flushes { get; internal set; }

    /// <summary>Log Bytes Flushed/sec as the server reports it now.</summary>
    public long BytesFlushed { get; internal set; }

    /// <summary>Log Flush Waits/sec as the server reports it now.</summary>
    public long FlushWaits { get; internal set; }

    /// <summary>Log Flush Wait Time as the server reports it now.</summary>
    public long FlushWaitMs { get; internal set; }

    /// <summary>num_of_writes of the log file.</summary>
    public long FileWrites { get; internal set; }

    /// <summary>num_of_bytes_written of the log file.</summary>
    public long FileBytes { get; internal set; }

    /// <summary>io_stall_write_ms of the log file.</summary>
    public long FileStallMs { get; internal set; }

    /// <summary>sys.database_query_store_options.actual_state_desc: READ_WRITE, READ_ONLY, OFF or ERROR.</summary>
    public string QueryStoreState { get; set; } = "READ_WRITE";

    /// <summary>HAS_DBACCESS for the monitor's login (false: no user there and no CONNECT ANY DATABASE).</summary>
    public bool QueryStoreAccess { get; set; } = true;

    /// <summary>Whether the login's VIEW DATABASE STATE reaches this database (with the server permissions held).</summary>
    public bool QueryStoreCanView { get; set; } = true;

    /// <summary>The current runtime_stats_interval_id: statements grow in it; move it on to start a new interval.</summary>
    public long QueryStoreInterval { get; set; } = 1;

    /// <summary>The statements Query Store holds.</summary>
    public List<ScriptedStatement> QueryStoreStatements { get; } = [];

    /// <summary>Milliseconds of the write stall per poll that I/O resource governance queued (io_stall_queued_write_ms); 0 where nothing governs I/O.</summary>
    public long QueuedWriteMsPerPoll { get; set; }

    /// <summary>io_stall_queued_write_ms of the log file (a bigint NOT NULL column: 0, never NULL, where nothing governs I/O).</summary>
    public long FileQueuedMs { get; internal set; }

    /// <summary>Whether the database shows in the DMVs now.</summary>
    public bool IsOnline => State == "ONLINE";

    internal void ResetValues()
    {
        Flushes = BytesFlushed = FlushWaits = FlushWaitMs = 0;
        FileWrites = FileBytes = FileStallMs = FileQueuedMs = 0;
    }
}
