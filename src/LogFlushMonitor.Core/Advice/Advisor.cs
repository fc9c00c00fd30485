using System.Globalization;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Signals;

namespace LogFlushMonitor.Core.Advice;

/// <summary>How urgent a piece of advice is.</summary>
public enum AdviceLevel
{
    /// <summary>Worth knowing.</summary>
    Info,

    /// <summary>Commits are likely paying for it.</summary>
    Warning,
}

/// <summary>One plain-language finding about a database's log flushing, with the figure it rests on.</summary>
/// <param name="Code">Stable identifier for scripts (e.g. single-sector-flushes).</param>
/// <param name="Level">Urgency.</param>
/// <param name="Text">One line for a person.</param>
public sealed record AdviceItem(string Code, AdviceLevel Level, string Text);

/// <summary>
/// Turns a database's statistics into the advice the articles support (docs/alerts.md, "Why these thresholds"; docs/sqlserver.md). A slow log device
/// comes first: while each write takes milliseconds, fewer commits only reduce how many pay for it, so batching
/// advice follows it instead of hiding it (the periodic summary shows only the first item). Every rule needs
/// enough data to speak: below <see cref="MinFlushes"/> flushes, the write-size rules stay silent.
/// </summary>
public static class Advisor
{
    /// <summary>Flushes needed before the write-size rules speak.</summary>
    public const int MinFlushes = 100;

    /// <summary>Flushes per second below which row-at-a-time commits cost too little to mention.</summary>
    public const double MinFlushesPerSecond = 50;

    /// <summary>Latency above which log writes are a bottleneck (Microsoft's I/O guide: 10-15 ms consistently).</summary>
    public const double SlowLogWriteSeconds = 0.010;

    /// <summary>
    /// WRITELOG pressure (seconds commits spent waiting per second) under which slow commits are too few to name
    /// the device: the same floor as the SqlServerWritelogSpike alert.
    /// </summary>
    public const double MinWritelogPressure = 0.1;

    /// <summary>WRITELOG waits needed before their percentile speaks.</summary>
    public const int MinWaits = 20;

    /// <summary>
    /// Age at which an in-flight log flush or WRITELOG wait is a stall: SQL Server itself reports I/O requests that take
    /// longer than 15 seconds (error 833), and a healthy log write takes well under a millisecond.
    /// </summary>
    public const double StallSeconds = 15;

    /// <summary>
    /// The advice for one database, most important first: a stalled log device alone (advice on how commits use the log
    /// is wrong while nothing can commit), else the log device's speed, then how commits use it.
    /// </summary>
    public static IReadOnlyList<AdviceItem> Advise(DatabaseSnapshot db)
    {
        ArgumentNullException.ThrowIfNull(db);
        var list = new List<AdviceItem>();
        var full = LogFull(db);
        if (full is not null)
        {
            // First of all: when the log is full every write of the database fails (error 9002).
            list.Add(new("log-full-soon", AdviceLevel.Warning, full.Value.Text + ": " + full.Value.Action));
        }

        if (Stall(db) is { } stall)
        {
            list.Add(new("log-stall", AdviceLevel.Warning, stall + ": the log device is not completing writes; check the storage path (a failover, throttling, a full write cache) before anything else"));
            return list;
        }

        AdviseDevice(db, list);
        CommitAdvice.Add(db, list);
        AdviseReplica(db, list);
        AdviseWriteSizes(db, list);
        AdviseLogSpace(db, list, full is not null);
        return list;
    }

    /// <summary>
    /// Time to full under which the advice (and the periodic summary) says it first: one hour, twice the
    /// SqlServerLogFullSoon alert's 30 minutes, so that the log says it before the page does.
    /// </summary>
    public const double LogFullSoonSeconds = 3600;

    /// <summary>
    /// How long a reason that is not routine may hold a growing log before the advice names it: one hour, as the
    /// SqlServerLogNotTruncating warning. For LOG_BACKUP, normal between log backups, the time since the last log backup.
    /// </summary>
    public const double LogHeldSeconds = 3600;

