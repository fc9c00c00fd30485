using LogFlushMonitor.Core.Samples;

namespace LogFlushMonitor.SqlServer.Tests.Scripted;

/// <summary>Which kind of server the scripted server's counters look like.</summary>
public enum ServerShape
{
    /// <summary>SQL Server on Windows: object SQLServer:Databases (or MSSQL$NAME:Databases), mssqlsystemresource among the instances.</summary>
    Windows,

    /// <summary>SQL Server in a Linux container: the internal model_msdb and model_replicatedmaster as well.</summary>
    Linux,

    /// <summary>Azure SQL Database (engine edition 5): physical database names (GUIDs) as instance names, neighbours of an elastic pool.</summary>
    AzureSqlDatabase,

    /// <summary>Azure SQL Managed Instance (engine edition 8): user databases under their physical names (GUIDs).</summary>
    AzureManagedInstance,
}

/// <summary>
/// What a real Databases object returns, transcribed as facts from public sources (docs/sqlserver.md, "What has been
/// checked against real servers, and how"), independent of the product's own code so the fake server does not simply
/// agree with it.
/// <list type="bullet">
/// <item>Counter names: Microsoft's "SQL Server, Databases object" page (47 counters and 3 base rows), matching the
/// <c>perfdata</c> names of prometheus-community/windows_exporter <c>internal/collector/mssql/mssql_database.go</c>.</item>
/// <item>cntr_type of 13 counters, the internal instances of a Linux container (mssqlsystemresource, model_msdb,
/// model_replicatedmaster) and their values: a real capture, open-telemetry/opentelemetry-collector-contrib
/// <c>receiver/sqlserverreceiver/testdata/perfCounterQueryData.txt</c> (rows of Telegraf's query, whose
/// <c>counter_type</c> is the raw cntr_type; Telegraf renames <c>_Total</c> to <c>Total</c>, the DMV says <c>_Total</c>).</item>
/// <item>Log Growths and Log Shrinks are 65792 although they count since start, and "Avg Dist From EOL/LP Request" is
/// paired with "Log Pool Requests Base": rudi-bruchez/sql-auditor <c>docs/performance-counters-spec.md</c>, measured on
/// SQL Server 2017, 2022 and 2025.</item>
/// <item>Azure: influxdata/telegraf <c>plugins/inputs/sqlserver/azuresqldbqueries.go</c> and <c>azuresqlmanagedqueries.go</c>
/// (instance names are physical database names, GUIDs, some with an identifier appended after the 36 characters;
/// object names <c>MSSQL%:Databases</c>; internal instances model_masterdb and model_userdb; on SQL Database
/// <c>sys.databases</c> holds master and the current database only, and master's physical_database_name is the user
/// database's GUID), trimble-oss/dba-dash <c>DBADash/SQL/SQLPerformanceCounters.sql</c> (drops msdb, master, model,
/// model_masterdb, model_userdb, mssqlsystemresource and tempdb on edition 5).</item>
/// </list>
/// The other 34 types are beliefs read from each counter's kind (a "/sec" count is BULK_COUNT, a size or level
/// LARGE_RAWCOUNT, a ratio RAW_FRACTION with its base, an average AVERAGE_BULK with its base); so are the shape of the
/// GUID suffix and the Azure object prefix after <c>MSSQL$</c>.
/// </summary>
public static class RealCounterShapes
{
    /// <summary>
    /// Every counter of the Databases object per instance (database or _Total): name, cntr_type, and whether the type
    /// was seen in a real capture (true) or is a belief (false). Base rows follow the counter they divide.
    /// </summary>
    public static readonly IReadOnlyList<(string Name, int Type, bool Captured)> DatabasesCounters =
    [
        ("Active Transactions", PerfCounterType.LargeRawCount, true),
        ("Avg Dist From EOL/LP Request", PerfCounterType.AverageBulk, false),
        ("Log Pool Requests Base", PerfCounterType.LargeRawBase, false),
        ("Backup/Restore Throughput/sec", PerfCounterType.BulkCount, true),
        ("Bulk Copy Rows/sec", PerfCounterType.BulkCount, false),
        ("Bulk Copy Throughput/sec", PerfCounterType.BulkCount, false),
        ("Commit table entries", PerfCounterType.LargeRawCount, false),
        ("Data File(s) Size (KB)", PerfCounterType.LargeRawCount, true),
        ("DBCC Logical Scan Bytes/sec", PerfCounterType.BulkCount, false),
        ("Group Commit Time/sec", PerfCounterType.BulkCount, false),
        ("Log Bytes Flushed/sec", PerfCounterType.BulkCount, true),
        ("Log Cache Hit Ratio", PerfCounterType.LargeRawFraction, false),
        ("Log Cache Hit Ratio Base", PerfCounterType.LargeRawBase, false),
        ("Log Cache Reads/sec", PerfCounterType.BulkCount, false),
        ("Log File(s) Size (KB)", PerfCounterType.LargeRawCount, true),
        ("Log File(s) Used Size (KB)", PerfCounterType.LargeRawCount, true),
        ("Log Flush Wait Time", PerfCounterType.BulkCount, true),
        ("Log Flush Waits/sec", PerfCounterType.BulkCount, false),
        ("Log Flush Write Time (ms)", PerfCounterType.LargeRawCount, false),
        ("Log Flushes/sec", PerfCounterType.BulkCount, true),
        ("Log Growths", PerfCounterType.LargeRawCount, true),
        ("Log Pool Cache Misses/sec", PerfCounterType.BulkCount, false),
        ("Log Pool Disk Reads/sec", PerfCounterType.BulkCount, false),
        ("Log Pool Hash Deletes/sec", PerfCounterType.BulkCount, false),
        ("Log Pool Hash Inserts/sec", PerfCounterType.BulkCount, false),
        ("Log Pool Invalid Hash Entry/sec", PerfCounterType.BulkCount, false),
        ("Log Pool Log Scan Pushes/sec", PerfCounterType.BulkCount, false),
        ("Log Pool LogWriter Pushes/sec", PerfCounterType.BulkCount, false),
        ("Log Pool Push Empty FreePool/sec", PerfCounterType.BulkCount, false),
        ("Log Pool Push Low Memory/sec", PerfCounterType.BulkCount, false),
        ("Log Pool Push No Free Buffer/sec", PerfCounterType.BulkCount, false),
        ("Log Pool Req. Behind Trunc/sec", PerfCounterType.BulkCount, false),
        ("Log Pool Requests Old VLF/sec", PerfCounterType.BulkCount, false),
        ("Log Pool Requests/sec", PerfCounterType.BulkCount, false),
        ("Log Pool Total Active Log Size", PerfCounterType.LargeRawCount, false),
        ("Log Pool Total Shared Pool Size", PerfCounterType.LargeRawCount, false),
        ("Log Shrinks", PerfCounterType.LargeRawCount, false),
        ("Log Truncations", PerfCounterType.LargeRawCount, false),
        ("Percent Log Used", PerfCounterType.LargeRawCount, true),
        ("Repl. Pending Xacts", PerfCounterType.LargeRawCount, false),
        ("Repl. Trans. Rate", PerfCounterType.BulkCount, false),
        ("Shrink Data Movement Bytes/sec", PerfCounterType.BulkCount, false),
        ("Tracked transactions/sec", PerfCounterType.BulkCount, false),
        ("Transactions/sec", PerfCounterType.BulkCount, true),
        ("Write Transactions/sec", PerfCounterType.BulkCount, true),
        ("XTP Controller DLC Latency/Fetch", PerfCounterType.AverageBulk, false),
        ("XTP Controller DLC Latency Base", PerfCounterType.LargeRawBase, false),
        ("XTP Controller DLC Peak Latency", PerfCounterType.LargeRawCount, false),
        ("XTP Controller Log Processed/sec", PerfCounterType.BulkCount, false),
        ("XTP Memory Used (KB)", PerfCounterType.LargeRawCount, true),
    ];

