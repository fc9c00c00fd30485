using LogFlushMonitor.Core.Metrics;

namespace LogFlushMonitor.Core.Aggregation;

/// <summary>One database's sessions waiting on WRITELOG as the last waiting-tasks poll saw them (a point value, not cumulative).</summary>
internal sealed class WriteLogWaitersSeries : PolledSeries
{
    public WriteLogWaitersSeries(string instance, int databaseId, string databaseName)
    {
        DatabaseId = databaseId;
        DatabaseName = databaseName;
        Tags = [new(MetricAttributes.Instance, MetricAttributes.Limit(instance)), new(MetricAttributes.Database, MetricAttributes.Limit(databaseName))];
    }

    public int DatabaseId { get; }

    public string DatabaseName { get; }

    public int Sessions { get; set; }

    public long LongestWaitMs { get; set; }
}
