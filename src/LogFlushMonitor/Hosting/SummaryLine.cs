using System.Globalization;
using LogFlushMonitor.Core.Advice;
using LogFlushMonitor.Core.Aggregation;

namespace LogFlushMonitor.Hosting;

/// <summary>
/// The periodic summary's line for one database. A log that will be full within the hour comes first, as a warning of
/// its own ("orders: log full in ~35 min: LOG_BACKUP, no log backup for 2 h 10 min; 4.1 GB of 5 GB max"); then a stalled
/// log device, as a warning of its own that names the stall before any figure (the completed-only figures all read zero
/// then, and the database would look idle); otherwise the usual line with the first piece of advice at its end.
/// </summary>
internal static partial class SummaryLine
{
    /// <summary>Databases a summary lists by name; the rest are counted in one line.</summary>
    public const int MaxDatabases = 20;

    /// <summary>
    /// The <paramref name="count"/> databases most worth a look, worst first: a log about to fill (the soonest first), a
    /// stalled log, then the most time
    /// commits spent waiting on the log (Log Flush Wait Time per second), the slowest log writes, the most flushes.
    /// </summary>
    public static IEnumerable<DatabaseSnapshot> Worst(IReadOnlyList<DatabaseSnapshot> databases, int count) =>
        databases
            .Where(WorthALine)
            .OrderByDescending(d => Advisor.LogFull(d) is not null)
            .ThenBy(d => d.LogSpace?.TimeToFullSeconds ?? double.MaxValue)
            .ThenByDescending(d => Advisor.Stall(d) is not null)
            .ThenByDescending(d => d.CounterFlushWaitSecondsPerSecond ?? 0)
            .ThenByDescending(d => d.LogWriteLatencySeconds ?? 0)
            .ThenByDescending(d => d.CounterFlushesPerSecond ?? 0)
            .ThenBy(d => d.Instance, StringComparer.Ordinal)
            .ThenBy(d => d.Database, StringComparer.Ordinal)
            .Take(count);

    /// <summary>
    /// Whether a database has anything for the summary to say: its log is filling or stalled, the session saw its events,
    /// or the advice has something. A database the event session does not watch (master, model and msdb by default, a
    /// database a filter leaves out) whose counters alone say nothing worth advice is left out: on a fleet its "0 flush
    /// events ... no advice" lines crowded out the databases that matter. It is still on /metrics and counted in the rest.
    /// </summary>
    public static bool WorthALine(DatabaseSnapshot d) =>
        d.WriteSizes.Count > 0 || d.Waits.Any(w => w.Count > 0) || Advisor.LogFull(d) is not null || Advisor.Stall(d) is not null
        || Advisor.Advise(d).Any(a => a.Code != "commit-time");

    [LoggerMessage(EventId = 202, Level = LogLevel.Information,
        Message = "... and {Rest} more databases, not listed: the summary names at most {Listed}, those with a log filling or stalled, the most log waiting, or advice; every database is on /metrics")]
    public static partial void LogRest(ILogger logger, int rest, int listed);

    /// <summary>Logs the line of <paramref name="db"/>.</summary>
    public static void Log(ILogger logger, DatabaseSnapshot db)
    {
        var flushesPerSecond = Format(db.CounterFlushesPerSecond);
        var singleSector = db.WriteSizes.Count == 0 ? "-" : (100.0 * db.WriteSizes.CountAtMost(512) / db.WriteSizes.Count).ToString("0.#", CultureInfo.InvariantCulture);
        var logWrite = db.LogWriteLatencySeconds is { } l ? (l * 1000).ToString("0.###", CultureInfo.InvariantCulture) : "-";
        if (Advisor.LogFull(db) is { } full)
        {
            // Said first, on its own line: when the log is full every write of the database fails (error 9002).
            LogFull(logger, db.Instance, db.Database, full.Text, full.Action);
        }

        if (Advisor.Stall(db) is { } stall)
        {
            LogStall(logger, db.Instance, db.Database, stall, db.WriteSizes.Count, flushesPerSecond, singleSector, logWrite);
            return;
        }

        LogSummary(logger, db.Instance, db.Database, db.WriteSizes.Count, flushesPerSecond, singleSector, logWrite,
            // The log filling has its own line above, and where commit time goes its own line after (LogBudget).
            Advisor.Advise(db).FirstOrDefault(a => a.Code is not "log-full-soon" and not "commit-time")?.Text ?? "no advice");
    }

