using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Core.Samples;

namespace LogFlushMonitor.Core.Aggregation;

/// <summary>Everything known about one instance. Guarded by the aggregator's lock.</summary>
internal sealed class InstanceState
{
    private DatabaseEvents?[] _byId = new DatabaseEvents?[64];
    private readonly int[] _generation = new int[Enum.GetValues<PollKind>().Length];

    public InstanceState(string name)
    {
        Name = name;
        ExportName = MetricAttributes.Limit(name);
        Tags = [new(MetricAttributes.Instance, ExportName)];
    }

    public string Name { get; }

    /// <summary>The name as exported (cut to <see cref="MetricAttributes.MaxValueLength"/>).</summary>
    public string ExportName { get; }

    public KeyValuePair<string, object?>[] Tags { get; }

    /// <summary>Database names learned from any sample that carries both id and name.</summary>
    public Dictionary<int, string> Names { get; } = [];

    public Dictionary<(string Object, string Counter, string Instance), CounterSeries> Counters { get; } = [];

    public Dictionary<string, WaitStatsSeries> WaitStats { get; } = new(StringComparer.Ordinal);

    public Dictionary<(int DatabaseId, int FileId), FileStatsSeries> FileStats { get; } = [];

    /// <summary>Sessions waiting on WRITELOG now, per database_id (the last waiting-tasks poll).</summary>
    public Dictionary<int, WriteLogWaitersSeries> WriteLogWaiters { get; } = [];

    /// <summary>Where the source keeps the flushes that started and have not completed (stream mode), or null.</summary>
    public XEvents.OutstandingFlushSource? Outstanding { get; set; }

    /// <summary>Incremented at each restart seen, so cumulative trackers start new series.</summary>
    public int Epoch { get; private set; }

    public DateTime StartTimeUtc { get; private set; }

    public long Restarts { get; private set; }

    public long EventsReceived { get; set; }

    public long[] Lost { get; } = new long[4];

    public IEnumerable<DatabaseEvents> Databases
    {
        get
        {
            foreach (var d in _byId)
            {
                if (d is not null)
                {
                    yield return d;
                }
            }
        }
    }

    /// <summary>Finds or creates a database's event state: an array index on the hot path.</summary>
    public DatabaseEvents Database(int databaseId, string? name)
    {
        if ((uint)databaseId >= (uint)_byId.Length)
        {
            Grow(databaseId);
        }

        var db = _byId[databaseId];
        if (db is null)
        {
            name ??= Names.GetValueOrDefault(databaseId);
            db = new DatabaseEvents(this, databaseId, name);
            _byId[databaseId] = db;
        }
        else if (name is not null && !ReferenceEquals(name, db.Name) && name != db.Name)
        {
            db.SetName(name);
        }

        return db;
    }

    /// <summary>The event state of a database, if events arrived for it (nothing is created).</summary>
    public DatabaseEvents? Find(int databaseId) => (uint)databaseId < (uint)_byId.Length ? _byId[databaseId] : null;

    /// <summary>The event state of the database named <paramref name="name"/>, if events arrived for it (per poll, not per event).</summary>
    public DatabaseEvents? DatabaseByName(string name)
    {
        foreach (var d in _byId)
        {
            if (d is not null && d.Name == name)
            {
                return d;
            }
        }

        return null;
    }

    public void LearnName(int databaseId, string name)
    {
        if (Names.TryGetValue(databaseId, out var known) && known == name)
        {
            return;
        }

        Names[databaseId] = name;
        if ((uint)databaseId < (uint)_byId.Length && _byId[databaseId] is { } db && db.Name != name)
        {
            db.SetName(name);
        }
    }

    /// <summary>Applies a start-time reading; returns true when it shows a restart.</summary>
    public bool ObserveStart(DateTime startUtc)
    {
        if (StartTimeUtc == default)
        {
            StartTimeUtc = startUtc;
            return false;
        }

        if (startUtc == StartTimeUtc)
        {
            return false;
        }

        StartTimeUtc = startUtc;
        Epoch++;
        Restarts++;
        return true;
    }

    /// <summary>The stamp that marks a series as refreshed by the poll of <paramref name="kind"/> in progress.</summary>
    public int CurrentStamp(PollKind kind) => _generation[(int)kind] + 1;

    /// <summary>Ends a poll: returns the generation series must carry to stay.</summary>
    public int CompletePoll(PollKind kind) => ++_generation[(int)kind];

    public void RemoveDatabase(string name)
    {
        for (var i = 0; i < _byId.Length; i++)
        {
            if (_byId[i] is { } d && d.Name == name)
            {
                _byId[i] = null;
            }
        }
    }

    private void Grow(int databaseId)
    {
        // Callers skip ids outside DatabaseIds (counted as malformed); this is the last line of defence.
        ArgumentOutOfRangeException.ThrowIfNegative(databaseId);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(databaseId, DatabaseIds.Max);
        Array.Resize(ref _byId, Math.Max(databaseId + 1, _byId.Length * 2));
    }
}
