using System.Globalization;
using LogFlushMonitor.Core.Advice;
using LogFlushMonitor.Core.Aggregation;
using Microsoft.Extensions.Options;

namespace LogFlushMonitor.Hosting;

/// <summary>Logs one line per database at Log:SummaryInterval: what an operator tailing the log should see.</summary>
internal sealed partial class SummaryService(
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
                    var advice = Advisor.Advise(db);
                    LogSummary(
                        logger,
                        db.Instance,
                        db.Database,
                        db.WriteSizes.Count,
                        Format(db.CounterFlushesPerSecond),
                        db.WriteSizes.Count == 0 ? "-" : (100.0 * db.WriteSizes.CountAtMost(512) / db.WriteSizes.Count).ToString("0.#", CultureInfo.InvariantCulture),
                        db.LogWriteLatencySeconds is { } l ? (l * 1000).ToString("0.###", CultureInfo.InvariantCulture) : "-",
                        advice.FirstOrDefault()?.Text ?? "no advice");
                }
            }
        }
        catch (OperationCanceledException) when (stoppingToken.IsCancellationRequested)
        {
        }
    }

    private static string Format(double? v) => v is { } x ? x.ToString("0", CultureInfo.InvariantCulture) : "-";

    [LoggerMessage(EventId = 200, Level = LogLevel.Information,
        Message = "{Instance}/{Database}: {FlushEvents} flush events, {FlushesPerSecond} flushes/s (counter), {SingleSectorPercent} % of 512 B, log write {LogWriteMs} ms; {Advice}")]
    private static partial void LogSummary(ILogger logger, string instance, string database, long flushEvents, string flushesPerSecond, string singleSectorPercent, string logWriteMs, string advice);
}
