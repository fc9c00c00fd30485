namespace LogFlushMonitor.SqlServer.Sql;

/// <summary>
/// The DMV statements the pollers send, one place per statement. Nothing a user configures enters them: the database
/// lists (IncludeDatabases, ExcludeDatabases) and the opt-in counter names are applied by the monitor to the rows, so
/// a list of any length works (a request carries at most 2,100 parameters: a list expanded into one parameter per
/// name failed past that with error 8003) and one comparison rule holds on every server and collation.
/// Only syntax that SQL Server 2014 and later accept (no STRING_SPLIT, no TRIM).
/// </summary>
internal static class DmvSql
{
    /// <summary>
    /// The log counters of the Databases object (named <c>SQLServer:Databases</c> or <c>MSSQL$NAME:Databases</c>: matched
    /// on the part after the colon), asked for by name: a real server has about 47 counters per database and we export
    /// these seven by default (CounterSelection.DefaultCounters, kept equal by a test). nchar columns compare without
    /// their trailing blanks. Every database's rows come back (seven each); the poll keeps the watched ones. With them,
    /// the two counters of the <c>Database Replica</c> object (one instance per availability-group database, named by
    /// the database) that time a synchronous commit's wait for its secondaries; no rows without availability groups.
    /// </summary>
    public const string PerformanceCounters = """
        SELECT object_name AS ObjectName, counter_name AS CounterName, instance_name AS InstanceName,
               cntr_value AS Value, cntr_type AS Type
        FROM sys.dm_os_performance_counters
        WHERE (object_name LIKE N'%:Databases%'
               AND counter_name IN (N'Log Flushes/sec', N'Log Bytes Flushed/sec', N'Log Flush Waits/sec', N'Log Flush Wait Time',
                                    N'Percent Log Used', N'Log File(s) Used Size (KB)', N'Log File(s) Size (KB)'))
           OR (object_name LIKE N'%:Database Replica%'
               AND counter_name IN (N'Transaction Delay', N'Mirrored Write Transactions/sec'))
        """;

    /// <summary>
    /// Every counter of the Databases object, for when Sources:SqlServer:Counters asks for more than the log counters:
    /// the configured names and patterns are matched by the poll, so no configured text enters the statement. The two
    /// Database Replica counters come with them, as in <see cref="PerformanceCounters"/>.
    /// </summary>
    public const string AllDatabaseCounters = """
        SELECT object_name AS ObjectName, counter_name AS CounterName, instance_name AS InstanceName,
               cntr_value AS Value, cntr_type AS Type
        FROM sys.dm_os_performance_counters
        WHERE object_name LIKE N'%:Databases%'
           OR (object_name LIKE N'%:Database Replica%'
               AND counter_name IN (N'Transaction Delay', N'Mirrored Write Transactions/sec'))
        """;

    /// <summary>
    /// The engine edition (5 = Azure SQL Database, 8 = Azure SQL Managed Instance) and the current database: there the
    /// counters name databases by their physical names and the poll maps them back (<see cref="PhysicalDatabaseNames"/>).
    /// </summary>
    public const string ServerIdentity = """
        SELECT CAST(SERVERPROPERTY('EngineEdition') AS int) AS EngineEdition, DB_NAME() AS CurrentDatabase
        """;

    /// <summary>
    /// Each database's physical name, which Azure SQL Database and Managed Instance use as the counters' instance_name
    /// (a GUID, some with an identifier appended after the 36 characters: influxdata/telegraf azuresqldbqueries.go and
    /// azuresqlmanagedqueries.go map it the same way). Sent on those editions only.
    /// </summary>
    public const string PhysicalDatabaseNames = """
        SELECT name AS Name, physical_database_name AS PhysicalName
        FROM sys.databases
        """;

    /// <summary>Waits on the log: WRITELOG, LOGBUFFER, HADR_SYNC_COMMIT and the LOG_RATE_GOVERNOR family. Parameter: <c>@waitTypes</c>.</summary>
    public const string WaitStats = """
        SELECT wait_type AS WaitType, waiting_tasks_count AS WaitingTasks, wait_time_ms AS WaitTimeMs,
               max_wait_time_ms AS MaxWaitTimeMs, signal_wait_time_ms AS SignalWaitTimeMs
        FROM sys.dm_os_wait_stats
        WHERE wait_type IN @waitTypes OR wait_type LIKE N'%LOG[_]RATE[_]GOVERNOR%'
        """;

