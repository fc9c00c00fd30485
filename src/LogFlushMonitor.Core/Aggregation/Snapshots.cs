using LogFlushMonitor.Core.Samples;

namespace LogFlushMonitor.Core.Aggregation;

/// <summary>Statistics of one wait type on one database, from wait events.</summary>
public sealed record WaitSnapshot(string WaitType, long Count, double MeanSeconds, double P95Seconds, double MaxSeconds);

/// <summary>One database's statistics at one moment (a copy: safe to keep and read from any thread).</summary>
public sealed record DatabaseSnapshot
{
    /// <summary>Instance name.</summary>
    public required string Instance { get; init; }

    /// <summary>database_id, or -1 when the database is known only from polled rows.</summary>
    public required int DatabaseId { get; init; }

    /// <summary>Database name, or "id:N" when not known.</summary>
    public required string Database { get; init; }

    /// <summary>Exact write-size distribution of the flush events (a copy).</summary>
    public required WriteSizeDistribution WriteSizes { get; init; }

    /// <summary>Flush durations from log_flush_complete (a copy).</summary>
    public required LatencyDistribution FlushDurations { get; init; }

    /// <summary>Waits by type from wait events.</summary>
    public required IReadOnlyList<WaitSnapshot> Waits { get; init; }

    /// <summary>First and last event time, when any event arrived.</summary>
    public DateTime? FirstEventUtc { get; init; }

    /// <summary>Last event time.</summary>
    public DateTime? LastEventUtc { get; init; }

    /// <summary>Log Flushes/sec over the last poll interval (restart-safe), when polled.</summary>
    public double? CounterFlushesPerSecond { get; init; }

    /// <summary>Log Bytes Flushed/sec over the last poll interval.</summary>
    public double? CounterBytesPerSecond { get; init; }

    /// <summary>Log flushes counted by the server since monitoring began.</summary>
    public long? CounterFlushesTotal { get; init; }

    /// <summary>Average log write latency over the last poll interval (delta stall / delta writes), seconds.</summary>
    public double? LogWriteLatencySeconds { get; init; }

    /// <summary>Log writes per second over the last poll interval, from file stats.</summary>
    public double? LogWritesPerSecond { get; init; }

    /// <summary>Share of the flushes the server counted for which no event arrived (events vs Log Flushes/sec), when both are known.</summary>
    public double? EventLossRatio { get; init; }

    /// <summary>Seconds between the first and last event.</summary>
    public double EventSpanSeconds => FirstEventUtc is { } f && LastEventUtc is { } l ? (l - f).TotalSeconds : 0;
}

/// <summary>Per-instance totals.</summary>
public sealed record InstanceSnapshot(
    string Instance,
    long EventsReceived,
    long LostSequenceGap,
    long LostChannelFull,
    long LostServerDropped,
    long LostMalformed,
    long Restarts,
    DateTime? StartTimeUtc);

internal static class SnapshotBuilder
{
    public static List<DatabaseSnapshot> Build(IEnumerable<InstanceState> instances)
    {
        var list = new List<DatabaseSnapshot>();
        foreach (var inst in instances)
        {
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
                    Waits = db.Waits.Values.Select(w => new WaitSnapshot(w.WaitType, w.Durations.Count, w.Durations.MeanSeconds, w.Durations.Quantile(0.95), w.Durations.MaxSeconds)).ToList(),
                    FirstEventUtc = db.FirstTicks == long.MaxValue ? null : new DateTime(db.FirstTicks, DateTimeKind.Utc),
                    LastEventUtc = db.LastTicks == long.MinValue ? null : new DateTime(db.LastTicks, DateTimeKind.Utc),
                    CounterFlushesPerSecond = Counter(inst, db.Name, "Log Flushes/sec")?.Tracker.LastRate,
                    CounterBytesPerSecond = Counter(inst, db.Name, "Log Bytes Flushed/sec")?.Tracker.LastRate,
                    CounterFlushesTotal = Counter(inst, db.Name, "Log Flushes/sec")?.Tracker.Total,
                    LogWriteLatencySeconds = Latency(inst, db.Name),
                    LogWritesPerSecond = Files(inst, db.Name).Sum(f => f.Writes.LastRate),
                    EventLossRatio = Counter(inst, db.Name, "Log Flushes/sec") is { } c ? LogFlushAggregator.LossRatio(c) : null,
                });
            }

            // Databases known only from polls (no events yet) still get a row.
            var polled = inst.Counters.Values.Where(c => c.ObjectName == "Databases" && c.CounterInstance != "_Total").Select(c => c.CounterInstance)
                .Concat(inst.FileStats.Values.Select(f => f.DatabaseName));
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
                    CounterFlushesPerSecond = Counter(inst, name, "Log Flushes/sec")?.Tracker.LastRate,
                    CounterBytesPerSecond = Counter(inst, name, "Log Bytes Flushed/sec")?.Tracker.LastRate,
                    CounterFlushesTotal = Counter(inst, name, "Log Flushes/sec")?.Tracker.Total,
                    LogWriteLatencySeconds = Latency(inst, name),
                    LogWritesPerSecond = Files(inst, name).Sum(f => f.Writes.LastRate),
                });
            }
        }

        return list;
    }

    private static CounterSeries? Counter(InstanceState inst, string database, string counter) =>
        inst.Counters.GetValueOrDefault(("Databases", counter, database)) is { CounterType: PerfCounterType.BulkCount } s ? s : null;

    private static IEnumerable<FileStatsSeries> Files(InstanceState inst, string database) =>
        inst.FileStats.Values.Where(f => f.DatabaseName == database);

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
