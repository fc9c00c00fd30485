using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;

namespace LogFlushMonitor.Simulation;

/// <summary>
/// The counters a real SQL Server's Databases object reports for each database and for <c>_Total</c>: 47 counters
/// (the names of Microsoft's "SQL Server, Databases object" page), three of them divided by a base row. The simulator
/// and <c>make-fleet</c> report all of them, as a server does; the aggregation keeps the selected ones
/// (<see cref="CounterSelection"/>), as the poll does. Types: docs/sqlserver.md says which were seen in a capture.
/// </summary>
public static class DatabasesCounterSet
{
    private const string DatabasesObject = "Databases";

    /// <summary>Every counter: name, cntr_type, and the name of its base row for a fraction or an average.</summary>
    public static readonly IReadOnlyList<(string Name, int Type, string? Base)> Counters =
    [
        ("Active Transactions", PerfCounterType.LargeRawCount, null),
        ("Avg Dist From EOL/LP Request", PerfCounterType.AverageBulk, "Log Pool Requests Base"),
        ("Backup/Restore Throughput/sec", PerfCounterType.BulkCount, null),
        ("Bulk Copy Rows/sec", PerfCounterType.BulkCount, null),
        ("Bulk Copy Throughput/sec", PerfCounterType.BulkCount, null),
        ("Commit table entries", PerfCounterType.LargeRawCount, null),
        ("Data File(s) Size (KB)", PerfCounterType.LargeRawCount, null),
        ("DBCC Logical Scan Bytes/sec", PerfCounterType.BulkCount, null),
        ("Group Commit Time/sec", PerfCounterType.BulkCount, null),
        ("Log Bytes Flushed/sec", PerfCounterType.BulkCount, null),
        ("Log Cache Hit Ratio", PerfCounterType.LargeRawFraction, "Log Cache Hit Ratio Base"),
        ("Log Cache Reads/sec", PerfCounterType.BulkCount, null),
        ("Log File(s) Size (KB)", PerfCounterType.LargeRawCount, null),
        ("Log File(s) Used Size (KB)", PerfCounterType.LargeRawCount, null),
        ("Log Flush Wait Time", PerfCounterType.BulkCount, null),
        ("Log Flush Waits/sec", PerfCounterType.BulkCount, null),
        ("Log Flush Write Time (ms)", PerfCounterType.LargeRawCount, null),
        ("Log Flushes/sec", PerfCounterType.BulkCount, null),
        ("Log Growths", PerfCounterType.LargeRawCount, null),
        ("Log Pool Cache Misses/sec", PerfCounterType.BulkCount, null),
        ("Log Pool Disk Reads/sec", PerfCounterType.BulkCount, null),
        ("Log Pool Hash Deletes/sec", PerfCounterType.BulkCount, null),
        ("Log Pool Hash Inserts/sec", PerfCounterType.BulkCount, null),
        ("Log Pool Invalid Hash Entry/sec", PerfCounterType.BulkCount, null),
        ("Log Pool Log Scan Pushes/sec", PerfCounterType.BulkCount, null),
        ("Log Pool LogWriter Pushes/sec", PerfCounterType.BulkCount, null),
        ("Log Pool Push Empty FreePool/sec", PerfCounterType.BulkCount, null),
        ("Log Pool Push Low Memory/sec", PerfCounterType.BulkCount, null),
        ("Log Pool Push No Free Buffer/sec", PerfCounterType.BulkCount, null),
        ("Log Pool Req. Behind Trunc/sec", PerfCounterType.BulkCount, null),
        ("Log Pool Requests Old VLF/sec", PerfCounterType.BulkCount, null),
        ("Log Pool Requests/sec", PerfCounterType.BulkCount, null),
        ("Log Pool Total Active Log Size", PerfCounterType.LargeRawCount, null),
        ("Log Pool Total Shared Pool Size", PerfCounterType.LargeRawCount, null),
        ("Log Shrinks", PerfCounterType.LargeRawCount, null),
        ("Log Truncations", PerfCounterType.LargeRawCount, null),
        ("Percent Log Used", PerfCounterType.LargeRawCount, null),
        ("Repl. Pending Xacts", PerfCounterType.LargeRawCount, null),
        ("Repl. Trans. Rate", PerfCounterType.BulkCount, null),
        ("Shrink Data Movement Bytes/sec", PerfCounterType.BulkCount, null),
        ("Tracked transactions/sec", PerfCounterType.BulkCount, null),
        ("Transactions/sec", PerfCounterType.BulkCount, null),
        ("Write Transactions/sec", PerfCounterType.BulkCount, null),
        ("XTP Controller DLC Latency/Fetch", PerfCounterType.AverageBulk, "XTP Controller DLC Latency Base"),
        ("XTP Controller DLC Peak Latency", PerfCounterType.LargeRawCount, null),
        ("XTP Controller Log Processed/sec", PerfCounterType.BulkCount, null),
        ("XTP Memory Used (KB)", PerfCounterType.LargeRawCount, null),
    ];

