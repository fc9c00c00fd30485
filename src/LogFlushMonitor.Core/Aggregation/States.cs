using System.Diagnostics;
using LogFlushMonitor.Core.Metrics;

namespace LogFlushMonitor.Core.Aggregation;

/// <summary>Event-derived state of one database on one instance. Guarded by the aggregator's lock.</summary>
internal sealed class DatabaseEvents
{
    public DatabaseEvents(InstanceState instance, int databaseId, string? name)
    {
        Instance = instance;
        DatabaseId = databaseId;
        SetName(name ?? MetricAttributes.UnnamedDatabase(databaseId));
    }

    public InstanceState Instance { get; }

    public int DatabaseId { get; }

    public string Name { get; private set; } = "";

    public bool HasRealName { get; private set; }

    /// <summary>Tags for histogram records: built once per name, so recording allocates nothing.</summary>
    public TagList Tags { get; private set; }

    public WriteSizeDistribution Sizes { get; } = new();

    public LatencyDistribution FlushDurations { get; } = new();

    public Dictionary<string, WaitTypeEvents> Waits { get; } = new(StringComparer.Ordinal);

    public long FirstTicks { get; set; } = long.MaxValue;

    public long LastTicks { get; set; } = long.MinValue;

    public void SetName(string name)
    {
        Name = name;
        HasRealName = !name.StartsWith("id:", StringComparison.Ordinal);
        Tags = new TagList { { MetricAttributes.Instance, Instance.Name }, { MetricAttributes.Database, name } };
        foreach (var w in Waits.Values)
        {
            w.Tags = WaitTags(w.WaitType);
        }
    }

    public TagList WaitTags(string waitType) =>
        new() { { MetricAttributes.Instance, Instance.Name }, { MetricAttributes.Database, Name }, { MetricAttributes.WaitType, waitType } };

    public void Touch(DateTime utc)
    {
        var t = utc.Ticks;
        if (t < FirstTicks)
        {
            FirstTicks = t;
        }

        if (t > LastTicks)
        {
            LastTicks = t;
        }
    }
}

/// <summary>Waits of one type on one database.</summary>
internal sealed class WaitTypeEvents(string waitType, TagList tags)
{
    public string WaitType { get; } = waitType;

    public TagList Tags { get; set; } = tags;

    public LatencyDistribution Durations { get; } = new();
}

/// <summary>A polled series (counter, wait stats or file stats) with the poll that last refreshed it.</summary>
internal abstract class PolledSeries
{
    public int Stamp { get; set; }

    public KeyValuePair<string, object?>[] Tags { get; protected init; } = [];
}

internal sealed class CounterSeries : PolledSeries
{
    public CounterSeries(string instance, string objectName, string counterName, string counterInstance, int counterType)
    {
        ObjectName = objectName;
        CounterName = counterName;
        CounterInstance = counterInstance;
        CounterType = counterType;
        Export = CounterCatalog.Classify(objectName, counterName, counterType);
        Tags = Export is CounterExport.GenericTotal or CounterExport.GenericValue or CounterExport.GenericFraction or CounterExport.GenericAverage
            ? [new(MetricAttributes.Instance, instance), new(MetricAttributes.Database, counterInstance), new(MetricAttributes.CounterObject, objectName), new(MetricAttributes.CounterName, counterName)]
            : [new(MetricAttributes.Instance, instance), new(MetricAttributes.Database, counterInstance)];
    }

    public string ObjectName { get; }

    public string CounterName { get; }

    public string CounterInstance { get; }

    public int CounterType { get; }

    public CounterExport Export { get; }

    public CumulativeTracker Tracker;

    public long LastValue { get; set; }

    public long LastBase { get; set; }

    public bool HasLast { get; set; }

    /// <summary>Flush events of the database when this series took its baseline (for the loss ratio).</summary>
    public long EventsAtBaseline { get; set; } = -1;

    /// <summary>Flush events of the database at the last reading.</summary>
    public long EventsAtLastReading { get; set; }

    /// <summary>Whether any flush event of the database has arrived (no events, no loss figure: pollers alone say nothing about loss).</summary>
    public bool HasEvents { get; set; }

    /// <summary>The current point value after the type's arithmetic (fraction, average), null until computable.</summary>
    public double? Point { get; set; }
}

internal sealed class WaitStatsSeries : PolledSeries
{
    public WaitStatsSeries(string instance, string waitType)
    {
        WaitType = waitType;
        Tags = [new(MetricAttributes.Instance, instance), new(MetricAttributes.WaitType, waitType)];
    }

    public string WaitType { get; }

    public CumulativeTracker Tasks;

    public CumulativeTracker WaitTimeMs;

    public CumulativeTracker SignalTimeMs;

    public long MaxWaitTimeMs { get; set; }
}

internal sealed class FileStatsSeries : PolledSeries
{
    public FileStatsSeries(string instance, int databaseId, string databaseName)
    {
        DatabaseId = databaseId;
        DatabaseName = databaseName;
        Tags = [new(MetricAttributes.Instance, instance), new(MetricAttributes.Database, databaseName)];
    }

    public int DatabaseId { get; }

    public string DatabaseName { get; }

    public CumulativeTracker Writes;

    public CumulativeTracker Bytes;

    public CumulativeTracker StallMs;
}
