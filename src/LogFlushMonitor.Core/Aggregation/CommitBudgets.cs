using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;

namespace LogFlushMonitor.Core.Aggregation;

/// <summary>
/// One instance's commit budgets: per database, the time commits waited on each <see cref="CommitPart"/>, added up from
/// whichever source reads that part for that database (docs/sqlserver.md, "Where commit time goes"), as cumulative
/// seconds that only grow. Guarded by the aggregator's lock; brought up to date at the end of each poll of the counters,
/// the wait stats and the log files, and when a snapshot is taken: never per event, and not when the metrics are read
/// (a read allocates nothing).
/// </summary>
/// <remarks>
/// A part's source is chosen at each update: the database's wait events while the instance's events flow (an event in the
/// last <see cref="EventSilence"/>) and the session collects that wait type (one seen on the instance), else the
/// database's own server figure (a counter; on Azure SQL Database its wait stats). Every source's figure is followed at
/// every update, and the chosen one's increase since the last update is added: a change of source takes the new source's
/// increase over that interval, so nothing is lost or counted twice (waits the events missed while they stopped, which
/// the counter counted, are added when the counter takes over). The local flush is split: the share of the log file's
/// write stall that I/O governance queued in the last poll interval (io_stall_queued_write_ms over io_stall_write_ms)
/// goes to <see cref="CommitPart.IoGovernanceQueue"/>.
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

        // Before a second sample, everything since monitoring began (the window's length is then not known: 0).
        var window = first.Seconds is null ? 0 : (now - first.Ticks) / (double)TimeSpan.TicksPerSecond;
        var parts = new List<CommitBudgetPart>();
        for (var p = 0; p < CommitParts.Count; p++)
        {
            if (b.Exported[p])
            {
                parts.Add(new CommitBudgetPart((CommitPart)p, Math.Max(0, b.Seconds[p] - (first.Seconds?[p] ?? 0)), b.Source[p]));
            }
        }

        parts.Sort((x, y) => y.Seconds.CompareTo(x.Seconds) is var c && c != 0 ? c : x.Part.CompareTo(y.Part));
        double? commits = b.CommitSource == CommitPartSource.None ? null : Math.Max(0, b.Commits - first.Commits);
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
        // Events read a part of a database with event state whose session collects that wait type; they are preferred while
        // the instance's events flow. Every source's figure is followed at each update, so that a change of source takes
        // the new one's increase since the last update: nothing is lost or counted twice.
        var collected = instance.EventParts;
        var instanceWaits = waits?.Series;
        Span<double?> figures = stackalloc double?[DatabaseBudget.Sources];
        for (var p = 0; p < CommitParts.Count; p++)
        {
            var part = (CommitPart)p;
            if (part == CommitPart.IoGovernanceQueue)
            {
                continue; // a share of the local flush, below
            }

            figures.Clear();
            figures[(int)CommitPartSource.Events] = db is not null && collected[p] ? EventSeconds(db, part) : null;
            figures[(int)CommitPartSource.Counters] = part switch
            {
                CommitPart.LocalFlush => Counter(counters, DatabasesCounters.Object, DatabasesCounters.LogFlushWaitTime, b.Name)?.Tracker.Total / 1000.0,
                CommitPart.SyncReplica => Counter(counters, DatabaseReplicaCounters.Object, DatabaseReplicaCounters.TransactionDelay, b.Name)?.Tracker.Total / 1000.0,
                _ => null,
            };
            figures[(int)CommitPartSource.DatabaseWaitStats] = DatabaseWaitMs(instanceWaits, part, b.Name) / 1000.0;
            var increase = b.Take(p, Prefer(figures, eventsFlow), figures);
            if (part != CommitPart.LocalFlush)
            {
                b.Seconds[p] += increase;
                continue;
            }

            var share = QueuedShare(files, b.Name);
            if (share is not null)
            {
                b.Exported[(int)CommitPart.IoGovernanceQueue] = true;
                b.Source[(int)CommitPart.IoGovernanceQueue] = CommitPartSource.FileStats;
            }

            b.Seconds[(int)CommitPart.IoGovernanceQueue] += increase * (share ?? 0);
            b.Seconds[(int)CommitPart.LocalFlush] += increase * (1 - (share ?? 0));
        }

        // The commits that waited for a flush: WRITELOG waits, else Log Flush Waits/sec.
        figures.Clear();
        figures[(int)CommitPartSource.Events] = db is not null && collected[(int)CommitPart.LocalFlush] ? EventCount(db, CommitPart.LocalFlush) : null;
        figures[(int)CommitPartSource.Counters] = Counter(counters, DatabasesCounters.Object, DatabasesCounters.LogFlushWaits, b.Name)?.Tracker.Total;
        b.Commits += b.Take(DatabaseBudget.CommitsSlot, Prefer(figures, eventsFlow), figures);

        b.Sample(now);
    }

    /// <summary>The source to read: the events while they flow, else the database's counter, else its own wait stats.</summary>
    private static CommitPartSource Prefer(ReadOnlySpan<double?> figures, bool eventsFlow) =>
        eventsFlow && figures[(int)CommitPartSource.Events] is not null ? CommitPartSource.Events
        : figures[(int)CommitPartSource.Counters] is not null ? CommitPartSource.Counters
        : figures[(int)CommitPartSource.DatabaseWaitStats] is not null ? CommitPartSource.DatabaseWaitStats
        : CommitPartSource.None;

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
    /// the files stalled nothing), or null when its files do not report the queue or it never held anything.
    /// </summary>
    private static double? QueuedShare(FileStatsSignal.State? files, string database)
    {
        long stall = 0, queued = 0;
        var any = false;
        foreach (var f in files?.Files(database) ?? [])
        {
            // A file whose queue never held anything (SQL Server without I/O governance) has no part to show.
            if (f.HasQueued && f.QueuedMs.Total > 0)
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
        /// <summary>The slot of <see cref="Commits"/> among the parts' (after them).</summary>
        public const int CommitsSlot = CommitParts.Count;

        /// <summary>The number of <see cref="CommitPartSource"/> values a slot follows (None, Events, Counters, DatabaseWaitStats).</summary>
        public const int Sources = (int)CommitPartSource.DatabaseWaitStats + 1;

        private const int MaxHistory = 12;
        private readonly double[,] _baseline = new double[CommitParts.Count + 1, Sources];
        private readonly bool[,] _seen = new bool[CommitParts.Count + 1, Sources];
        private readonly CommitPartSource[] _source = new CommitPartSource[CommitParts.Count + 1];
        private readonly bool[] _had = new bool[CommitParts.Count + 1];

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
        public double Commits { get; set; }

        /// <summary>Where the commits are read.</summary>
        public CommitPartSource CommitSource => _source[CommitsSlot];

        /// <summary>The cumulative values at recent updates, oldest first (the snapshot's window).</summary>
        public List<(long Ticks, double[] Seconds, double Commits)> History { get; } = [];

        /// <summary>
        /// Follows every source's figure of <paramref name="slot"/> (a part, or <see cref="CommitsSlot"/>) and returns the
        /// increase to add, read from <paramref name="source"/>: its increase since the last update; when it had no figure
        /// then, the previous source's increase over the same interval; the whole figure when the slot never had a source
        /// (its figures are "since monitoring began", as the budget is); 0 otherwise.
        /// </summary>
        public double Take(int slot, CommitPartSource source, ReadOnlySpan<double?> figures)
        {
            double? chosen = null, previous = null;
            for (var s = 1; s < Sources; s++)
            {
                if (figures[s] is not { } value)
                {
                    continue;
                }

                var increase = _seen[slot, s] ? Math.Max(0, value - _baseline[slot, s]) : (double?)null;
                chosen = s == (int)source ? increase ?? (_had[slot] ? null : Math.Max(0, value)) : chosen;
                previous = s == (int)_source[slot] ? increase : previous;
                _baseline[slot, s] = value;
                _seen[slot, s] = true;
            }

            var taken = source == CommitPartSource.None ? 0 : chosen ?? previous ?? 0;
            _source[slot] = source;
            _had[slot] |= source != CommitPartSource.None;
            if (slot < CommitParts.Count)
            {
                Source[slot] = source;
                Exported[slot] |= source != CommitPartSource.None;
            }

            return taken;
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
