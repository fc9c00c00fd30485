using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;

namespace LogFlushMonitor.Core.Aggregation;

/// <summary>Copies the aggregation's state into snapshots. Called under the aggregator's lock.</summary>
internal static class SnapshotBuilder
{
    public static List<DatabaseSnapshot> Build(IEnumerable<InstanceState> instances)
    {
        var list = new List<DatabaseSnapshot>();
        foreach (var inst in instances)
        {
            inst.Budgets.Advance();
            var seen = new HashSet<string>(StringComparer.Ordinal);
            foreach (var db in inst.Databases)
            {
                seen.Add(db.Name);
                var sizes = new WriteSizeDistribution();
                sizes.AddFrom(db.Sizes);
                list.Add(new DatabaseSnapshot
                {
                    Instance = inst.Name,
                    DatabaseId = db.DatabaseId,
                    Database = db.Name,
                    WriteSizes = sizes,
                    FlushDurations = db.FlushDurations.Copy(),
                    Waits = db.Waits.Select(w => new WaitSnapshot(w.WaitType, w.Durations.Count, w.Durations.MeanSeconds, w.Durations.Quantile(0.95), w.Durations.MaxSeconds)).ToList(),
                    WriteLogApplications = db.Applications is { } apps
                        ? [.. apps.Exported.Select(a => new ApplicationWriteLog(a.ExportName, a.Amount, a.Count)).OrderByDescending(a => a.Seconds).ThenBy(a => a.Application, StringComparer.Ordinal)]
                        : [],
                    WriteLogStatements = db.Statements is { } statements
                        ? [.. statements.Exported.Select(a => new StatementWriteLog(a.ExportName, a.Amount, a.Count, TextOf(inst, db.Name, a.Key))).OrderByDescending(a => a.Seconds).ThenBy(a => a.QueryHash, StringComparer.Ordinal)]
                        : [],
                    LogStatements = LogStatements(inst, db.Name),
                    QueryStoreState = QueryStore(inst, db.Name)?.State,
                    FirstEventUtc = db.FirstTicks == long.MaxValue ? null : new DateTime(db.FirstTicks, DateTimeKind.Utc),
                    LastEventUtc = db.LastTicks == long.MinValue ? null : new DateTime(db.LastTicks, DateTimeKind.Utc),
                    CounterFlushesPerSecond = Counter(inst, db.Name, DatabasesCounters.LogFlushes)?.Tracker.LastRate,
                    CounterBytesPerSecond = Counter(inst, db.Name, DatabasesCounters.LogBytesFlushed)?.Tracker.LastRate,
                    CounterFlushesTotal = Counter(inst, db.Name, DatabasesCounters.LogFlushes)?.Tracker.Total,
                    LogWriteLatencySeconds = Latency(inst, db.Name),
                    CounterFlushWaitSecondsPerSecond = FlushWaitPressure(inst, db.Name),
                    CounterFlushWaitsPerSecond = Counter(inst, db.Name, DatabasesCounters.LogFlushWaits)?.Tracker.LastRate,
                    LogWritesPerSecond = Files(inst, db.Name).Sum(f => f.Writes.LastRate),
                    EventLossRatio = Counter(inst, db.Name, DatabasesCounters.LogFlushes)?.LossRatio,
                    LogWriters = Writers(inst, db.Name),

                    SyncCommitDelayMsPerTransaction = SyncDelay(inst, db.Name),
                    CommitBudget = inst.Budgets.Snapshot(db.Name),
                    LogRate = inst.Find<LogRateSignal.State>(SignalRegistry.LogRate)?.Snapshot(db.Name),
                    Replicas = Replicas(inst, db.Name),
                    LogSpace = LogSpace(inst, db.Name),
                });
            }

            // Databases known only from polls (no events yet) still get a row.
            var polled = (Counters(inst)?.DatabaseNames ?? []).Concat(FileStats(inst)?.DatabaseNames ?? [])
                .Concat(inst.Find<LogSpaceSignal.State>(SignalRegistry.LogSpace)?.DatabaseNames ?? []);
            foreach (var name in polled.Distinct(StringComparer.Ordinal).ToList())
            {
                if (!seen.Add(name))
                {
                    continue;
                }

                list.Add(new DatabaseSnapshot
                {
                    Instance = inst.Name,
                    DatabaseId = inst.Names.FirstOrDefault(kv => kv.Value == name, new(-1, name)).Key,
                    Database = name,
                    WriteSizes = new WriteSizeDistribution(),
                    FlushDurations = new LatencyDistribution(),
                    Waits = [],
                    CounterFlushesPerSecond = Counter(inst, name, DatabasesCounters.LogFlushes)?.Tracker.LastRate,
                    CounterBytesPerSecond = Counter(inst, name, DatabasesCounters.LogBytesFlushed)?.Tracker.LastRate,
                    CounterFlushesTotal = Counter(inst, name, DatabasesCounters.LogFlushes)?.Tracker.Total,
                    LogWriteLatencySeconds = Latency(inst, name),
                    CounterFlushWaitSecondsPerSecond = FlushWaitPressure(inst, name),
                    CounterFlushWaitsPerSecond = Counter(inst, name, DatabasesCounters.LogFlushWaits)?.Tracker.LastRate,
                    LogWritesPerSecond = Files(inst, name).Sum(f => f.Writes.LastRate),
                    LogWriters = Writers(inst, name),
                    LogStatements = LogStatements(inst, name),
                    QueryStoreState = QueryStore(inst, name)?.State,

                    SyncCommitDelayMsPerTransaction = SyncDelay(inst, name),
                    CommitBudget = inst.Budgets.Snapshot(name),
                    LogRate = inst.Find<LogRateSignal.State>(SignalRegistry.LogRate)?.Snapshot(name),
                    Replicas = Replicas(inst, name),
                    LogSpace = LogSpace(inst, name),
                });
            }
        }

        return list;
    }

