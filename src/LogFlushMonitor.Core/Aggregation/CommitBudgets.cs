using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;

namespace LogFlushMonitor.Core.Aggregation;

/// <summary>
/// One instance's commit budgets: per database, the time commits waited on each <see cref="CommitPart"/>, added up from
/// whichever source reads that part for that database (docs/sqlserver.md, "Where commit time goes"), as cumulative
/// seconds that only grow. Guarded by the aggregator's lock; brought up to date when the metrics are read and when a
/// snapshot is taken, never per event.
/// </summary>
/// <remarks>
/// A part's source is chosen at each update: the database's wait events while the instance's events flow (an event in the
/// last <see cref="EventSilence"/>) and the session collects that wait type (one seen on the instance), else the
/// database's own server figure (a counter; on Azure SQL Database its wait stats). A source's increase since the last
/// update is added; when the source changes, the new one's present value becomes its baseline and that interval adds
/// nothing (nothing is counted twice). The local flush is split: the share of the log file's write stall that I/O
/// governance queued in the last poll interval (io_stall_queued_write_ms over io_stall_write_ms) goes to
/// <see cref="CommitPart.IoGovernanceQueue"/>.
/// </remarks>
internal sealed class CommitBudgets(InstanceState instance)
{
    /// <summary>How long after the instance's last event its events are no longer taken to flow (a fallback to histogram mode, a stopped stream).</summary>
    public static readonly TimeSpan EventSilence = TimeSpan.FromSeconds(60);

    /// <summary>The shortest gap between two samples of the window history.</summary>
    private static readonly long SampleTicks = TimeSpan.FromSeconds(10).Ticks;

    /// <summary>The window a snapshot looks back over (at most).</summary>
    private static readonly long WindowTicks = TimeSpan.FromSeconds(60).Ticks;

    private readonly Dictionary<string, DatabaseBudget> _budgets = new(StringComparer.Ordinal);
    private int _stamp;

    /// <summary>Databases with a budget (tests).</summary>
    public int Count => _budgets.Count;

    /// <summary>Brings every database's budget up to date with its sources (under the lock); a database no source lists any more is forgotten.</summary>
    public void Advance()
    {
        var now = Math.Max(instance.LastEventTicks, instance.LastBatchTicks);
        var eventsFlow = instance.LastEventTicks > 0 && now - instance.LastEventTicks <= EventSilence.Ticks;
        var counters = instance.Find<CountersSignal.State>(SignalRegistry.Counters);
        var files = instance.Find<FileStatsSignal.State>(SignalRegistry.FileStats);
        var waits = instance.Find<WaitStatsSignal.State>(SignalRegistry.WaitStats);
        var stamp = ++_stamp;
        foreach (var db in instance.Databases)
        {
            var b = Budget(db.Name);
            if (b.Stamp != stamp)
            {
                b.Stamp = stamp;
                Update(b, db, eventsFlow, counters, files, waits, now);
            }
        }

        foreach (var name in (counters?.DatabaseNames ?? []).Concat(files?.DatabaseNames ?? []))
        {
            var b = Budget(name);
            if (b.Stamp != stamp)
            {
                b.Stamp = stamp;
                Update(b, null, eventsFlow, counters, files, waits, now);
            }
        }

        foreach (var (name, b) in _budgets)
        {
            if (b.Stamp != stamp)
            {
                _budgets.Remove(name);
            }
        }
    }

    /// <summary>Each database's parts that have a source, as cumulative seconds.</summary>
    public void Read(MeasurementBuffers into, MetricDefinition family)
    {
        foreach (var b in _budgets.Values)
        {
            for (var p = 0; p < CommitParts.Count; p++)
            {
                if (b.Exported[p])
                {
                    into.Add(family, b.Seconds[p], b.Tags[p]);
                }
            }
        }
    }

