using System.Globalization;

namespace LogFlushMonitor.Core.Aggregation;

/// <summary>
/// What a commit (and the log writes that lead to it) waited on: the commit budget's parts, a fixed list (the
/// <c>part</c> attribute of <c>sqlserver.commit.wait.time</c> takes no other value). docs/sqlserver.md, "Where commit
/// time goes", gives each part's source and unit from Microsoft's documentation.
/// </summary>
public enum CommitPart
{
    /// <summary>WRITELOG less the I/O-governance queue: the local log device hardening the commit.</summary>
    LocalFlush,

    /// <summary>The part of WRITELOG the log file's writes spent queued by I/O resource governance (io_stall_queued_write_ms).</summary>
    IoGovernanceQueue,

    /// <summary>HADR_SYNC_COMMIT: waiting for the synchronous availability-group secondaries to harden the log.</summary>
    SyncReplica,

    /// <summary>LOGBUFFER: waiting for a free log buffer.</summary>
    LogBuffer,

    /// <summary>LOG_RATE_GOVERNOR: the database's log-rate cap (Azure).</summary>
    LogRateGovernor,

    /// <summary>POOL_LOG_RATE_GOVERNOR: the elastic pool's (or resource pool's) log-rate cap.</summary>
    PoolLogRateGovernor,

    /// <summary>INSTANCE_LOG_RATE_GOVERNOR: the instance's log-rate cap (Managed Instance, the instance hosting a database).</summary>
    InstanceLogRateGovernor,

    /// <summary>HADR_THROTTLE_LOG_RATE_*: the availability feedback control slowing the log (replicas, log size, geo-secondary).</summary>
    LogRateFeedback,

    /// <summary>RBIO_RG_*: Hyperscale slowing the log for a page server, a replica or the log service that is behind.</summary>
    HyperscaleLogRate,
}

/// <summary>Where a part of one database's budget is read from.</summary>
public enum CommitPartSource
{
    /// <summary>Not read for this database.</summary>
    None,

    /// <summary>Wait events of the database (the event session's wait_completed / wait_info with sqlserver.database_id).</summary>
    Events,

    /// <summary>A performance counter of the database (Log Flush Wait Time, Database Replica: Transaction Delay).</summary>
    Counters,

    /// <summary>The database's own wait stats (sys.dm_db_wait_stats on Azure SQL Database, where the view is the database's).</summary>
    DatabaseWaitStats,

    /// <summary>The log file's I/O stats (io_stall_queued_write_ms over io_stall_write_ms, applied to the local flush).</summary>
    FileStats,
}

/// <summary>The commit budget's parts: their attribute values, how people read them, and which wait types each takes.</summary>
public static class CommitParts
{
    /// <summary>How many parts there are (the bound of the <c>part</c> attribute).</summary>
    public const int Count = 9;

    /// <summary>Each part's <c>part</c> attribute value, by <see cref="CommitPart"/>.</summary>
    public static IReadOnlyList<string> Names { get; } =
    [
        "local_flush", "io_governance_queue", "sync_replica", "logbuffer", "log_rate_governor", "pool_log_rate_governor",
        "instance_log_rate_governor", "log_rate_feedback", "hyperscale_log_rate",
    ];

    /// <summary>The attribute value of <paramref name="part"/>.</summary>
    public static string Name(CommitPart part) => Names[(int)part];

    /// <summary>How a sentence names <paramref name="part"/>: "9 ms waiting for the synchronous replica".</summary>
    public static string Label(CommitPart part) => part switch
    {
        CommitPart.LocalFlush => "local flush",
        CommitPart.IoGovernanceQueue => "I/O-governance queue",
        CommitPart.SyncReplica => "waiting for the synchronous replica",
        CommitPart.LogBuffer => "waiting for a log buffer",
        CommitPart.LogRateGovernor => "log-rate cap",
        CommitPart.PoolLogRateGovernor => "pool log-rate cap",
        CommitPart.InstanceLogRateGovernor => "instance log-rate cap",
        CommitPart.LogRateFeedback => "log-rate feedback throttle",
        _ => "Hyperscale log-rate throttle",
    };

    /// <summary>How a sentence names <paramref name="source"/>.</summary>
    public static string Describe(CommitPartSource source) => source switch
    {
        CommitPartSource.Events => "wait events",
        CommitPartSource.Counters => "performance counters",
        CommitPartSource.DatabaseWaitStats => "the database's wait stats",
        CommitPartSource.FileStats => "the log file's I/O stats",
        _ => "not read",
    };

