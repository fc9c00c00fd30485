using LogFlushMonitor.Core.Metrics;

namespace LogFlushMonitor.Core.Aggregation;

/// <summary>One application's open transactions in one database as the last transactions poll saw them (point values).</summary>
internal sealed class LogWritersSeries : PolledSeries
{
    public LogWritersSeries(string instance, string databaseName, string application)
    {
        DatabaseName = databaseName;
        Application = MetricAttributes.Limit(application);
        Tags = [new(MetricAttributes.Instance, MetricAttributes.Limit(instance)), new(MetricAttributes.Database, MetricAttributes.Limit(databaseName)), new(MetricAttributes.Application, Application)];
    }

    public string DatabaseName { get; }

    /// <summary>The application as exported (cut).</summary>
    public string Application { get; }

    public long Transactions { get; set; }

    public long LogBytesUsed { get; set; }

    public long LogBytesReserved { get; set; }
}