    /// <summary>
    /// Logs who waits and who writes on <paramref name="db"/>, when either is known: the application that spent the most
    /// time waiting on WRITELOG since the last summary (its cumulative seconds less those <paramref name="baselines"/> held
    /// at the previous summary) and the one whose open transactions hold the most log now. An application without a
    /// baseline (its database was not listed last time, or it just entered the top five) is not compared: its seconds
    /// since the service started are not "since the last summary", so the line says when it will be measured instead.
    /// </summary>
    public static void LogWho(ILogger logger, DatabaseSnapshot db, WhoBaselines baselines)
    {
        string? waiting = null;
        var most = 0.0;
        var unmeasured = 0;
        foreach (var a in db.WriteLogApplications)
        {
            if (!baselines.TrySince((db.Instance, db.Database, a.Application), a.Seconds, out var since))
            {
                unmeasured += a.Seconds > 0 ? 1 : 0;
                continue;
            }

            if (since > most)
            {
                most = since;
                waiting = a.Application;
            }
        }

        var writer = db.LogWriters.FirstOrDefault(w => w.LogBytesUsed > 0);
        if (waiting is null && unmeasured == 0 && writer is null)
        {
            return;
        }

        var waited = (waiting, unmeasured) switch
        {
            ({ } app, 0) => string.Create(CultureInfo.InvariantCulture, $"{app} waited most on WRITELOG ({most:0.###} s) since the last summary"),
            ({ } app, _) => string.Create(CultureInfo.InvariantCulture, $"{app} waited most on WRITELOG ({most:0.###} s) since the last summary of the applications measured; {unmeasured} more measured from this summary on"),
            (null, 0) => "nobody waited on WRITELOG since the last summary",
            _ => "WRITELOG time by application is measured from this summary on",
        };
        LogWhoLine(logger, db.Instance, db.Database, waited,
            writer is null ? "no open transaction holds log" : string.Create(CultureInfo.InvariantCulture, $"{writer.Application} holds the most log: {LogSize(writer.LogBytesUsed)} in {writer.Transactions} open transaction(s)"));
    }

    /// <summary>
    /// Logs which statements wait and which write the log on <paramref name="db"/>, when either is known: the statement
    /// (query hash) that spent the most time waiting on WRITELOG since the last summary (the wait events' query_hash), and
    /// the one that wrote the most log since the last summary (Query Store), each with the first 200 characters of its text
    /// when Query Store gave them and <paramref name="text"/> allows (Sources:SqlServer:StatementText). Measured like
    /// <see cref="LogWho"/>: a statement without a baseline is not compared.
    /// </summary>
    public static void LogStatements(ILogger logger, DatabaseSnapshot db, WhoBaselines baselines, bool text)
    {
        var texts = db.LogStatements.Where(s => s.Text is not null).ToDictionary(s => s.QueryHash, s => s.Text!, StringComparer.Ordinal);
        string Named(string hash, string? own) => (own ?? texts.GetValueOrDefault(hash)) is { } t && text ? $"{hash} ({t})" : hash;

        var waiting = Most(db.WriteLogStatements.Where(s => s.QueryHash != Core.Metrics.MetricAttributes.OtherApplication).Select(s => (s.QueryHash, s.Seconds, s.Text)), "wait", db, baselines);
        var writing = Most(db.LogStatements.Where(s => s.QueryHash != Core.Metrics.MetricAttributes.OtherApplication).Select(s => (s.QueryHash, s.LogBytes, s.Text)), "log", db, baselines);
        if (waiting is null && writing is null)
        {
            return;
        }

        LogStatementsLine(logger, db.Instance, db.Database,
            waiting is { } w ? string.Create(CultureInfo.InvariantCulture, $"{Named(w.Hash, w.Text)} waited most on WRITELOG ({w.Since:0.###} s) since the last summary") : "no statement measured on WRITELOG",
            writing is { } l ? $"{Named(l.Hash, l.Text)} wrote the most log (Query Store): {LogSize((long)l.Since)} since the last summary" : "no statement measured in Query Store");
    }

