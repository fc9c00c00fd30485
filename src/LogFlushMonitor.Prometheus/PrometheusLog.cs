using Microsoft.Extensions.Logging;

namespace LogFlushMonitor.Prometheus;

/// <summary>Log messages of the Prometheus endpoint, with stable event ids.</summary>
internal static partial class PrometheusLog
{
    [LoggerMessage(EventId = 4101, Level = LogLevel.Warning, Message = "Prometheus scrape from {RemoteAddress} failed: the collect did not complete")]
    public static partial void ScrapeFailed(ILogger logger, Exception exception, string? remoteAddress);
}