    /// <summary>The budget of <paramref name="database"/> over the last minute or so, or null when no part has a source.</summary>
    public CommitBudgetSnapshot? Snapshot(string database)
    {
        if (!_budgets.TryGetValue(database, out var b) || !b.Exported.Contains(true) || b.History.Count == 0)
        {
            return null;
        }

        // From the oldest sample of the last minute (or, after a longer silence, the newest before it) to now.
        var now = b.CurrentTicks;
        var first = b.History.FirstOrDefault(h => h.Ticks < now && now - h.Ticks <= WindowTicks);
        if (first.Seconds is null)
        {
            first = b.History.LastOrDefault(h => h.Ticks < now);
        }

        var window = first.Seconds is null ? 0 : (now - first.Ticks) / (double)TimeSpan.TicksPerSecond;
        var parts = new List<CommitBudgetPart>();
        for (var p = 0; p < CommitParts.Count; p++)
        {
            if (b.Exported[p])
            {
                parts.Add(new CommitBudgetPart((CommitPart)p, first.Seconds is null ? 0 : Math.Max(0, b.Seconds[p] - first.Seconds[p]), b.Source[p]));
            }
        }

        parts.Sort((x, y) => y.Seconds.CompareTo(x.Seconds) is var c && c != 0 ? c : x.Part.CompareTo(y.Part));
        double? commits = b.CommitSource == CommitPartSource.None || window <= 0 ? null : Math.Max(0, b.Commits - first.Commits);
        return new CommitBudgetSnapshot(parts, window, commits, InstanceWide(b));
    }

    /// <summary>Forgets a dropped database's budget.</summary>
    public void Remove(string database) => _budgets.Remove(database);

    /// <summary>
    /// Parts the instance's wait stats show waits of in the last poll interval (seconds waited per second) that no source
    /// attributes to <paramref name="b"/>'s database: the session does not collect them per database.
    /// </summary>
    private IReadOnlyList<CommitBudgetPart> InstanceWide(DatabaseBudget b)
    {
        var waits = instance.Find<WaitStatsSignal.State>(SignalRegistry.WaitStats);
        if (waits is null)
        {
            return [];
        }

        var perSecond = new double[CommitParts.Count];
        foreach (var s in waits.Series)
        {
            if (s is { Part: { } part, DatabaseName: null } && part != CommitPart.LocalFlush && !b.Exported[(int)part] && s.WaitTimeMs.LastRate is > 0 and var msPerSecond)
            {
                perSecond[(int)part] += msPerSecond / 1000;
            }
        }

        return [.. perSecond.Select((v, p) => new CommitBudgetPart((CommitPart)p, v, CommitPartSource.None)).Where(p => p.Seconds > 0).OrderByDescending(p => p.Seconds)];
    }

    private DatabaseBudget Budget(string name)
    {
        if (!_budgets.TryGetValue(name, out var b))
        {
            b = new DatabaseBudget(instance.ExportName, name);
            _budgets[name] = b;
        }

        return b;
    }

