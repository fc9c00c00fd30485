using System.Globalization;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Signals;

namespace LogFlushMonitor.Core.Advice;

/// <summary>
/// Advice on where commit time goes (docs/sqlserver.md, "Where commit time goes"): the commit budget's largest part and
/// what to do about it, Azure's log-rate cap, the log writes held against the storage they run on, and replicas that
/// fall behind. Part of <see cref="Advisor.Advise"/>.
/// </summary>
public static class CommitAdvice
{
    /// <summary>Commit time per commit over which the budget is a warning (the 10-15 ms bottleneck line's low end).</summary>
    public const double SlowCommitSeconds = Advisor.SlowLogWriteSeconds;

    /// <summary>The share of the log-rate cap at which the database is taken to be at it.</summary>
    public const double AtCapShare = 0.9;

    /// <summary>Writes needed before a log write's average speaks.</summary>
    public const int MinWrites = 100;

    /// <summary>Adds the commit budget, the log-rate cap, the storage verdict and replicas behind to <paramref name="list"/>.</summary>
    public static void Add(DatabaseSnapshot db, List<AdviceItem> list)
    {
        ArgumentNullException.ThrowIfNull(db);
        ArgumentNullException.ThrowIfNull(list);
        // Only a slow budget is advice of its own here: the summary and analyze show every budget on a line of theirs,
        // and an informative one would push the write-size advice out of the summary's one item.
        if (Budget(db) is { Level: AdviceLevel.Warning } budget)
        {
            list.Add(budget);
        }

        if (LogRateCap(db) is { } cap)
        {
            list.Add(cap);
        }

        // On SQL Server the device advice says a slow log already (the same 10-15 ms line); Azure's tiers have a promise to hold.
        if (Storage(db) is { Standing: StorageStanding.Slower } storage && StorageVerdicts.For(db.LogRate).Published)
        {
            list.Add(new("storage-slower-than-published", AdviceLevel.Warning, storage.Text));
        }

        foreach (var r in db.Replicas.Where(r => r.IsBehind).OrderByDescending(r => r.CommitBehindSeconds))
        {
            list.Add(new("replica-behind", AdviceLevel.Warning, ReplicaBehind(r)));
        }
    }

    /// <summary>
    /// The budget as advice: "12 ms per commit: 9 ms waiting for the synchronous replica, 2 ms local flush, 1 ms log-rate
    /// cap; the largest part is ...: what to do". A warning when commits take over <see cref="SlowCommitSeconds"/> each
    /// while they spend over <see cref="Advisor.MinWritelogPressure"/> s waiting per second; null when nothing waited.
    /// </summary>
    public static AdviceItem? Budget(DatabaseSnapshot db)
    {
        ArgumentNullException.ThrowIfNull(db);
        if (db.CommitBudget is not { Largest: { } largest } budget || budget.Text() is not { } text)
        {
            return null;
        }

        var pressure = budget.WindowSeconds > 0 ? budget.TotalSeconds / budget.WindowSeconds : 0;
        var slow = budget.PerCommitSeconds > SlowCommitSeconds && pressure > Advisor.MinWritelogPressure;
        var instanceWide = budget.InstanceWide.Count == 0 ? ""
            : "; instance-wide only (no per-database events): " + string.Join(", ", budget.InstanceWide.Select(p => string.Create(CultureInfo.InvariantCulture, $"{p.Seconds:0.###} s/s {CommitParts.Label(p.Part)}")));
        return new("commit-time", slow ? AdviceLevel.Warning : AdviceLevel.Info,
            $"commit time: {text}; largest part: {CommitParts.Label(largest.Part)} ({CommitParts.Describe(largest.Source)}): {What(largest.Part)}{instanceWide}");
    }

    /// <summary>What to do about the largest part.</summary>
    public static string What(CommitPart part) => part switch
    {
        CommitPart.LocalFlush => "the log device; see its write latency, and commit less often (batching) if commits are row at a time",
        CommitPart.IoGovernanceQueue => "Azure's I/O governance queued the log writes before they reached storage: the tier's IOPS cap on the log's storage; fewer, larger log writes (batching) or a higher tier",
        CommitPart.SyncReplica => "the synchronous replica or the network to it; check its send queue and last harden, and its own log device",
        CommitPart.LogBuffer => "no free log buffer: the log writer cannot keep up; look at the log device and at very large transactions",
        CommitPart.LogRateGovernor or CommitPart.PoolLogRateGovernor or CommitPart.InstanceLogRateGovernor =>
            "the tier's log-rate cap; batching lowers flushes but not log bytes: a higher tier, or fewer log bytes (minimal logging, compression, tempdb for transient data)",
        CommitPart.LogRateFeedback => "the availability feedback control slows the log (a replica that cannot keep up, or the log nearly out of space)",
        _ => "a Hyperscale component is behind (page server, replica or log service): sys.dm_hs_database_log_rate names it",
    };

