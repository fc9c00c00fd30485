using LogFlushMonitor.Core.Aggregation;
using Microsoft.Extensions.Options;

namespace LogFlushMonitor.Hosting;

/// <summary>
/// Logs a line per database at Log:SummaryInterval, what an operator tailing the log should see (<see cref="SummaryLine"/>):
/// for at most <see cref="SummaryLine.MaxDatabases"/> databases, the worst first, and one line counting the rest. At
/// 32,000 databases one line each wrote 64,000 lines (17 MB) every minute.
/// </summary>
internal sealed class SummaryService(
    IOptions<MonitorOptions> options,
    LogFlushAggregator aggregator,
    TimeProvider time,
    ILogger<SummaryService> logger) : BackgroundService
{
    protected override async Task ExecuteAsync(CancellationToken stoppingToken)
    {
        var interval = options.Value.Log.SummaryInterval;
        if (interval <= TimeSpan.Zero)
        {
            return;
        }

        using var timer = new PeriodicTimer(interval, time);
        var baselines = new WhoBaselines();
        try
        {
            while (await timer.WaitForNextTickAsync(stoppingToken).ConfigureAwait(false))
            {
                var all = aggregator.Snapshot();
                var listed = 0;
                foreach (var db in SummaryLine.Worst(all, SummaryLine.MaxDatabases))
                {
                    listed++;
                    SummaryLine.Log(logger, db);
                    SummaryLine.LogBudget(logger, db);
                    SummaryLine.LogWho(logger, db, baselines);
                    SummaryLine.LogStatements(logger, db, baselines, options.Value.Sources.SqlServer.StatementText);
                }

                if (all.Count > listed)
                {
                    SummaryLine.LogRest(logger, all.Count - listed, SummaryLine.MaxDatabases);
                }

                baselines.EndSummary();
            }
        }
        catch (OperationCanceledException) when (stoppingToken.IsCancellationRequested)
        {
        }
    }
}