    private void Update(DatabaseBudget b, DatabaseEvents? db, bool eventsFlow, CountersSignal.State? counters, FileStatsSignal.State? files, WaitStatsSignal.State? waits, long now)
    {
        // Events read a part of a database with event state, while the instance's events flow and its session collects that wait type.
        var collected = instance.EventParts;
        bool FromEvents(CommitPart part) => db is not null && eventsFlow && collected[(int)part];
        var instanceWaits = waits?.Series;

        // The local flush, and the commits that waited for one.
        double? events = FromEvents(CommitPart.LocalFlush) ? EventSeconds(db!, CommitPart.LocalFlush) : null;
        var localSource = events is not null ? CommitPartSource.Events
            : Counter(counters, DatabasesCounters.Object, DatabasesCounters.LogFlushWaitTime, b.Name) is not null ? CommitPartSource.Counters : CommitPartSource.None;
        var local = localSource switch
        {
            CommitPartSource.Events => events!.Value,
            CommitPartSource.Counters => Counter(counters, DatabasesCounters.Object, DatabasesCounters.LogFlushWaitTime, b.Name)!.Tracker.Total / 1000.0,
            _ => 0,
        };
        var localIncrease = b.Take(CommitPart.LocalFlush, localSource, local);
        var share = QueuedShare(files, b.Name);
        if (share is not null)
        {
            b.Exported[(int)CommitPart.IoGovernanceQueue] = true;
            b.Source[(int)CommitPart.IoGovernanceQueue] = CommitPartSource.FileStats;
        }

        b.Seconds[(int)CommitPart.IoGovernanceQueue] += localIncrease * (share ?? 0);
        b.Seconds[(int)CommitPart.LocalFlush] += localIncrease * (1 - (share ?? 0));

        var commitSource = localSource == CommitPartSource.Events ? CommitPartSource.Events
            : Counter(counters, DatabasesCounters.Object, DatabasesCounters.LogFlushWaits, b.Name) is not null ? CommitPartSource.Counters : CommitPartSource.None;
        b.TakeCommits(commitSource, commitSource switch
        {
            CommitPartSource.Events => EventCount(db!, CommitPart.LocalFlush),
            CommitPartSource.Counters => Counter(counters, DatabasesCounters.Object, DatabasesCounters.LogFlushWaits, b.Name)!.Tracker.Total,
            _ => 0,
        });

        // Every other part: events, else the database's own figure (the replica's delay counter; Azure's database wait stats).
        for (var p = (int)CommitPart.SyncReplica; p < CommitParts.Count; p++)
        {
            var part = (CommitPart)p;
            if (FromEvents(part))
            {
                b.Seconds[p] += b.Take(part, CommitPartSource.Events, EventSeconds(db!, part));
            }
            else if (part == CommitPart.SyncReplica && Counter(counters, DatabaseReplicaCounters.Object, DatabaseReplicaCounters.TransactionDelay, b.Name) is { } delay)
            {
                b.Seconds[p] += b.Take(part, CommitPartSource.Counters, delay.Tracker.Total / 1000.0);
            }
            else if (DatabaseWaitMs(instanceWaits, part, b.Name) is { } ms)
            {
                b.Seconds[p] += b.Take(part, CommitPartSource.DatabaseWaitStats, ms / 1000.0);
            }
            else
            {
                b.Take(part, CommitPartSource.None, 0);
            }
        }

        b.Sample(now);
    }

    /// <summary>Seconds waited on <paramref name="part"/> by the database's wait events since monitoring began.</summary>
    private static double EventSeconds(DatabaseEvents db, CommitPart part)
    {
        double seconds = 0;
        foreach (var w in db.Waits)
        {
            if (w.Part == part)
            {
                seconds += w.Durations.SumSeconds;
            }
        }

        return seconds;
    }

    /// <summary>Waits on <paramref name="part"/> by the database's wait events since monitoring began.</summary>
    private static long EventCount(DatabaseEvents db, CommitPart part)
    {
        long count = 0;
        foreach (var w in db.Waits)
        {
            if (w.Part == part)
            {
                count += w.Durations.Count;
            }
        }

        return count;
    }

    /// <summary>The database's own wait stats for <paramref name="part"/> (Azure SQL Database), ms since monitoring began, or null.</summary>
    private static long? DatabaseWaitMs(IEnumerable<WaitStatsSeries>? waits, CommitPart part, string database)
    {
        long? ms = null;
        foreach (var s in waits ?? [])
        {
            if (s.Part == part && s.DatabaseName == database)
            {
                ms = (ms ?? 0) + s.WaitTimeMs.Total;
            }
        }

        return ms;
    }

    private static CounterSeries? Counter(CountersSignal.State? counters, string counterObject, string counter, string database) =>
        counters?.Find(counterObject, counter, database) is { } s && CounterCatalog.IsCumulative(s.CounterType) ? s : null;

