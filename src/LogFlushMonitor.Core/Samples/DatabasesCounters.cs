namespace LogFlushMonitor.Core.Samples;

/// <summary>
/// The performance-counter object whose instances are databases, and the names of its log counters (
/// docs/sqlserver.md lists every counter of a real server's object with its type). Names as the DMV reports them once
/// trimmed; the metric catalog and the aggregation refer to them from here.
/// </summary>
public static class DatabasesCounters
{
    /// <summary>The object after the colon of <c>object_name</c> (<c>SQLServer:Databases</c>, <c>MSSQL$NAME:Databases</c>).</summary>
    public const string Object = "Databases";

    /// <summary>The counter instance that sums every instance of the object: the SQL Server instance, not a database.</summary>
    public const string TotalInstance = "_Total";

    /// <summary>Log flushes (cumulative): the server's count the event loss is measured against.</summary>
    public const string LogFlushes = "Log Flushes/sec";

    /// <summary>Bytes of log flushed (cumulative).</summary>
    public const string LogBytesFlushed = "Log Bytes Flushed/sec";

    /// <summary>Commits that waited for a log flush (cumulative).</summary>
    public const string LogFlushWaits = "Log Flush Waits/sec";

    /// <summary>Time commits waited for log flushes (cumulative milliseconds despite the name).</summary>
    public const string LogFlushWaitTime = "Log Flush Wait Time";

    /// <summary>Log space in use, in percent (a point value).</summary>
    public const string PercentLogUsed = "Percent Log Used";

    /// <summary>Log space in use, in KB (a point value).</summary>
    public const string LogUsedSize = "Log File(s) Used Size (KB)";

    /// <summary>Size of the log files, in KB (a point value).</summary>
    public const string LogSize = "Log File(s) Size (KB)";

    /// <summary>Times the log has grown: a count since the instance started, although its type is a point value (65792).</summary>
    public const string LogGrowths = "Log Growths";
}
