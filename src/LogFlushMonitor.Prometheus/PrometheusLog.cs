using Microsoft.Extensions.Logging;

namespace LogFlushMonitor.Prometheus;

/// <summary>Log messages of the Prometheus endpoint, with stable event ids.</summary>
internal static partial class PrometheusLog
{
    [LoggerMessage(EventId = 4101, Level = LogLevel.Warning, Message = "Prometheus scrape from {RemoteAddress} failed: the collect did not complete")]
    public static partial void ScrapeFailed(ILogger logger, Exception exception, string? remoteAddress);

    [LoggerMessage(EventId = 4102, Level = LogLevel.Warning, Message = "Prometheus scrape from {RemoteAddress} dropped: it did not take the {Length}-byte text within {Seconds:0} s (a minimum of {Rate:0} bytes a second after a grace period); other scrapes were not held by it")]
    public static partial void SlowScraperDropped(ILogger logger, string? remoteAddress, long length, double seconds, double rate);
}
