using LogFlushMonitor.Core.Metrics;

namespace LogFlushMonitor.Core.Aggregation;

/// <summary>One wait type's row of sys.dm_os_wait_stats, tracked restart-safe.</summary>
internal sealed class WaitStatsSeries : PolledSeries
{
    public WaitStatsSeries(string instance, string waitType)
    {
        WaitType = waitType;
        Tags = [new(MetricAttributes.Instance, MetricAttributes.Limit(instance)), new(MetricAttributes.WaitType, MetricAttributes.Limit(waitType))];
    }

    public string WaitType { get; }

    public CumulativeTracker Tasks;

    public CumulativeTracker WaitTimeMs;

    public CumulativeTracker SignalTimeMs;

    public long MaxWaitTimeMs { get; set; }
}
