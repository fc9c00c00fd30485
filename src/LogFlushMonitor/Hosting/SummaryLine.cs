using System.Globalization;
using LogFlushMonitor.Core.Advice;
using LogFlushMonitor.Core.Aggregation;

namespace LogFlushMonitor.Hosting;

/// <summary>
/// The periodic summary's line for one database. A stalled log device comes first, as a warning of its own that names
/// the stall before any figure (the completed-only figures all read zero then, and the database would look idle);
/// otherwise the usual line with the first piece of advice at its end.
/// </summary>
internal static partial class SummaryLine
{
    /// <summary>Logs the line of <paramref name="db"/>.</summary>
    public static void Log(ILogger logger, DatabaseSnapshot db)
    {
        var flushesPerSecond = Format(db.CounterFlushesPerSecond);
        var singleSector = db.WriteSizes.Count == 0 ? "-" : (100.0 * db.WriteSizes.CountAtMost(512) / db.WriteSizes.Count).ToString("0.#", CultureInfo.InvariantCulture);
        var logWrite = db.LogWriteLatencySeconds is { } l ? (l * 1000).ToString("0.###", CultureInfo.InvariantCulture) : "-";
        if (Advisor.Stall(db) is { } stall)
        {
            LogStall(logger, db.Instance, db.Database, stall, db.WriteSizes.Count, flushesPerSecond, singleSector, logWrite);
            return;
        }

        LogSummary(logger, db.Instance, db.Database, db.WriteSizes.Count, flushesPerSecond, singleSector, logWrite, Advisor.Advise(db).FirstOrDefault()?.Text ?? "no advice");
    }

    private static string Format(double? v) => v is { } x ? x.ToString("0", CultureInfo.InvariantCulture) : "-";

    [LoggerMessage(EventId = 200, Level = LogLevel.Information,
        Message = "{Instance}/{Database}: {FlushEvents} flush events, {FlushesPerSecond} flushes/s (counter), {SingleSectorPercent} % of 512 B, log write {LogWriteMs} ms; {Advice}")]
    private static partial void LogSummary(ILogger logger, string instance, string database, long flushEvents, string flushesPerSecond, string singleSectorPercent, string logWriteMs, string advice);

    [LoggerMessage(EventId = 201, Level = LogLevel.Warning,
        Message = "{Instance}/{Database}: LOG STALL: {Stall}: the log device is not completing writes; {FlushEvents} flush events, {FlushesPerSecond} flushes/s (counter), {SingleSectorPercent} % of 512 B, log write {LogWriteMs} ms")]
    private static partial void LogStall(ILogger logger, string instance, string database, string stall, long flushEvents, string flushesPerSecond, string singleSectorPercent, string logWriteMs);
}
