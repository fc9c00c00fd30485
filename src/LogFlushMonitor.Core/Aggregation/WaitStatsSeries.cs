using LogFlushMonitor.Core.Metrics;

namespace LogFlushMonitor.Core.Aggregation;

/// <summary>One wait type's row of sys.dm_os_wait_stats, tracked restart-safe.</summary>
internal sealed class WaitStatsSeries : PolledSeries
{
    public WaitStatsSeries(string instance, string waitType)
    {
        WaitType = waitType;
        Part = CommitParts.OfWaitType(waitType);
        Tags = [new(MetricAttributes.Instance, MetricAttributes.Limit(instance)), new(MetricAttributes.WaitType, MetricAttributes.Limit(waitType))];
    }

    public string WaitType { get; }

    public CumulativeTracker Tasks;

    public CumulativeTracker WaitTimeMs;

    public CumulativeTracker SignalTimeMs;

    public long MaxWaitTimeMs { get; set; }

    /// <summary>The database whose waits these are where the view is one database's (Azure SQL Database), else null.</summary>
    public string? DatabaseName { get; set; }

    /// <summary>The commit budget's part the wait type belongs to, or null.</summary>
    public CommitPart? Part { get; }
}