    /// <summary>
    /// The internal instances of a Linux container with the values the capture shows for the counters it read
    /// (perfCounterQueryData.txt): name, Log Flushes/sec, Log Bytes Flushed/sec, Log Flush Wait Time, Log File(s) Size (KB),
    /// Log File(s) Used Size (KB), Log Growths, Transactions/sec, Write Transactions/sec, Data File(s) Size (KB). Their
    /// flushes (81 + 89) are why that capture's _Total (521) exceeds the six visible databases' sum (351).
    /// </summary>
    public static readonly IReadOnlyList<InternalInstance> LinuxInternal =
    [
        new("model_msdb", 81, 704_512, 18, 1_272, 473, 3, 158, 34, 15_680),
        new("model_replicatedmaster", 89, 978_944, 49, 2_040, 842, 6, 161, 37, 4_800),
        new("mssqlsystemresource", 0, 0, 0, 1_272, 476, 0, 6, 0, 40_960),
    ];

    /// <summary>The internal instances of Azure SQL Database and Managed Instance (Telegraf, DBA Dash); values are ours.</summary>
    public static readonly IReadOnlyList<InternalInstance> AzureInternal =
    [
        new("model_masterdb", 12, 49_152, 3, 2_040, 900, 1, 40, 10, 4_800),
        new("model_userdb", 9, 36_864, 2, 8_184, 1_000, 0, 30, 8, 8_192),
        new("mssqlsystemresource", 0, 0, 0, 1_272, 476, 0, 6, 0, 40_960),
    ];

    /// <summary>The internal instance of SQL Server on Windows (DBA Dash filters it out of every edition's counters); values are ours.</summary>
    public static readonly IReadOnlyList<InternalInstance> WindowsInternal =
    [
        new("mssqlsystemresource", 0, 0, 0, 1_272, 476, 0, 6, 0, 40_960),
    ];

    /// <summary>One internal counter instance and the values of the counters a capture shows for it (the rest read 0).</summary>
    public sealed record InternalInstance(
        string Name, long Flushes, long BytesFlushed, long FlushWaitMs, long LogSizeKb, long LogUsedKb, long LogGrowths,
        long Transactions, long WriteTransactions, long DataSizeKb);
}