    private static QueryStoreSignal.DatabaseStatements? QueryStore(InstanceState inst, string database) =>
        inst.Find<QueryStoreSignal.State>(SignalRegistry.QueryStore)?.Statements.FirstOrDefault(s => s.Name == database);

    /// <summary>The text Query Store gave for <paramref name="hash"/> in <paramref name="database"/>, or null.</summary>
    private static string? TextOf(InstanceState inst, string database, ulong hash) => hash == 0 ? null : QueryStore(inst, database)?.TextOf(hash);

    private static List<StatementLog> LogStatements(InstanceState inst, string database) => QueryStore(inst, database) is { } qs
        ? [.. qs.Series.Exported.Select(t => new StatementLog(t.ExportName, t.Amount, t.Count, t.Label is null ? null : qs.TextOf(t.Key)))
            .OrderByDescending(s => s.LogBytes).ThenBy(s => s.QueryHash, StringComparer.Ordinal)]
        : [];

    private static List<ReplicaSnapshot> Replicas(InstanceState inst, string database) =>
        [.. (inst.Find<HadrReplicasSignal.State>(SignalRegistry.HadrReplicas)?.Series ?? []).Where(r => r.Key.Database == database).Select(r => ReplicaOf(inst, r.Key, r.Value))];

    /// <summary>One database on one replica as the last poll saw it, with its time behind and threshold.</summary>
    internal static ReplicaSnapshot ReplicaOf(InstanceState inst, (string Database, string Group, string Replica, string Role, string Mode) key, ReplicaSeries s) => new(
        inst.Name, key.Database, key.Group, key.Replica, key.Role, key.Mode, s.SynchronizationState,
        s.Values[(int)Metrics.ReplicaColumn.LogSendQueueSize], s.Values[(int)Metrics.ReplicaColumn.LogSendRate],
        s.Values[(int)Metrics.ReplicaColumn.RedoQueueSize], s.Values[(int)Metrics.ReplicaColumn.RedoRate],
        s.Values[(int)Metrics.ReplicaColumn.SecondaryLag], s.Values[(int)Metrics.ReplicaColumn.LastHardenedAge],
        s.Values[(int)Metrics.ReplicaColumn.CommitBehind] / 1000.0,
        s.Values[(int)Metrics.ReplicaColumn.CommitBehind] is null ? null : inst.ReplicaThresholds.For(key.Replica, key.Mode).TotalSeconds);

    private static LogSpaceSnapshot? LogSpace(InstanceState inst, string database) =>
        inst.Find<LogSpaceSignal.State>(SignalRegistry.LogSpace)?.Snapshot(database);

    private static CountersSignal.State? Counters(InstanceState inst) => inst.Find<CountersSignal.State>(SignalRegistry.Counters);

    private static FileStatsSignal.State? FileStats(InstanceState inst) => inst.Find<FileStatsSignal.State>(SignalRegistry.FileStats);

    private static CounterSeries? Counter(InstanceState inst, string database, string counter) =>
        Counters(inst)?.Find(DatabasesCounters.Object, counter, database) is { } s && CounterCatalog.IsCumulative(s.CounterType) ? s : null;

    // Log Flush Wait Time is cumulative milliseconds (docs/sqlserver.md, "Performance counters"; Microsoft, "WMI Performance Counter Types"): its rate in ms/s over 1000 is seconds waited per second.
    private static double? FlushWaitPressure(InstanceState inst, string database) =>
        Counter(inst, database, DatabasesCounters.LogFlushWaitTime)?.Tracker.LastRate / 1000.0;

    private static List<ApplicationLogWriter> Writers(InstanceState inst, string database) =>
        [.. (inst.Find<LogWritersSignal.State>(SignalRegistry.LogWriters)?.Series ?? []).Where(w => w.DatabaseName == database)
            .Select(w => new ApplicationLogWriter(w.Application, w.Transactions, w.LogBytesUsed, w.LogBytesReserved))
            .OrderByDescending(w => w.LogBytesUsed).ThenBy(w => w.Application, StringComparer.Ordinal)];

    /// <summary>
    /// Database Replica's Transaction Delay (cumulative ms) over Mirrored Write Transactions/sec (cumulative) in the last
    /// poll interval: the average time a transaction waited for its synchronous secondaries; null without either or
    /// without a mirrored transaction in the interval.
    /// </summary>
    private static double? SyncDelay(InstanceState inst, string database)
    {
        var delay = Counters(inst)?.Find(DatabaseReplicaCounters.Object, DatabaseReplicaCounters.TransactionDelay, database);
        var transactions = Counters(inst)?.Find(DatabaseReplicaCounters.Object, DatabaseReplicaCounters.MirroredWriteTransactions, database);
        return delay is { Tracker.LastRate: { } ms } && CounterCatalog.IsCumulative(delay.CounterType)
            && transactions is { Tracker.LastRate: > 0 and var perSecond } && CounterCatalog.IsCumulative(transactions.CounterType)
            ? ms / perSecond
            : null;
    }

    private static IEnumerable<FileStatsSeries> Files(InstanceState inst, string database) => FileStats(inst)?.Files(database) ?? [];

    private static double? Latency(InstanceState inst, string database)
    {
        long writes = 0, stall = 0;
        foreach (var f in Files(inst, database))
        {
            writes += f.Writes.LastIncrease;
            stall += f.StallMs.LastIncrease;
        }

        return writes > 0 ? stall / 1000.0 / writes : null;
    }
}