    /// <summary>I/O of each log file (type 1) of every database; the poll keeps the watched ones.</summary>
    public const string LogFileStats = """
        SELECT vfs.database_id AS DatabaseId, DB_NAME(vfs.database_id) AS DatabaseName, CAST(vfs.file_id AS int) AS FileId,
               vfs.num_of_writes AS NumWrites, vfs.num_of_bytes_written AS BytesWritten, vfs.io_stall_write_ms AS IoStallWriteMs
        FROM sys.dm_io_virtual_file_stats(NULL, NULL) AS vfs
        JOIN sys.master_files AS mf ON mf.database_id = vfs.database_id AND mf.file_id = vfs.file_id
        WHERE mf.type = 1
        """;

    /// <summary>Azure SQL Database: waits of this database (sys.dm_os_wait_stats is not the database's there). Parameter: <c>@waitTypes</c>.</summary>
    public const string AzureWaitStats = """
        SELECT wait_type AS WaitType, waiting_tasks_count AS WaitingTasks, wait_time_ms AS WaitTimeMs,
               max_wait_time_ms AS MaxWaitTimeMs, signal_wait_time_ms AS SignalWaitTimeMs
        FROM sys.dm_db_wait_stats
        WHERE wait_type IN @waitTypes OR wait_type LIKE N'%LOG[_]RATE[_]GOVERNOR%'
        """;

    /// <summary>Azure SQL Database: this database's log file I/O (sys.master_files does not exist there).</summary>
    public const string AzureLogFileStats = """
        SELECT vfs.database_id AS DatabaseId, DB_NAME() AS DatabaseName, CAST(vfs.file_id AS int) AS FileId,
               vfs.num_of_writes AS NumWrites, vfs.num_of_bytes_written AS BytesWritten, vfs.io_stall_write_ms AS IoStallWriteMs
        FROM sys.dm_io_virtual_file_stats(DB_ID(), NULL) AS vfs
        JOIN sys.database_files AS df ON df.file_id = vfs.file_id
        WHERE df.type = 1
        """;

    /// <summary>
    /// Sessions waiting on WRITELOG now, per database: <c>sys.dm_os_waiting_tasks</c> (one row per waiting task:
    /// <c>session_id</c>, <c>wait_type</c>, <c>wait_duration_ms</c>) joined to <c>sys.dm_exec_requests</c> on
    /// <c>session_id</c> for the request's <c>database_id</c>. A session counts once however many of its rows match (a
    /// MARS session has one request per batch); the longest wait is the largest <c>wait_duration_ms</c>. Waits in flight,
    /// not completed ones: a log device that completes nothing makes these grow while every cumulative figure stays flat.
    /// Needs VIEW SERVER STATE (2022+: VIEW SERVER PERFORMANCE STATE); without it the waiting-tasks view refuses, where
    /// sys.dm_exec_requests alone would quietly show only this session (Microsoft docs of both views; docs/sqlserver.md).
    /// </summary>
    public const string WriteLogWaiters = """
        SELECT CAST(r.database_id AS int) AS DatabaseId, DB_NAME(r.database_id) AS DatabaseName,
               COUNT(DISTINCT wt.session_id) AS Sessions, MAX(wt.wait_duration_ms) AS LongestWaitMs
        FROM sys.dm_os_waiting_tasks AS wt
        JOIN sys.dm_exec_requests AS r ON r.session_id = wt.session_id
        WHERE wt.wait_type = N'WRITELOG'
        GROUP BY r.database_id
        """;

    /// <summary>
    /// Azure SQL Database: this database's sessions waiting on WRITELOG now, always one row. sys.dm_exec_requests shows
    /// only the caller's own request there (VIEW SERVER STATE cannot be granted), so the waiting tasks are joined to
    /// sys.dm_exec_sessions, which VIEW DATABASE STATE opens to every connection of the current database (Microsoft docs);
    /// the database_id filter keeps out other databases' sessions where a server role shows them.
    /// </summary>
    public const string AzureWriteLogWaiters = """
        SELECT CAST(DB_ID() AS int) AS DatabaseId, DB_NAME() AS DatabaseName,
               COUNT(DISTINCT wt.session_id) AS Sessions, ISNULL(MAX(wt.wait_duration_ms), 0) AS LongestWaitMs
        FROM sys.dm_os_waiting_tasks AS wt
        JOIN sys.dm_exec_sessions AS s ON s.session_id = wt.session_id
        WHERE wt.wait_type = N'WRITELOG' AND s.database_id = DB_ID()
        """;