    /// <summary>
    /// Delivers one instance's (a database's or _Total's) readings of every counter. The log counters take the given
    /// values; the others follow from them (transactions and log pool traffic from the flushes, fixed sizes) or read 0,
    /// as an idle feature does on a real server.
    /// </summary>
    /// <param name="into">The poll's rows, to which the readings are added.</param>
    /// <param name="database">The counter instance: a database name or <c>_Total</c>.</param>
    /// <param name="log">The log counters' readings.</param>
    public static void Read(List<CounterRow> into, string database, in LogCounters log)
    {
        ArgumentNullException.ThrowIfNull(into);
        foreach (var (name, type, baseName) in Counters)
        {
            var (value, baseValue) = Reading(name, log);
            into.Add(new CounterRow(DatabasesObject, name, database, value, type, baseName is null ? 0 : baseValue));
        }
    }

    /// <summary>
    /// Sets the Write Transactions/sec row <see cref="Read"/> added for <paramref name="database"/> to the commits the
    /// workload counted (a batch of rows is one transaction; a flush may carry many commits, or one commit many flushes).
    /// </summary>
    public static void SetWriteTransactions(List<CounterRow> rows, string database, long transactions)
    {
        for (var i = rows.Count - 1; i >= 0; i--)
        {
            if (rows[i].CounterName == "Write Transactions/sec" && rows[i].CounterInstance == database)
            {
                rows[i] = rows[i] with { Value = transactions };
                return;
            }
        }
    }

    private static (long Value, long Base) Reading(string name, in LogCounters log) => name switch
    {
        "Log Flushes/sec" => (log.Flushes, 0),
        "Log Bytes Flushed/sec" => (log.BytesFlushed, 0),
        "Log Flush Waits/sec" => (log.FlushWaits, 0),
        "Log Flush Wait Time" => (log.FlushWaitMs, 0),
        "Percent Log Used" => (log.LogSizeKb > 0 ? log.LogUsedKb * 100 / log.LogSizeKb : 0, 0),
        "Log File(s) Used Size (KB)" => (log.LogUsedKb, 0),
        "Log File(s) Size (KB)" => (log.LogSizeKb, 0),
        "Log Growths" => (log.LogGrowths, 0),
        "Log Cache Hit Ratio" => (log.CacheHits, log.CacheLookups),
        "Log Cache Reads/sec" => (log.CacheLookups, 0),
        "Transactions/sec" => (log.Flushes * 2, 0),
        "Write Transactions/sec" or "Tracked transactions/sec" or "Log Pool LogWriter Pushes/sec" or "Log Pool Hash Inserts/sec" => (log.Flushes, 0),
        "Log Pool Hash Deletes/sec" => (Math.Max(0, log.Flushes - 64), 0),
        "Log Pool Requests/sec" => (log.CacheLookups - log.CacheHits, 0),
        "Avg Dist From EOL/LP Request" => ((log.CacheLookups - log.CacheHits) * 4096, log.CacheLookups - log.CacheHits),
        "Log Flush Write Time (ms)" => (log.FlushWaits > 0 ? 1 : 0, 0),
        "Data File(s) Size (KB)" => (log.LogSizeKb * 4, 0),
        "Log Pool Total Active Log Size" => (log.LogUsedKb * 1024, 0),
        "Log Pool Total Shared Pool Size" => (log.LogUsedKb * 1024 * 2, 0),
        "Active Transactions" => (log.FlushWaits > 0 ? 1 : 0, 0),
        _ => (0, 0),
    };

    /// <summary>The readings of the log counters one instance reports (cumulative since the instance started).</summary>
    /// <param name="Flushes">Log Flushes/sec.</param>
    /// <param name="BytesFlushed">Log Bytes Flushed/sec.</param>
    /// <param name="FlushWaits">Log Flush Waits/sec.</param>
    /// <param name="FlushWaitMs">Log Flush Wait Time (milliseconds).</param>
    /// <param name="LogUsedKb">Log File(s) Used Size (KB).</param>
    /// <param name="LogSizeKb">Log File(s) Size (KB).</param>
    /// <param name="CacheHits">Log Cache Hit Ratio's value.</param>
    /// <param name="CacheLookups">Log Cache Hit Ratio's base (and Log Cache Reads/sec).</param>
    /// <param name="LogGrowths">Log Growths: times the log grew since the instance started.</param>
    public readonly record struct LogCounters(long Flushes, long BytesFlushed, long FlushWaits, long FlushWaitMs, long LogUsedKb, long LogSizeKb, long CacheHits, long CacheLookups, long LogGrowths = 0);
}