    /// <summary>
    /// The part a wait type belongs to, or null for a wait the budget does not take. The governor's forms as Microsoft's
    /// "Transaction log rate governance" lists them; the Hyperscale throttles as "Performance diagnostics in Hyperscale"
    /// does (RBIO_RG_STORAGE, _REPLICA, _GEOREPLICA, _DESTAGE, _LOCALDESTAGE, ...).
    /// </summary>
    public static CommitPart? OfWaitType(string waitType)
    {
        ArgumentNullException.ThrowIfNull(waitType);
        return waitType switch
        {
            "WRITELOG" => CommitPart.LocalFlush,
            "HADR_SYNC_COMMIT" => CommitPart.SyncReplica,
            "LOGBUFFER" => CommitPart.LogBuffer,
            "LOG_RATE_GOVERNOR" => CommitPart.LogRateGovernor,
            "POOL_LOG_RATE_GOVERNOR" => CommitPart.PoolLogRateGovernor,
            "INSTANCE_LOG_RATE_GOVERNOR" => CommitPart.InstanceLogRateGovernor,
            _ when waitType.StartsWith("HADR_THROTTLE_LOG_RATE", StringComparison.Ordinal) => CommitPart.LogRateFeedback,
            _ when waitType.StartsWith("RBIO_RG_", StringComparison.Ordinal) => CommitPart.HyperscaleLogRate,
            _ => null,
        };
    }

    /// <summary>A duration as the budget's sentences show it: "0.15 ms", "2.3 ms", "12 ms", "1.4 s".</summary>
    public static string Milliseconds(double seconds)
    {
        var ms = seconds * 1000;
        return ms switch
        {
            >= 1000 => string.Create(CultureInfo.InvariantCulture, $"{seconds:0.#} s"),
            >= 10 => string.Create(CultureInfo.InvariantCulture, $"{ms:0} ms"),
            >= 1 => string.Create(CultureInfo.InvariantCulture, $"{ms:0.#} ms"),
            _ => string.Create(CultureInfo.InvariantCulture, $"{ms:0.##} ms"),
        };
    }
}

/// <summary>One part of a database's commit budget over a window.</summary>
/// <param name="Part">Which part.</param>
/// <param name="Seconds">Time waited on it in the window.</param>
/// <param name="Source">Where it was read.</param>
public sealed record CommitBudgetPart(CommitPart Part, double Seconds, CommitPartSource Source)
{
    /// <summary>The <c>part</c> attribute value.</summary>
    public string Name => CommitParts.Name(Part);
}

/// <summary>
/// Where one database's commit time went over a window: the time waited on each part (the parts read for this database),
/// the commits that waited for a flush in it, and the parts only the instance's wait stats know (not attributed to any
/// database, so not in <see cref="Parts"/>).
/// </summary>
/// <param name="Parts">The parts read for this database, largest first.</param>
/// <param name="WindowSeconds">The window's length.</param>
/// <param name="Commits">Commits that waited for a log flush in the window (WRITELOG waits, or Log Flush Waits/sec), when known.</param>
/// <param name="InstanceWide">
/// Parts read only from the instance's wait stats in the last poll interval (seconds waited per second on the whole
/// instance): the session does not collect their waits per database.
/// </param>
public sealed record CommitBudgetSnapshot(IReadOnlyList<CommitBudgetPart> Parts, double WindowSeconds, double? Commits, IReadOnlyList<CommitBudgetPart> InstanceWide)
{
    /// <summary>Time waited on every part in the window.</summary>
    public double TotalSeconds => Parts.Sum(p => p.Seconds);

    /// <summary>Time waited per commit, when commits are known and some waited.</summary>
    public double? PerCommitSeconds => Commits is > 0 and var c ? TotalSeconds / c : null;

    /// <summary>The largest part, or null when nothing waited.</summary>
    public CommitBudgetPart? Largest => Parts.Count > 0 && Parts[0].Seconds > 0 ? Parts[0] : null;

    /// <summary>
    /// The budget as one sentence: "12 ms per commit: 9 ms waiting for the synchronous replica, 2 ms local flush, 1 ms
    /// log-rate cap", or per second of the window when commits are not known ("0.8 s waited per second: ...", or the time
    /// waited when the window's length is not known either); null when nothing waited. Parts under 1 % of the whole are
    /// left out.
    /// </summary>
    public string? Text()
    {
        var total = TotalSeconds;
        if (total <= 0)
        {
            return null;
        }

        var shown = Parts.Where(p => p.Seconds > 0 && p.Seconds >= total / 100).ToList();
        if (PerCommitSeconds is { } perCommit && Commits is { } commits)
        {
            return CommitParts.Milliseconds(perCommit) + " per commit: " + string.Join(", ", shown.Select(p => CommitParts.Milliseconds(p.Seconds / commits) + " " + CommitParts.Label(p.Part)));
        }

        if (WindowSeconds <= 0)
        {
            return CommitParts.Milliseconds(total) + " waited: " + string.Join(", ", shown.Select(p => CommitParts.Milliseconds(p.Seconds) + " " + CommitParts.Label(p.Part)));
        }

        var window = WindowSeconds;
        return string.Create(CultureInfo.InvariantCulture, $"{total / window:0.###} s waited per second: ")
            + string.Join(", ", shown.Select(p => string.Create(CultureInfo.InvariantCulture, $"{p.Seconds / window:0.###} s/s {CommitParts.Label(p.Part)}")));
    }
}