    /// <summary>
    /// When the log will be full within <see cref="LogFullSoonSeconds"/>: "log full in ~35 min: LOG_BACKUP, no log backup
    /// for 2 h 10 min; 4.1 GB of 5 GB max", and what to do about its reason; null otherwise.
    /// </summary>
    public static (string Text, string Action)? LogFull(DatabaseSnapshot db)
    {
        ArgumentNullException.ThrowIfNull(db);
        if (db.LogSpace is not { TimeToFullSeconds: { } seconds, Room: { } room } log || seconds >= LogFullSoonSeconds)
        {
            return null;
        }

        var reason = log.Reason ?? LogReuseWaits.Unknown;
        var why = reason == LogReuseWaits.LogBackup
            ? log.LogBackupAgeSeconds is { } age ? $"{reason}, no log backup for {LogSpaceSignal.Duration(age)}" : $"{reason}, no log backup known"
            : log.ReasonSeconds is >= 60 and var held ? $"{reason} for {LogSpaceSignal.Duration(held)}" : reason;
        var used = LogFilesSignal.Bytes(log.ActiveBytes ?? 0);
        var of = LogFilesSignal.Bytes(room.HeadroomBytes) + (room.BoundByMaxSize ? " max" : " (all the volume allows)");
        return ($"log full in ~{LogSpaceSignal.Duration(seconds)}: {why}; {used} of {of}", Action(reason));
    }

    /// <summary>What frees the log held for <paramref name="reason"/> (Microsoft, "Troubleshoot a full transaction log (error 9002)").</summary>
    private static string Action(string reason) => reason switch
    {
        LogReuseWaits.LogBackup => "take a log backup (and find why the scheduled ones stopped)",
        "ACTIVE_TRANSACTION" => "find the open transaction holding it (sqlserver_database_log_writer_used_bytes, sys.dm_tran_database_transactions) and commit or end it",
        "AVAILABILITY_REPLICA" => "a secondary is not taking the log: check its send and redo queues (sqlserver_replica_log_send_queue_size_bytes)",
        "DATABASE_MIRRORING" => "the mirror is behind or paused: resume or fix mirroring",
        "REPLICATION" => "the log reader agent is not reading the log: check replication",
        "ACTIVE_BACKUP_OR_RESTORE" => "a data backup or restore holds it: let it finish or stop it",
        _ => "grow the log or free its volume while the reason clears (docs/alerts.md, SqlServerLogFullSoon)",
    };

    /// <summary>
    /// The log's settings and how long it has been held: a growing log held for over <see cref="LogHeldSeconds"/> by a
    /// reason that is not routine (unless it is already about to fill), many VLFs, percent or 1 MB growth on a large log.
    /// </summary>
    private static void AdviseLogSpace(DatabaseSnapshot db, List<AdviceItem> list, bool fullSaid)
    {
        if (db.LogSpace is not { } log)
        {
            return;
        }

        var ci = CultureInfo.InvariantCulture;
        if (!fullSaid && log.Reason is { } reason && !LogReuseWaits.Routine.Contains(reason) && log.GrowthBytesPerSecond is > 0 and var rate)
        {
            var held = reason == LogReuseWaits.LogBackup ? log.LogBackupAgeSeconds : log.ReasonSeconds;
            if (held >= LogHeldSeconds)
            {
                list.Add(new("log-not-truncating", AdviceLevel.Warning, string.Create(ci,
                    $"the log has not been able to truncate for {LogSpaceSignal.Duration(held.Value)} ({reason}{(reason == LogReuseWaits.LogBackup ? ": no log backup since" : "")}) and grows {LogFilesSignal.Bytes((long)rate)}/s: {Action(reason)}")));
            }
        }

        if (LogSpaceSignal.VlfAdvice(log.Vlfs) is { } vlfs)
        {
            list.Add(new("log-vlfs", AdviceLevel.Info, vlfs));
        }

        foreach (var file in log.Files)
        {
            if (LogFilesSignal.GrowthAdvice(file) is { } growth)
            {
                list.Add(new("log-growth-setting", AdviceLevel.Info, growth));
            }
        }
    }