    /// <summary>
    /// The top log writers: log used and reserved by open transactions, per database and program_name
    /// (sys.dm_tran_database_transactions, joined through sys.dm_tran_session_transactions to sys.dm_exec_sessions).
    /// A transaction that runs under several sessions (bound sessions, distributed transactions) has a row per session in
    /// sys.dm_tran_session_transactions (Microsoft docs), so each transaction is taken once, under its lowest session_id.
    /// Only transactions that used or reserved log count (read-only ones hold none). Needs VIEW SERVER STATE (2022+:
    /// VIEW SERVER PERFORMANCE STATE; Azure SQL Database: VIEW DATABASE STATE); docs/sqlserver.md.
    /// </summary>
    public const string LogWriters = """
        SELECT CAST(dt.database_id AS int) AS DatabaseId, DB_NAME(dt.database_id) AS DatabaseName,
               s.program_name AS ProgramName, COUNT(*) AS Transactions,
               SUM(dt.database_transaction_log_bytes_used) AS LogBytesUsed,
               SUM(dt.database_transaction_log_bytes_reserved) AS LogBytesReserved
        FROM sys.dm_tran_database_transactions AS dt
        JOIN (SELECT transaction_id, MIN(session_id) AS session_id
              FROM sys.dm_tran_session_transactions
              GROUP BY transaction_id) AS st ON st.transaction_id = dt.transaction_id
        JOIN sys.dm_exec_sessions AS s ON s.session_id = st.session_id
        WHERE dt.database_transaction_log_bytes_used > 0 OR dt.database_transaction_log_bytes_reserved > 0
        GROUP BY dt.database_id, s.program_name
        """;

    /// <summary>
    /// Availability-group databases on each replica (SQL Server 2016 and later): <c>sys.dm_hadr_database_replica_states</c>
    /// (on a primary one row for its own database and one for each secondary's copy; on a secondary its own copies) with
    /// the group's name (<c>sys.availability_groups</c>), the replica's server name and commit mode
    /// (<c>sys.availability_replicas</c>) and its role (<c>sys.dm_hadr_availability_replica_states</c>: a secondary knows
    /// only its own replica's role). Every join is LEFT: the two catalog views show only what the login has some
    /// permission on (metadata visibility), so a least-privilege login may see the DMV's rows and no group; the replica's
    /// name then comes from <c>sys.dm_hadr_availability_replica_cluster_states</c> (a DMV, VIEW SERVER STATE), the group is
    /// named by its id, and <c>CatalogVisible</c> = 0 tells the poll to say so once instead of reading "no group". Queues in KB, rates in KB/s, secondary_lag_seconds in seconds (Microsoft docs of
    /// the views; docs/sqlserver.md). The harden's age is taken on the server's clock (last_hardened_time is server-local
    /// datetime, a belief docs/sqlserver.md names). No AG: no rows, no error. Needs VIEW SERVER STATE (2022+: VIEW SERVER
    /// PERFORMANCE STATE).
    /// </summary>
    public const string HadrReplicaStates = """
        SELECT CAST(drs.database_id AS int) AS DatabaseId, DB_NAME(drs.database_id) AS DatabaseName,
               ISNULL(ag.name, CAST(drs.group_id AS nvarchar(36))) AS AvailabilityGroup,
               ISNULL(ar.replica_server_name, rcs.replica_server_name) AS Replica, ars.role_desc AS Role,
               ar.availability_mode_desc AS AvailabilityMode, drs.synchronization_state_desc AS SynchronizationState,
               CAST(CASE WHEN ag.group_id IS NULL OR ar.replica_id IS NULL THEN 0 ELSE 1 END AS bit) AS CatalogVisible,
               drs.log_send_queue_size AS LogSendQueueKb, drs.log_send_rate AS LogSendRateKbPerSecond,
               drs.redo_queue_size AS RedoQueueKb, drs.redo_rate AS RedoRateKbPerSecond,
               drs.secondary_lag_seconds AS SecondaryLagSeconds,
               CAST(DATEDIFF(SECOND, drs.last_hardened_time, SYSDATETIME()) AS bigint) AS LastHardenedAgeSeconds
        FROM sys.dm_hadr_database_replica_states AS drs
        LEFT JOIN sys.availability_replicas AS ar ON ar.replica_id = drs.replica_id
        LEFT JOIN sys.availability_groups AS ag ON ag.group_id = drs.group_id
        LEFT JOIN sys.dm_hadr_availability_replica_cluster_states AS rcs ON rcs.replica_id = drs.replica_id
        LEFT JOIN sys.dm_hadr_availability_replica_states AS ars ON ars.replica_id = drs.replica_id
        """;

