using LogFlushMonitor.Core.Aggregation;
using Microsoft.Extensions.Options;

namespace LogFlushMonitor.Hosting;

/// <summary>Logs one line per database at Log:SummaryInterval: what an operator tailing the log should see (<see cref="SummaryLine"/>).</summary>
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
        try
        {
            while (await timer.WaitForNextTickAsync(stoppingToken).ConfigureAwait(false))
            {
                foreach (var db in aggregator.Snapshot().OrderBy(d => d.Instance, StringComparer.Ordinal).ThenBy(d => d.Database, StringComparer.Ordinal))
                {
                    SummaryLine.Log(logger, db);
                }
            }
        }
        catch (OperationCanceledException) when (stoppingToken.IsCancellationRequested)
        {
        }
    }
}