    /// <summary>A local log flush under this is fast: the other half of a slow synchronous commit is then the replica's.</summary>
    public const double FastLocalFlushSeconds = 0.005;

    /// <summary>
    /// Which half of a synchronous commit is slow, as in the SqlServerSyncReplicaSlow alert: the wait for the synchronous
    /// secondaries (HADR_SYNC_COMMIT waits from the events, else Database Replica's Transaction Delay per mirrored
    /// transaction) over <see cref="SlowLogWriteSeconds"/> while the local flushes (from the events, else Log Flush Wait
    /// Time per flush wait) take under <see cref="FastLocalFlushSeconds"/>. Silent when the local half is slow too: the
    /// device advice speaks first then.
    /// </summary>
    private static void AdviseReplica(DatabaseSnapshot db, List<AdviceItem> list)
    {
        var sync = db.Waits.FirstOrDefault(x => x.WaitType == "HADR_SYNC_COMMIT") is { Count: >= MinWaits } s ? s.MeanSeconds
            : db.SyncCommitDelayMsPerTransaction / 1000.0;
        var local = db.FlushDurations.Count >= MinWaits ? db.FlushDurations.MeanSeconds
            : db.CounterFlushWaitsPerSecond is > 0 and var waits ? db.CounterFlushWaitSecondsPerSecond / waits : null;
        if (sync is { } remote && remote > SlowLogWriteSeconds && local is { } flush && flush < FastLocalFlushSeconds)
        {
            list.Add(new("sync-replica-slow", AdviceLevel.Warning, string.Create(CultureInfo.InvariantCulture,
                $"commits wait {remote * 1000:0.#} ms each for the synchronous replica (HADR_SYNC_COMMIT) while local log flushes take {flush * 1000:0.#} ms: the replica or the network is slow, not this log device; check the secondaries' send queue and last harden, and the link")));
        }
    }

    private static void AdviseDevice(DatabaseSnapshot db, List<AdviceItem> list)
    {
        var ci = CultureInfo.InvariantCulture;
        if (db.LogWriteLatencySeconds is { } latency && latency > SlowLogWriteSeconds)
        {
            list.Add(new("slow-log-writes", AdviceLevel.Warning, string.Create(ci,
                $"log writes take {latency * 1000:0.#} ms on average (io_stall_write_ms / writes): the log device is slow; SSD/NVMe log writes take well under 1 ms")));
        }

        if (Writelog(db) is { } w && w.PerCommitSeconds > SlowLogWriteSeconds && w.PressureSecondsPerSecond > MinWritelogPressure)
        {
            list.Add(new("slow-writelog", AdviceLevel.Warning, string.Create(ci,
                $"commits wait {w.PerCommitSeconds * 1000:0.#} ms each for the log ({w.PressureSecondsPerSecond:0.##} s waiting per second, {w.Where}), over the 10-15 ms bottleneck line: the log device is slow; check its latency and what else writes to it")));
            return;
        }

        var writelog = db.Waits.FirstOrDefault(x => x.WaitType == "WRITELOG");
        if (writelog is { Count: >= MinWaits } && writelog.P95Seconds > SlowLogWriteSeconds)
        {
            list.Add(new("slow-writelog", AdviceLevel.Warning, string.Create(ci,
                $"WRITELOG p95 is {writelog.P95Seconds * 1000:0.#} ms, over the 10-15 ms bottleneck line: commits wait on the log device; check its latency or reduce the number of commits")));
            return;
        }

        // A file's average dilutes a slowdown of a few seconds or minutes (and so does a minute's, among the fast
        // commits around a 30 s spike): judge the file's busiest 10 seconds with the same thresholds.
        if (db.BusiestWriteLogWindow is { Waits: >= MinWaits } m && m.MeanSeconds > SlowLogWriteSeconds && m.PressureSecondsPerSecond > MinWritelogPressure)
        {
            list.Add(new("writelog-spike", AdviceLevel.Warning, string.Create(ci,
                $"in the {m.Length.TotalSeconds:0} s from {m.StartUtc:yyyy-MM-dd HH:mm:ss} UTC commits waited {m.MeanSeconds * 1000:0.#} ms each for the log ({m.PressureSecondsPerSecond:0.##} s waiting per second), over the 10-15 ms bottleneck line, which the whole span's average hides: look at what wrote to the log device then (log backups, index rebuilds, other files on it) and at its latency")));
        }
    }

