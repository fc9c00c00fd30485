using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.SqlServer.Polling;

namespace LogFlushMonitor.SqlServer.PerfMon;

/// <summary>
/// Reads the log counters of a local SQL Server instance from Windows PerfMon (object <c>SQLServer:Databases</c>,
/// or <c>MSSQL$NAME:Databases</c> for a named instance) and delivers them as the DMV path would: the same object,
/// counter and instance names, the cntr_type sys.dm_os_performance_counters reports, raw values, then
/// <see cref="PollKind.Counters"/>. An alternative to the DMV when the monitor runs on the server itself.
/// </summary>
/// <remarks>
/// Safe to construct and call on every platform: off Windows, <see cref="IsAvailable"/> is false and
/// <see cref="Poll"/> delivers nothing. Not thread-safe: one caller polls.
/// </remarks>
public sealed class PerfMonCounterReader
{
    /// <summary>The log counters read, named as in PerfMon and in the DMV.</summary>
    public static readonly IReadOnlyList<string> LogCounters =
    [
        "Log Flushes/sec",
        "Log Bytes Flushed/sec",
        "Log Flush Waits/sec",
        "Log Flush Wait Time",
        "Log Flush Write Time (ms)",
        "Percent Log Used",
        "Log File(s) Used Size (KB)",
        "Log File(s) Size (KB)",
    ];

    // PerfMon may hand names back in another case; samples carry the canonical spelling.
    private static readonly Dictionary<string, string> CanonicalCounters = LogCounters.ToDictionary(c => c, StringComparer.OrdinalIgnoreCase);

    private readonly string _instance;
    private readonly IPollSink _sink;
    private readonly TimeProvider _time;
    private readonly DatabaseFilter _filter;

    /// <summary>Creates a reader for one local SQL Server instance.</summary>
    /// <param name="instance">The instance name as configured (stamped on every sample, exported as sqlserver.instance.name).</param>
    /// <param name="sqlInstanceName">The SQL Server instance name: null, "" or "MSSQLSERVER" for the default instance, else
    /// the named instance ("SQL2022" or "HOST\SQL2022").</param>
    /// <param name="sink">Receives the samples.</param>
    /// <param name="time">Stamps the samples.</param>
    /// <param name="include">Databases to watch (empty or null = all); _Total is always kept.</param>
    /// <param name="exclude">Databases not to watch.</param>
    public PerfMonCounterReader(
        string instance,
        string? sqlInstanceName,
        IPollSink sink,
        TimeProvider time,
        IEnumerable<string>? include = null,
        IEnumerable<string>? exclude = null)
    {
        ArgumentNullException.ThrowIfNull(instance);
        ArgumentNullException.ThrowIfNull(sink);
        ArgumentNullException.ThrowIfNull(time);
        _instance = instance;
        _sink = sink;
        _time = time;
        _filter = new DatabaseFilter(include ?? [], exclude ?? []);
        CategoryName = CategoryFor(sqlInstanceName);
    }

    /// <summary>The PerfMon category read, e.g. "SQLServer:Databases" or "MSSQL$SQL2022:Databases".</summary>
    public string CategoryName { get; }

    /// <summary>Whether this machine is Windows and has the category (the instance is installed locally).</summary>
    public bool IsAvailable => OperatingSystem.IsWindows() && WindowsPerfMon.CategoryExists(CategoryName);

    /// <summary>
    /// The PerfMon category of a SQL Server instance's Databases object: "SQLServer:Databases" for the default
    /// instance (null, "" or "MSSQLSERVER"), "MSSQL$NAME:Databases" for a named one; a "HOST\" prefix is ignored.
    /// </summary>
    public static string CategoryFor(string? sqlInstanceName)
    {
        var name = sqlInstanceName?.Trim() ?? "";
        var slash = name.LastIndexOf('\\');
        if (slash >= 0)
        {
            name = name[(slash + 1)..];
        }

        return name.Length == 0 || name.Equals("MSSQLSERVER", StringComparison.OrdinalIgnoreCase)
            ? "SQLServer:" + CounterPoller.DatabasesObject
            : "MSSQL$" + name + ":" + CounterPoller.DatabasesObject;
    }

    /// <summary>
    /// Reads the counters once and delivers them, then <see cref="PollKind.Counters"/>. Returns false, having
    /// delivered nothing, when not on Windows or the category does not exist. Access errors (the account is not in
    /// Performance Monitor Users) propagate.
    /// </summary>
    public bool Poll()
    {
        if (!OperatingSystem.IsWindows())
        {
            return false;
        }

        var rows = WindowsPerfMon.Read(CategoryName, CanonicalCounters.ContainsKey);
        if (rows is null)
        {
            return false;
        }

        Deliver(rows);
        return true;
    }

    /// <summary>Filters, maps and delivers one read; the platform-independent half of <see cref="Poll"/>.</summary>
    internal void Deliver(IEnumerable<PerfMonRow> rows)
    {
        var now = _time.GetUtcNow().UtcDateTime;
        foreach (var row in rows)
        {
            if (!CanonicalCounters.TryGetValue(row.Counter.Trim(), out var counter))
            {
                continue;
            }

            var instance = row.Instance.Trim();
            if (!_filter.WatchesCounterInstance(instance) || PerfMonCounterTypes.ToCntrType(row.PerfMonType) is not { } type)
            {
                continue;
            }

            var baseValue = PerfMonCounterTypes.NeedsBase(type) ? row.BaseValue : 0;
            _sink.OnCounter(new CounterSample(_instance, now, CounterPoller.DatabasesObject, counter, instance, row.RawValue, type, baseValue));
        }

        _sink.OnPollCompleted(new PollCompleted(_instance, now, PollKind.Counters));
    }
}
