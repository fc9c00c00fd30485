using System.Globalization;
using LogFlushMonitor.Core.Advice;
using LogFlushMonitor.Core.Aggregation;

namespace LogFlushMonitor.Hosting;

/// <summary>
/// The summary's line on where commit time went over the last minute: the commit budget with its largest part first
/// ("orders: commit time: 12 ms per commit: 9 ms waiting for the synchronous replica, 2 ms local flush, 1 ms log-rate
/// cap"), the log writes held against the storage they run on, and the share of Azure's log-rate cap written.
/// </summary>
internal static partial class SummaryLine
{
    /// <summary>Logs the budget line of <paramref name="db"/>, when anything of it is known.</summary>
    public static void LogBudget(ILogger logger, DatabaseSnapshot db)
    {
        var budget = db.CommitBudget?.Text();
        var storage = CommitAdvice.Storage(db)?.Text;
        var cap = db.LogRate is { ShareOfCap: { } share, LimitBytesPerSecond: { } limit } g
            ? string.Create(CultureInfo.InvariantCulture, $"log writes at {share * 100:0} % of the {g.Tier} cap of {Core.Signals.LogRateSignal.MegabytesPerSecond(limit)}")
            : null;
        if (budget is null && storage is null && cap is null)
        {
            return;
        }

        var parts = string.Join("; ", new[] { storage, cap }.Where(p => p is not null));
        LogBudgetLine(logger, db.Instance, db.Database, budget ?? "nothing waited", parts.Length == 0 ? "storage not measured" : parts);
    }

    [LoggerMessage(EventId = 205, Level = LogLevel.Information, Message = "{Instance}/{Database}: commit time: {Budget}; {Storage}")]
    private static partial void LogBudgetLine(ILogger logger, string instance, string database, string budget, string storage);
}