    /// <summary>
    /// Azure's log-rate cap when the database writes at <see cref="AtCapShare"/> of it or more, or when a Hyperscale
    /// component other than the primary sets the rate; null otherwise.
    /// </summary>
    public static AdviceItem? LogRateCap(DatabaseSnapshot db)
    {
        ArgumentNullException.ThrowIfNull(db);
        if (db.LogRate is not { } g)
        {
            return null;
        }

        var tier = string.Join(" ", new[] { g.Tier, g.ServiceObjective }.Where(t => !string.IsNullOrEmpty(t)).Distinct(StringComparer.Ordinal));
        if (g.ShareOfCap is >= AtCapShare and var share && g.LimitBytesPerSecond is { } cap)
        {
            var scope = g.Scope == LogRateSignal.InstanceScope ? "the instance writes" : "log writes run";
            return new("log-rate-cap", AdviceLevel.Warning, string.Create(CultureInfo.InvariantCulture,
                $"{scope} at {share * 100:0} % of the {tier} log-rate cap of {LogRateSignal.MegabytesPerSecond(cap)} (live, {(g.Scope == LogRateSignal.InstanceScope ? "sys.dm_instance_resource_governance" : "sys.dm_user_db_resource_governance")}): commits wait on the log-rate governor; batching lowers flushes but not log bytes: move to a higher tier, or write fewer log bytes (minimal logging, compression, tempdb for transient data)"));
        }

        if (g.LimitingComponent is { } component && g.LimitingBytesPerSecond is { } limit)
        {
            return new("hyperscale-log-rate", AdviceLevel.Warning,
                $"Hyperscale holds the log rate at {LogRateSignal.MegabytesPerSecond(limit)} for the {component} component, which is behind (sys.dm_hs_database_log_rate): the wait is RBIO_RG_*; it lasts until that component catches up");
        }

        return null;
    }

    /// <summary>
    /// The database's log write latency held against the storage class it runs on (Azure's published latency for the
    /// tier, else SQL Server's 10-15 ms line): from the log file's stall per write over the last poll, else the flush
    /// events' mean; null without enough of either.
    /// </summary>
    public static StorageVerdict? Storage(DatabaseSnapshot db)
    {
        ArgumentNullException.ThrowIfNull(db);
        var storage = StorageVerdicts.For(db.LogRate);
        if (db.LogWriteLatencySeconds is { } latency && db.LogWritesPerSecond > 0)
        {
            return StorageVerdicts.Judge(latency, "io_stall_write_ms / num_of_writes over the last poll", storage);
        }

        return db.FlushDurations.Count >= MinWrites
            ? StorageVerdicts.Judge(db.FlushDurations.MeanSeconds, string.Create(CultureInfo.InvariantCulture, $"{db.FlushDurations.Count:N0} log_flush_complete events"), storage)
            : null;
    }

    /// <summary>"sql1-dr (ASYNCHRONOUS_COMMIT) is 95 s behind the primary (threshold 60 s); its send queue drains in ~104 s at the current rate, redo in ~1 s".</summary>
    public static string ReplicaBehind(ReplicaSnapshot r)
    {
        ArgumentNullException.ThrowIfNull(r);
        var ci = CultureInfo.InvariantCulture;
        var send = r.SendDrainSeconds is { } s ? string.Create(ci, $"its send queue ({r.LogSendQueueKb / 1024.0:0.#} MB) drains in ~{s:0} s at the current rate") : "its send queue's drain time is not known (no send rate)";
        var redo = r.RedoDrainSeconds is { } d ? string.Create(ci, $", redo in ~{d:0} s") : "";
        var what = ReplicaBehindThresholds.IsSynchronous(r.AvailabilityMode)
            ? "a synchronous replica this far behind has no failover without data loss; check its state, the network and its log device"
            : "check the link and its redo; if it always lags over a slow link, give it its own threshold (Replicas:Behind)";
        return string.Create(ci, $"{r.Replica} ({r.AvailabilityMode}) is {r.CommitBehindSeconds:0.#} s behind the primary (threshold {r.BehindThresholdSeconds:0.#} s; last_commit_time); {send}{redo}: {what}");
    }
}