    /// <summary>
    /// The share of the database's log write stall that I/O governance queued in the last poll interval (0 to 1; 0 when
    /// the files stalled nothing), or null when its files do not report the queue.
    /// </summary>
    private static double? QueuedShare(FileStatsSignal.State? files, string database)
    {
        long stall = 0, queued = 0;
        var any = false;
        foreach (var f in files?.Files(database) ?? [])
        {
            if (f.HasQueued)
            {
                any = true;
                stall += f.StallMs.LastIncrease;
                queued += f.QueuedMs.LastIncrease;
            }
        }

        // Taken to be part of io_stall_write_ms (a belief, docs/sqlserver.md): never more than the whole stall.
        return !any ? null : stall > 0 ? Math.Clamp((double)queued / stall, 0, 1) : 0;
    }

    /// <summary>One database's budget.</summary>
    private sealed class DatabaseBudget
    {
        private const int MaxHistory = 12;
        private readonly double[] _baseline = new double[CommitParts.Count];
        private double _commitBaseline;

        public DatabaseBudget(string instance, string name)
        {
            Name = name;
            var limited = MetricAttributes.Limit(name);
            Tags = [.. CommitParts.Names.Select(p => new KeyValuePair<string, object?>[] { new(MetricAttributes.Instance, instance), new(MetricAttributes.Database, limited), new(MetricAttributes.Part, p) })];
        }

        public string Name { get; }

        /// <summary>Each part's series tags.</summary>
        public KeyValuePair<string, object?>[][] Tags { get; }

        /// <summary>Each part's cumulative seconds.</summary>
        public double[] Seconds { get; } = new double[CommitParts.Count];

        /// <summary>Each part's source at the last update.</summary>
        public CommitPartSource[] Source { get; } = new CommitPartSource[CommitParts.Count];

        /// <summary>Whether a part has had a source (its series exists from then on).</summary>
        public bool[] Exported { get; } = new bool[CommitParts.Count];

        /// <summary>Commits that waited for a flush, cumulative.</summary>
        public double Commits { get; private set; }

        public CommitPartSource CommitSource { get; private set; }

        /// <summary>The cumulative values at recent updates, oldest first (the snapshot's window).</summary>
        public List<(long Ticks, double[] Seconds, double Commits)> History { get; } = [];

        /// <summary>The increase of <paramref name="part"/>'s source since the last update (0 when the source changed or is none).</summary>
        public double Take(CommitPart part, CommitPartSource source, double value)
        {
            var p = (int)part;
            if (source == CommitPartSource.None)
            {
                Source[p] = source;
                return 0;
            }

            var increase = Source[p] == source ? Math.Max(0, value - _baseline[p]) : 0;
            if (Source[p] != source && !Exported[p])
            {
                // The first source of a part counts from zero: its figure is "since monitoring began", as the budget is.
                increase = Math.Max(0, value);
            }

            Source[p] = source;
            Exported[p] = true;
            _baseline[p] = value;
            return increase;
        }

        public void TakeCommits(CommitPartSource source, double value)
        {
            if (source != CommitPartSource.None)
            {
                Commits += CommitSource == source ? Math.Max(0, value - _commitBaseline) : CommitSource == CommitPartSource.None && Commits == 0 ? Math.Max(0, value) : 0;
                _commitBaseline = value;
            }

            CommitSource = source;
        }

        /// <summary>When the values were last brought up to date (the instance's newest batch or event).</summary>
        public long CurrentTicks { get; private set; }

        /// <summary>The update of the poll in progress that last touched it.</summary>
        public int Stamp { get; set; }

        /// <summary>Keeps the present values for the snapshot's window: a sample at most every 10 s, the last 12.</summary>
        public void Sample(long now)
        {
            CurrentTicks = now;
            if (History.Count > 0 && now - History[^1].Ticks < SampleTicks)
            {
                return;
            }

            if (History.Count == MaxHistory)
            {
                History.RemoveAt(0);
            }

            History.Add((now, (double[])Seconds.Clone(), Commits));
        }
    }
}
