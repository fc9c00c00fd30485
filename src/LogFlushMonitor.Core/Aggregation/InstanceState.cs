using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;

namespace LogFlushMonitor.Core.Aggregation;

/// <summary>Everything known about one instance. Guarded by the aggregator's lock.</summary>
internal sealed class InstanceState
{
    private DatabaseEvents?[] _byId = new DatabaseEvents?[64];
    private readonly SignalState[] _states = new SignalState[SignalRegistry.All.Count];

    public InstanceState(string name, CounterSelection? counters = null)
    {
        Name = name;
        CounterSelection = counters ?? CounterSelection.Default;
        ExportName = MetricAttributes.Limit(name);
        Tags = [new(MetricAttributes.Instance, ExportName)];
        LossTags = new KeyValuePair<string, object?>[Lost.Length][];
        for (var k = 0; k < Lost.Length; k++)
        {
            LossTags[k] = [new(MetricAttributes.Instance, ExportName), new(MetricAttributes.LossKind, LossKindNames.Of((LossKind)k))];
        }

        Agreement = new InstanceAgreement(name, ExportName);

        // Every signal's state from the start: an instance exports what each signal says of it before that signal's first
        // batch (its restarts at 0 where the start time is never read, as on Azure SQL Database).
        for (var i = 0; i < _states.Length; i++)
        {
            _states[i] = SignalRegistry.All[i].NewState(this);
        }
    }

    /// <summary>Which performance counters become series (the aggregation's selection).</summary>
    public CounterSelection CounterSelection { get; }

    /// <summary>Each signal's state of this instance, by <see cref="Signal.Index"/>.</summary>
    public IReadOnlyList<SignalState> States => _states;

    /// <summary>The state of <paramref name="signal"/>.</summary>
    public SignalState StateOf(Signal signal) => _states[signal.Index];

    /// <summary>The state of <paramref name="signal"/> as <typeparamref name="T"/>.</summary>
    public T? Find<T>(Signal signal)
        where T : SignalState => _states[signal.Index] as T;

    /// <summary>Each database's commit budget (where commit time goes), brought up to date at each collect and snapshot.</summary>
    public CommitBudgets Budgets => _budgets ??= new CommitBudgets(this);

    private CommitBudgets? _budgets;

    /// <summary>How far behind each availability replica may fall (the aggregation's configuration).</summary>
    public ReplicaBehindThresholds ReplicaThresholds { get; set; } = ReplicaBehindThresholds.Default;

    /// <summary>The newest event's timestamp (ticks, UTC), 0 before any: whether the instance's events still flow.</summary>
    public long LastEventTicks { get; set; }

    /// <summary>The newest polled batch's timestamp (ticks, UTC), 0 before any.</summary>
    public long LastBatchTicks { get; set; }

    /// <summary>The commit budget's parts whose wait type some wait event of the instance carried: the session collects them.</summary>
    public bool[] EventParts { get; } = new bool[CommitParts.Count];

    /// <summary>The events' figures checked against the server's own (issue 19 item 2).</summary>
    public InstanceAgreement Agreement { get; }

    public string Name { get; }

    /// <summary>The name as exported (cut to <see cref="MetricAttributes.MaxValueLength"/>).</summary>
    public string ExportName { get; }

    public KeyValuePair<string, object?>[] Tags { get; }

    /// <summary>Database names learned from any sample that carries both id and name.</summary>
    public Dictionary<int, string> Names { get; } = [];

    /// <summary>The tags of each loss kind's series (by <see cref="LossKind"/>), built once.</summary>
    public KeyValuePair<string, object?>[][] LossTags { get; }

    /// <summary>Incremented at each restart seen, so cumulative trackers start new series.</summary>
    public int Epoch { get; private set; }

    public DateTime StartTimeUtc { get; private set; }

    public long Restarts { get; private set; }

    public long EventsReceived { get; set; }

    /// <summary>
    /// Whether an event source of the instance runs: events arrived, or a live stream connected (it hands over its row
    /// tally then). From then on the server's figures are held against the events (the agreement), an idle stream too: a
    /// server that flushes its watched databases while no event comes is a disagreement, not silence.
    /// </summary>
    public bool HasEventSource => EventsReceived > 0 || StreamConnected;

    /// <summary>A live stream of the instance connected (<see cref="Signals.StreamRowsSignal"/>).</summary>
    public bool StreamConnected { get; set; }

    public long[] Lost { get; } = new long[4];

    /// <summary>
    /// Events (and histogram bucket counts) of a database_id no database list of the instance names: the engine's hidden
    /// databases (model_msdb, model_replicatedmaster, mssqlsystemresource, ...) whose ids pass the session's
    /// <c>database_id &gt; 4</c> and whose counters are not polled. Counted here and left out of the agreement.
    /// </summary>
    public long UnlistedEvents;

    /// <summary>
    /// Whether <paramref name="db"/> is one the instance's database lists name (sys.databases, the session's selection, a
    /// poll that named it), or no list is known yet (then every database counts: nothing to tell them apart by).
    /// </summary>
    public bool IsListed(DatabaseEvents db) => db.HasRealName || Names.Count == 0;

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

    /// <summary>
    /// The tags of a database's polled series (counters, log files): one array for all of them, with how many use it. A
    /// database has seven counter series and a log file by default; one array each was most of their tags' memory.
    /// </summary>
    private readonly Dictionary<string, SharedTags> _databaseTags = new(StringComparer.Ordinal);

    /// <summary>Databases whose shared tags some series still use (tests).</summary>
    internal int SharedDatabaseTags => _databaseTags.Count;

    /// <summary>The shared [instance, database] tags of <paramref name="database"/>, one more user counted; give back with <see cref="ReleaseDatabaseTags"/>.</summary>
    public KeyValuePair<string, object?>[] AcquireDatabaseTags(string database)
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

    /// <summary>One user fewer of <paramref name="database"/>'s shared tags; the last lets them go.</summary>
    public void ReleaseDatabaseTags(string database)
    {
        if (_databaseTags.TryGetValue(database, out var shared) && --shared.Users == 0)
        {
            _databaseTags.Remove(database);
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
