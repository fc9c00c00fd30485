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
        LossTags = new KeyValuePair<string, object?>[Lost.Length][];
        for (var k = 0; k < Lost.Length; k++)
        {
            LossTags[k] = [new(MetricAttributes.Instance, ExportName), new(MetricAttributes.LossKind, LossKindNames.Of((LossKind)k))];
        }

        Agreement = new InstanceAgreement(name, ExportName);
    }

    /// <summary>The events' figures checked against the server's own (issue 19 item 2).</summary>
    public InstanceAgreement Agreement { get; }

    public string Name { get; }

    /// <summary>The name as exported (cut to <see cref="MetricAttributes.MaxValueLength"/>).</summary>
    public string ExportName { get; }

    public KeyValuePair<string, object?>[] Tags { get; }

    /// <summary>Database names learned from any sample that carries both id and name.</summary>
    public Dictionary<int, string> Names { get; } = [];

    public Dictionary<(string Object, string Counter, string Instance), CounterSeries> Counters { get; } = [];

    /// <summary>The counter series of each family (by <see cref="MetricDefinition.Index"/>), in the order they were created.</summary>
    private readonly List<CounterSeries>?[] _counterGroups = new List<CounterSeries>?[MetricCatalog.All.Count];

    /// <summary>The databases' Log Flushes/sec series, against which each database's event loss is measured.</summary>
    public List<CounterSeries> LossSeries { get; } = [];

    /// <summary>Each database's log files, by database name, in the order the databases were first seen (their sum is exported).</summary>
    public Dictionary<string, DatabaseLogFiles> FilesByDatabase { get; } = new(StringComparer.Ordinal);

    /// <summary>The tags of each loss kind's series (by <see cref="LossKind"/>), built once.</summary>
    public KeyValuePair<string, object?>[][] LossTags { get; }

    public Dictionary<string, WaitStatsSeries> WaitStats { get; } = new(StringComparer.Ordinal);

    public Dictionary<(int DatabaseId, int FileId), FileStatsSeries> FileStats { get; } = [];

    /// <summary>Sessions waiting on WRITELOG now, per database_id (the last waiting-tasks poll).</summary>
    public Dictionary<int, WriteLogWaitersSeries> WriteLogWaiters { get; } = [];

    /// <summary>Log held by open transactions per database_id and application (the last transactions poll: top 5 and other).</summary>
    public Dictionary<(int DatabaseId, string Application), LogWritersSeries> LogWriters { get; } = [];
    /// <summary>
    /// Availability-group databases on each replica (the last replica-states poll), by database, group, replica, role and
    /// mode: a failover that changes a role starts new series instead of relabelling old ones.
    /// </summary>
    public Dictionary<(string Database, string Group, string Replica, string Role, string Mode), ReplicaSeries> Replicas { get; } = [];

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
            _byName = null;
        }
        else if (name is not null && !ReferenceEquals(name, db.Name) && name != db.Name)
        {
            db.SetName(name);
            _byName = null;
        }

        return db;
    }

    /// <summary>The event state of a database, if events arrived for it (nothing is created).</summary>
    public DatabaseEvents? Find(int databaseId) => (uint)databaseId < (uint)_byId.Length ? _byId[databaseId] : null;

    /// <summary>
    /// The databases with event state by name (the lowest id for a name two share), built on the first look-up by name
    /// and dropped when a database is created, renamed or removed, and at the end of each counters poll: a poll looks up
    /// every database once, and searching all of them for each made a poll of 32,000 databases take seconds under the
    /// lock. Dropped after the poll so that it costs no memory between polls.
    /// </summary>
    private Dictionary<string, DatabaseEvents>? _byName;

    /// <summary>The event state of the database named <paramref name="name"/>, if events arrived for it (per poll, not per event).</summary>
    public DatabaseEvents? DatabaseByName(string name)
    {
        if (_byName is null)
        {
            _byName = new(StringComparer.Ordinal);
            foreach (var d in _byId)
            {
                if (d is not null)
                {
                    _byName.TryAdd(d.Name, d);
                }
            }
        }

        return _byName.GetValueOrDefault(name);
    }

    /// <summary>A counters poll ended: the index of databases by name is let go until the next one.</summary>
    public void ForgetNameIndex() => _byName = null;

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
            _byName = null;
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

    /// <summary>The counter series of <paramref name="family"/>, or null when it has none.</summary>
    public List<CounterSeries>? CounterGroup(MetricDefinition family) => _counterGroups[family.Index];

    /// <summary>
    /// The tags of a database's polled series (counters, log files): one array for all of them, with how many use it. A
    /// database has seven counter series and a log file by default; one array each was most of their tags' memory.
    /// </summary>
    private readonly Dictionary<string, SharedTags> _databaseTags = new(StringComparer.Ordinal);

    /// <summary>Databases whose shared tags some series still use (tests).</summary>
    internal int SharedDatabaseTags => _databaseTags.Count;

    /// <summary>A new counter series of <paramref name="kind"/> (to be added with <see cref="AddCounter"/>).</summary>
    public CounterSeries NewCounter(CounterKind kind, string counterInstance)
    {
        if (kind.IsInstanceTotal)
        {
            _ = MetricAttributes.Limit(Name); // counted as a name made an attribute of a new series, as each series' own tags were
            return new CounterSeries(kind, counterInstance, Tags);
        }

        return new CounterSeries(kind, counterInstance, AcquireDatabaseTags(counterInstance));
    }

    /// <summary>A new log file series (to be added with <see cref="AddFile"/>).</summary>
    public FileStatsSeries NewFile(int databaseId, string databaseName) => new(databaseId, databaseName, AcquireDatabaseTags(databaseName));

    /// <summary>The shared [instance, database] tags of <paramref name="database"/>, one more user counted; give back with <see cref="ReleaseDatabaseTags"/>.</summary>
    private KeyValuePair<string, object?>[] AcquireDatabaseTags(string database)
    {
        // Limit is called for every series, as when each built its own tags: sqlserver.monitor.attributes.truncated
        // counts each time a name becomes an attribute of a new series (docs/metrics.md).
        _ = MetricAttributes.Limit(Name);
        var limited = MetricAttributes.Limit(database);
        if (!_databaseTags.TryGetValue(database, out var shared))
        {
            shared = new SharedTags([new(MetricAttributes.Instance, ExportName), new(MetricAttributes.Database, limited)]);
            _databaseTags[database] = shared;
        }

        shared.Users++;
        return shared.Tags;
    }

    private void ReleaseDatabaseTags(string database)
    {
        if (_databaseTags.TryGetValue(database, out var shared) && --shared.Users == 0)
        {
            _databaseTags.Remove(database);
        }
    }

    /// <summary>Keeps <paramref name="series"/> (replacing any series of the same key) in the group of the family it feeds.</summary>
    public void AddCounter((string Object, string Counter, string Instance) key, CounterSeries series)
    {
        if (Counters.Remove(key, out var old))
        {
            Ungroup(old);
        }

        Counters[key] = series;
        if (series.Family is { } family)
        {
            (_counterGroups[family.Index] ??= []).Add(series);
        }

        if (series.TracksEventLoss)
        {
            LossSeries.Add(series);
        }
    }

    /// <summary>Forgets a counter series and takes it out of its group.</summary>
    public void RemoveCounter((string Object, string Counter, string Instance) key)
    {
        if (Counters.Remove(key, out var old))
        {
            Ungroup(old);
        }
    }

    /// <summary>Keeps a log file's series (replacing any of the same key) in its database's group.</summary>
    public void AddFile((int DatabaseId, int FileId) key, FileStatsSeries series)
    {
        RemoveFile(key);
        FileStats[key] = series;
        if (!FilesByDatabase.TryGetValue(series.DatabaseName, out var files))
        {
            files = new DatabaseLogFiles(series.Tags);
            FilesByDatabase[series.DatabaseName] = files;
        }

        files.Files.Add(series);
    }

    /// <summary>Forgets a log file's series; a database left without files leaves the export.</summary>
    public void RemoveFile((int DatabaseId, int FileId) key)
    {
        if (!FileStats.Remove(key, out var old))
        {
            return;
        }

        ReleaseDatabaseTags(old.DatabaseName);
        if (!FilesByDatabase.TryGetValue(old.DatabaseName, out var files))
        {
            return;
        }

        files.Files.Remove(old);
        if (files.Files.Count == 0)
        {
            FilesByDatabase.Remove(old.DatabaseName);
        }
    }

    private void Ungroup(CounterSeries series)
    {
        if (!series.IsInstanceTotal)
        {
            ReleaseDatabaseTags(series.CounterInstance);
        }

        if (series.Family is { } family)
        {
            _counterGroups[family.Index]?.Remove(series);
        }

        if (series.TracksEventLoss)
        {
            LossSeries.Remove(series);
        }
    }

    public void RemoveDatabase(string name)
    {
        for (var i = 0; i < _byId.Length; i++)
        {
            if (_byId[i] is { } d && d.Name == name)
            {
                _byId[i] = null;
                _byName = null;
            }
        }
    }

    /// <summary>Tags shared by the series of one database, and how many series use them.</summary>
    private sealed class SharedTags(KeyValuePair<string, object?>[] tags)
    {
        public KeyValuePair<string, object?>[] Tags { get; } = tags;

        public int Users { get; set; }
    }

    private void Grow(int databaseId)
    {
        // Callers skip ids outside DatabaseIds (counted as malformed); this is the last line of defence.
        ArgumentOutOfRangeException.ThrowIfNegative(databaseId);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(databaseId, DatabaseIds.Max);
        Array.Resize(ref _byId, Math.Max(databaseId + 1, _byId.Length * 2));
    }
}