    /// <summary>
    /// <see cref="HadrReplicaStates"/> for SQL Server 2014, whose view has no secondary_lag_seconds (added in 2016): the
    /// column reads NULL, which exports no value.
    /// </summary>
    public const string HadrReplicaStates2014 = """
        SELECT CAST(drs.database_id AS int) AS DatabaseId, DB_NAME(drs.database_id) AS DatabaseName,
               ISNULL(ag.name, CAST(drs.group_id AS nvarchar(36))) AS AvailabilityGroup,
               ISNULL(ar.replica_server_name, rcs.replica_server_name) AS Replica, ars.role_desc AS Role,
               ar.availability_mode_desc AS AvailabilityMode, drs.synchronization_state_desc AS SynchronizationState,
               CAST(CASE WHEN ag.group_id IS NULL OR ar.replica_id IS NULL THEN 0 ELSE 1 END AS bit) AS CatalogVisible,
               drs.log_send_queue_size AS LogSendQueueKb, drs.log_send_rate AS LogSendRateKbPerSecond,
               drs.redo_queue_size AS RedoQueueKb, drs.redo_rate AS RedoRateKbPerSecond,
               CAST(NULL AS bigint) AS SecondaryLagSeconds,
               CAST(DATEDIFF(SECOND, drs.last_hardened_time, SYSDATETIME()) AS bigint) AS LastHardenedAgeSeconds
        FROM sys.dm_hadr_database_replica_states AS drs
        LEFT JOIN sys.availability_replicas AS ar ON ar.replica_id = drs.replica_id
        LEFT JOIN sys.availability_groups AS ag ON ag.group_id = drs.group_id
        LEFT JOIN sys.dm_hadr_availability_replica_cluster_states AS rcs ON rcs.replica_id = drs.replica_id
        LEFT JOIN sys.dm_hadr_availability_replica_states AS ars ON ars.replica_id = drs.replica_id
        """;

    /// <summary>
    /// Every database with its state, recovery model and delayed durability; whether it closes itself when idle
    /// (AUTO_CLOSE: its counter rows vanish while it is closed) and whether it is a database snapshot (which has no log).
    /// </summary>
    public const string Databases = """
        SELECT database_id AS Id, name AS Name, state_desc AS State, recovery_model_desc AS RecoveryModel,
               delayed_durability_desc AS DelayedDurability, is_auto_close_on AS AutoClose,
               CAST(CASE WHEN source_database_id IS NULL THEN 0 ELSE 1 END AS bit) AS IsSnapshot
        FROM sys.databases
        """;

    /// <summary>
    /// The instance start time: <c>sqlserver_start_time</c> is server-local, so the statement also converts it
    /// to UTC with the server's current offset (the local value tells a restart from a DST change).
    /// </summary>
    public const string ServerStart = """
        SELECT sqlserver_start_time AS StartTimeLocal,
               DATEADD(MINUTE, DATEDIFF(MINUTE, SYSDATETIME(), SYSUTCDATETIME()), sqlserver_start_time) AS StartTimeUtc
        FROM sys.dm_os_sys_info
        """;

    /// <summary>Drop counters of one server-scoped event session. Parameter: <c>@name</c>.</summary>
    public const string XeSessionDrops = """
        SELECT create_time AS CreateTime, CAST(dropped_event_count AS bigint) AS DroppedEvents,
               CAST(dropped_buffer_count AS bigint) AS DroppedBuffers
        FROM sys.dm_xe_sessions
        WHERE name = @name
        """;

    /// <summary>Drop counters of one database-scoped event session (Azure SQL Database). Parameter: <c>@name</c>.</summary>
    public const string XeDatabaseSessionDrops = """
        SELECT create_time AS CreateTime, CAST(dropped_event_count AS bigint) AS DroppedEvents,
               CAST(dropped_buffer_count AS bigint) AS DroppedBuffers
        FROM sys.dm_xe_database_sessions
        WHERE name = @name
        """;

    /// <summary>
    /// The wait types named exactly (the governor family is matched with LIKE). HADR_SYNC_COMMIT is the remote half of a
    /// commit on a synchronous availability-group replica; its row exists (at zero) on an instance without one.
    /// </summary>
    public static readonly string[] LogWaitTypes = ["WRITELOG", "LOGBUFFER", "HADR_SYNC_COMMIT"];
}
