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

    /// <summary>The name as exported (cut to <see cref="MetricAttributes.MaxValueLength"/>).</summary>
    public string ExportName { get; private set; } = "";

    /// <summary>Tags of the database's series (the per-event histograms): built once per name, so recording allocates nothing.</summary>
    public KeyValuePair<string, object?>[] Tags { get; private set; } = [];

    public WriteSizeDistribution Sizes { get; } = new();

    public LatencyDistribution FlushDurations { get; } = new();

    /// <summary>
    /// The waits by type, in the order first seen. An array searched in order, not a dictionary: the event session asks
    /// for a handful of wait types, a database sees one or two, and an empty dictionary alone costs more than the array.
    /// </summary>
    public WaitTypeEvents[] Waits { get; private set; } = [];

    /// <summary>WRITELOG time by client application, once a wait event carried the client_app_name action (else null).</summary>
    public ApplicationWaits? Applications { get; set; }

    /// <summary>WRITELOG time by statement, once a wait event carried the query_hash action (else null).</summary>
    public StatementWaits? Statements { get; set; }

    public long FirstTicks { get; set; } = long.MaxValue;

    public long LastTicks { get; set; } = long.MinValue;

    public void SetName(string name)
    {
        Name = name;
        HasRealName = !name.StartsWith("id:", StringComparison.Ordinal);
        ExportName = MetricAttributes.Limit(name);
        Tags = [new(MetricAttributes.Instance, Instance.ExportName), new(MetricAttributes.Database, ExportName)];
        foreach (var w in Waits)
        {
            w.Tags = WaitTags(w.WaitType);
        }

        Applications?.Renamed();
        Statements?.Renamed();
    }

    /// <summary>The waits of <paramref name="waitType"/>, created on first sight (allocates only then).</summary>
    public WaitTypeEvents Wait(string waitType)
    {
        foreach (var w in Waits)
        {
            // Sources hand the same string with every event: a reference check avoids comparing characters.
            if (ReferenceEquals(w.WaitType, waitType) || w.WaitType == waitType)
            {
                return w;
            }
        }

        var created = new WaitTypeEvents(waitType, WaitTags(waitType));
        Waits = [.. Waits, created];
        return created;
    }

    /// <summary>Tags of a series of this database labelled <paramref name="attribute"/> = <paramref name="label"/>.</summary>
    public KeyValuePair<string, object?>[] LabelTags(string attribute, string label) =>
        [new(MetricAttributes.Instance, Instance.ExportName), new(MetricAttributes.Database, ExportName), new(attribute, label)];

    public KeyValuePair<string, object?>[] WaitTags(string waitType) =>
        [new(MetricAttributes.Instance, Instance.ExportName), new(MetricAttributes.Database, ExportName), new(MetricAttributes.WaitType, MetricAttributes.Limit(waitType))];

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
