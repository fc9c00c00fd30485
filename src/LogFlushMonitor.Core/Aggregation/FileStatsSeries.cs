using LogFlushMonitor.Core.Metrics;

namespace LogFlushMonitor.Core.Aggregation;

/// <summary>One log file's row of sys.dm_io_virtual_file_stats, tracked restart-safe.</summary>
internal sealed class FileStatsSeries : PolledSeries
{
    public FileStatsSeries(string instance, int databaseId, string databaseName)
    {
        DatabaseId = databaseId;
        DatabaseName = databaseName;
        Tags = [new(MetricAttributes.Instance, MetricAttributes.Limit(instance)), new(MetricAttributes.Database, MetricAttributes.Limit(databaseName))];
    }

    public int DatabaseId { get; }

    public string DatabaseName { get; }

    public CumulativeTracker Writes;

    public CumulativeTracker Bytes;

    public CumulativeTracker StallMs;
}