    private static void AdviseWriteSizes(DatabaseSnapshot db, List<AdviceItem> list)
    {
        var ci = CultureInfo.InvariantCulture;
        var n = db.WriteSizes.Count;
        if (n < MinFlushes)
        {
            return;
        }

        var single = (double)db.WriteSizes.CountAtMost(512) / n;
        var full = (double)db.WriteSizes[WriteSizeDistribution.SlotOf(WriteSizeDistribution.MaxBlockBytes)] / n;
        // A rate needs a time span; without one (a single instant), the shape alone speaks.
        var busy = db.EventSpanSeconds <= 0 || n / db.EventSpanSeconds >= MinFlushesPerSecond;
        if (single >= 0.8 && busy)
        {
            list.Add(new("single-sector-flushes", AdviceLevel.Warning, string.Create(ci,
                $"{single * 100:0} % of flushes are 512 B: commits are row-at-a-time; batch them into larger transactions or consider delayed durability")));
        }
        else if (full >= 0.5)
        {
            list.Add(new("full-block-flushes", AdviceLevel.Info, string.Create(ci,
                $"{full * 100:0} % of flushes are full 60 KB log blocks: large transactions fill the log buffer; flush sizes are already as large as they get")));
        }
    }

    /// <summary>
    /// What shows a stall now: flushes outstanding for <see cref="StallSeconds"/> or more ("8 flushes outstanding for
    /// 40 s") and sessions waiting on WRITELOG as long ("8 sessions waiting on WRITELOG for up to 40 s"), joined when
    /// both show it; null while neither does. As in the SqlServerLogStalled alert, one outstanding flush alone is not a
    /// stall unless a session waits too: on a quiet database it is as likely a complete event the session lost.
    /// </summary>
    public static string? Stall(DatabaseSnapshot db)
    {
        ArgumentNullException.ThrowIfNull(db);
        var ci = CultureInfo.InvariantCulture;
        string? flushes = null, waits = null;
        if (db is { OutstandingFlushes: > 0 and var n, OldestOutstandingFlushSeconds: { } age } && age >= StallSeconds
            && (n >= 2 || db.WriteLogWaitingSessions > 0))
        {
            flushes = string.Create(ci, $"{n} {(n == 1 ? "flush" : "flushes")} outstanding for {age:0} s");
        }

        if (db is { WriteLogWaitingSessions: > 0 and var s, WriteLogLongestWaitSeconds: { } longest } && longest >= StallSeconds)
        {
            waits = string.Create(ci, $"{s} {(s == 1 ? "session" : "sessions")} waiting on WRITELOG for up to {longest:0} s");
        }

        return flushes is null ? waits : waits is null ? flushes : flushes + "; " + waits;
    }

    /// <summary>
    /// Time-weighted WRITELOG: from the server's log-flush wait counters over the last poll interval when polled
    /// (what is happening now, as the periodic summary needs), else from the wait events over their span (a file
    /// or a recording, as analyze and report read). Null when nothing waited.
    /// </summary>
    private static (double PressureSecondsPerSecond, double PerCommitSeconds, string Where)? Writelog(DatabaseSnapshot db)
    {
        if (db.CounterFlushWaitSecondsPerSecond is { } pressure && db.CounterFlushWaitsPerSecond is { } waits)
        {
            return waits > 0 ? (pressure, pressure / waits, "last poll") : null;
        }

        var events = db.Waits.FirstOrDefault(x => x.WaitType == "WRITELOG");
        var span = db.EventSpanSeconds;
        return events is { Count: >= MinWaits } && span > 0
            ? (events.Count * events.MeanSeconds / span, events.MeanSeconds, string.Create(CultureInfo.InvariantCulture, $"over {span:0.#} s of events"))
            : null;
    }
}