    /// <summary>The statement whose figure grew most since the last summary (a measured one, growing), or null.</summary>
    private static (string Hash, double Since, string? Text)? Most(IEnumerable<(string Hash, double Value, string? Text)> statements, string kind, DatabaseSnapshot db, WhoBaselines baselines)
    {
        (string, double, string?)? most = null;
        foreach (var (hash, value, text) in statements)
        {
            if (baselines.TrySince((db.Instance, db.Database, kind + " " + hash), value, out var since) && since > 0 && since > (most?.Item2 ?? 0))
            {
                most = (hash, since, text);
            }
        }

        return most;
    }

    [LoggerMessage(EventId = 210, Level = LogLevel.Information, Message = "{Instance}/{Database}: statements: {Waiting}; {Writing}")]
    private static partial void LogStatementsLine(ILogger logger, string instance, string database, string waiting, string writing);

    private static string Format(double? v) => v is { } x ? x.ToString("0", CultureInfo.InvariantCulture) : "-";

    [LoggerMessage(EventId = 200, Level = LogLevel.Information,
        Message = "{Instance}/{Database}: {FlushEvents} flush events, {FlushesPerSecond} flushes/s (counter), {SingleSectorPercent} % of 512 B, log write {LogWriteMs} ms; {Advice}")]
    private static partial void LogSummary(ILogger logger, string instance, string database, long flushEvents, string flushesPerSecond, string singleSectorPercent, string logWriteMs, string advice);

    [LoggerMessage(EventId = 204, Level = LogLevel.Warning, Message = "{Instance}/{Database}: {LogFull}; {Action}")]
    private static partial void LogFull(ILogger logger, string instance, string database, string logFull, string action);

    [LoggerMessage(EventId = 203, Level = LogLevel.Information, Message = "{Instance}/{Database}: who: {Waiting}; {Writing}")]
    private static partial void LogWhoLine(ILogger logger, string instance, string database, string waiting, string writing);

    [LoggerMessage(EventId = 201, Level = LogLevel.Warning,
        Message = "{Instance}/{Database}: LOG STALL: {Stall}: the log device is not completing writes; {FlushEvents} flush events, {FlushesPerSecond} flushes/s (counter), {SingleSectorPercent} % of 512 B, log write {LogWriteMs} ms")]
    private static partial void LogStall(ILogger logger, string instance, string database, string stall, long flushEvents, string flushesPerSecond, string singleSectorPercent, string logWriteMs);

    /// <summary>Log bytes as a person reads them: "0 B", "812 B", "3.5 KiB", "4.9 MiB" (a small writer is not "0 MiB").</summary>
    internal static string LogSize(long bytes) => bytes switch
    {
        < 1024 => string.Create(CultureInfo.InvariantCulture, $"{bytes} B"),
        < 1048576 => string.Create(CultureInfo.InvariantCulture, $"{bytes / 1024.0:0.#} KiB"),
        < 1073741824 => string.Create(CultureInfo.InvariantCulture, $"{bytes / 1048576.0:0.#} MiB"),
        _ => string.Create(CultureInfo.InvariantCulture, $"{bytes / 1073741824.0:0.##} GiB"),
    };
}
