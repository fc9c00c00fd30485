using System.Diagnostics;
using System.Diagnostics.Metrics;
using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Core.Samples;

namespace LogFlushMonitor.Core.Aggregation;

/// <summary>
/// Aggregates every sample per (instance, database): exact write-size distributions, flush and wait
/// durations, restart-safe cumulative counters, wait stats and log-file stats. Feeds the histograms of
/// <see cref="LogFlushMetrics"/> per event and answers its observable instruments at collection time.
/// </summary>
/// <remarks>
/// Thread-safety: every public member may be called from any thread; one lock serialises them. The intended
/// shape is one consumer thread per pipeline delivering events (<see cref="OnLogFlush"/>, <see cref="OnWait"/>,
/// or <see cref="Apply(ReadOnlySpan{EventSample})"/> for a batch under one lock), pollers delivering their rows, and
/// the metrics SDK's collection thread reading. The per-event path allocates nothing once a database is known.
/// </remarks>
public sealed class LogFlushAggregator : ISampleSink
{
    private readonly Lock _gate = new();
    private readonly Dictionary<string, InstanceState> _instances = new(StringComparer.Ordinal);
    private readonly LogFlushMetrics? _metrics;
    private InstanceState? _last;

    /// <summary>Creates an aggregation, optionally exporting through <paramref name="metrics"/>.</summary>
    public LogFlushAggregator(LogFlushMetrics? metrics = null)
    {
        _metrics = metrics;
        metrics?.Attach(this);
    }

    /// <inheritdoc />
    public void OnLogFlush(in LogFlushEvent flush)
    {
        lock (_gate)
        {
            ApplyFlush(flush);
        }
    }

    /// <inheritdoc />
    public void OnWait(in WaitEvent wait)
    {
        lock (_gate)
        {
            ApplyWait(wait);
        }
    }

    /// <summary>Applies a batch of events under one lock.</summary>
    public void Apply(ReadOnlySpan<EventSample> events)
    {
        lock (_gate)
        {
            foreach (ref readonly var e in events)
            {
                if (e.Kind == EventSampleKind.Flush)
                {
                    ApplyFlush(e.Flush);
                }
                else
                {
                    ApplyWait(e.Wait);
                }
            }
        }
    }

    /// <inheritdoc />
    public void OnCounter(in CounterSample counter)
    {
        lock (_gate)
        {
            var inst = Instance(counter.Instance);
            var key = (counter.ObjectName, counter.CounterName, counter.CounterInstance);
            if (!inst.Counters.TryGetValue(key, out var s) || s.CounterType != counter.CounterType)
            {
                s = new CounterSeries(inst.Name, counter.ObjectName, counter.CounterName, counter.CounterInstance, counter.CounterType);
                inst.Counters[key] = s;
            }

            s.Stamp = inst.CurrentStamp(PollKind.Counters);
            switch (counter.CounterType)
            {
                case PerfCounterType.BulkCount:
                    s.Tracker.Update(counter.Value, counter.TimestampUtc, inst.Epoch, inst.StartTimeUtc);
                    if (s.Export == CounterExport.Flushes)
                    {
                        // Loss accounting: events received since the counter's baseline against its increase. A
                        // database with no events yet has received none since the baseline.
                        var events = inst.DatabaseByName(counter.CounterInstance);
                        var received = events?.Sizes.Count ?? 0;
                        if (s.EventsAtBaseline < 0)
                        {
                            s.EventsAtBaseline = received;
                        }

                        s.EventsAtLastReading = received;
                        s.HasEvents = events is not null;
                    }

                    break;
                case PerfCounterType.LargeRawFraction:
                    s.Point = counter.BaseValue > 0 ? (double)counter.Value / counter.BaseValue : null;
                    break;
                case PerfCounterType.AverageBulk:
                    // Delta value / delta base; a reset (lower base, new epoch) leaves no honest average for this interval.
                    var deltaBase = counter.BaseValue - s.LastBase;
                    var deltaValue = counter.Value - s.LastValue;
                    s.Point = s.HasLast && deltaBase > 0 && deltaValue >= 0 ? (double)deltaValue / deltaBase : s.HasLast && deltaBase == 0 ? s.Point : null;
                    break;
                default:
                    s.Point = counter.Value;
                    break;
            }

            s.LastValue = counter.Value;
            s.LastBase = counter.BaseValue;
            s.HasLast = true;
        }
    }

    /// <inheritdoc />
    public void OnWaitStats(in WaitStatsSample waitStats)
    {
        lock (_gate)
        {
            var inst = Instance(waitStats.Instance);
            if (!inst.WaitStats.TryGetValue(waitStats.WaitType, out var s))
            {
                s = new WaitStatsSeries(inst.Name, waitStats.WaitType);
                inst.WaitStats[waitStats.WaitType] = s;
            }

            s.Stamp = inst.CurrentStamp(PollKind.WaitStats);
            s.Tasks.Update(waitStats.WaitingTasks, waitStats.TimestampUtc, inst.Epoch, inst.StartTimeUtc);
            s.WaitTimeMs.Update(waitStats.WaitTimeMs, waitStats.TimestampUtc, inst.Epoch, inst.StartTimeUtc);
            s.SignalTimeMs.Update(waitStats.SignalWaitTimeMs, waitStats.TimestampUtc, inst.Epoch, inst.StartTimeUtc);
            s.MaxWaitTimeMs = waitStats.MaxWaitTimeMs;
        }
    }

    /// <inheritdoc />
    public void OnFileStats(in FileStatsSample fileStats)
    {
        lock (_gate)
        {
            var inst = Instance(fileStats.Instance);
            inst.LearnName(fileStats.DatabaseId, fileStats.DatabaseName);
            var key = (fileStats.DatabaseId, fileStats.FileId);
            if (!inst.FileStats.TryGetValue(key, out var s) || s.DatabaseName != fileStats.DatabaseName)
            {
                s = new FileStatsSeries(inst.Name, fileStats.DatabaseId, fileStats.DatabaseName);
                inst.FileStats[key] = s;
            }

            s.Stamp = inst.CurrentStamp(PollKind.FileStats);
            s.Writes.Update(fileStats.NumWrites, fileStats.TimestampUtc, inst.Epoch, inst.StartTimeUtc);
            s.Bytes.Update(fileStats.BytesWritten, fileStats.TimestampUtc, inst.Epoch, inst.StartTimeUtc);
            s.StallMs.Update(fileStats.IoStallWriteMs, fileStats.TimestampUtc, inst.Epoch, inst.StartTimeUtc);
        }
    }

    /// <inheritdoc />
    public void OnServerStart(in ServerStartSample start)
    {
        lock (_gate)
        {
            Instance(start.Instance).ObserveStart(start.StartTimeUtc);
        }
    }

    /// <inheritdoc />
    public void OnPollCompleted(in PollCompleted completed)
    {
        lock (_gate)
        {
            var inst = Instance(completed.Instance);
            var keep = inst.CompletePoll(completed.Kind);
            switch (completed.Kind)
            {
                case PollKind.Counters:
                    List<string>? goneDatabases = null;
                    foreach (var (key, s) in inst.Counters)
                    {
                        if (s.Stamp != keep)
                        {
                            inst.Counters.Remove(key);
                            if (s.ObjectName == "Databases")
                            {
                                (goneDatabases ??= []).Add(s.CounterInstance);
                            }
                        }
                    }

                    // A database whose counters vanished was dropped or taken offline: retire its event series too.
                    foreach (var name in goneDatabases ?? [])
                    {
                        inst.RemoveDatabase(name);
                    }

                    break;
                case PollKind.WaitStats:
                    RemoveStale(inst.WaitStats, keep);
                    break;
                case PollKind.FileStats:
                    RemoveStale(inst.FileStats, keep);
                    break;
            }
        }
    }

    /// <inheritdoc />
    public void OnDatabaseName(in DatabaseNameSample database)
    {
        lock (_gate)
        {
            Instance(database.Instance).LearnName(database.DatabaseId, database.Name);
        }
    }

    /// <inheritdoc />
    public void OnFlushBucket(in FlushBucketSample bucket)
    {
        if (bucket.Count <= 0)
        {
            return;
        }

        TagList tags;
        lock (_gate)
        {
            var inst = Instance(bucket.Instance);
            inst.EventsReceived += bucket.Count;
            var db = inst.Database(bucket.DatabaseId, bucket.DatabaseName);
            db.Touch(bucket.TimestampUtc);
            db.Sizes.Add(bucket.WriteSize, bucket.Count);
            tags = db.Tags;
        }

        // Outside the lock: the SDK is thread-safe, and a large count must not hold up collection or other sources.
        _metrics?.RecordWriteSizes(bucket.WriteSize, bucket.Count, tags);
    }

    /// <inheritdoc />
    public void OnSourceLoss(string instance, LossKind kind, long count)
    {
        if (count <= 0)
        {
            return;
        }

        lock (_gate)
        {
            Instance(instance).Lost[(int)kind] += count;
        }
    }

    /// <summary>A consistent copy of every database's statistics, for reports, the terminal and the advisor.</summary>
    public IReadOnlyList<DatabaseSnapshot> Snapshot()
    {
        lock (_gate)
        {
            return SnapshotBuilder.Build(_instances.Values);
        }
    }

    /// <summary>Per-instance totals (events, losses, restarts).</summary>
    public IReadOnlyList<InstanceSnapshot> SnapshotInstances()
    {
        lock (_gate)
        {
            return _instances.Values.Select(i => new InstanceSnapshot(
                i.Name, i.EventsReceived, i.Lost[(int)LossKind.SequenceGap], i.Lost[(int)LossKind.ChannelFull],
                i.Lost[(int)LossKind.ServerDropped], i.Lost[(int)LossKind.Malformed], i.Restarts,
                i.StartTimeUtc == default ? null : i.StartTimeUtc)).ToList();
        }
    }

    private void ApplyFlush(in LogFlushEvent e)
    {
        var inst = Instance(e.Instance);
        inst.EventsReceived++;
        var db = inst.Database(e.DatabaseId, e.DatabaseName);
        db.Touch(e.TimestampUtc);
        if (e.Duration is { } d)
        {
            var seconds = d.TotalSeconds;
            db.FlushDurations.Add(seconds);
            _metrics?.FlushDuration.Record(seconds, db.Tags);
        }
        else
        {
            db.Sizes.Add(e.WriteSize);
            _metrics?.FlushWriteSize.Record(e.WriteSize, db.Tags);
        }
    }

    private void ApplyWait(in WaitEvent e)
    {
        var inst = Instance(e.Instance);
        inst.EventsReceived++;
        var db = inst.Database(e.DatabaseId, e.DatabaseName);
        db.Touch(e.TimestampUtc);
        if (!db.Waits.TryGetValue(e.WaitType, out var w))
        {
            w = new WaitTypeEvents(e.WaitType, db.WaitTags(e.WaitType));
            db.Waits[e.WaitType] = w;
        }

        var seconds = e.Duration.TotalSeconds;
        w.Durations.Add(seconds);
        _metrics?.WaitDuration.Record(seconds, w.Tags);
    }

    private InstanceState Instance(string name)
    {
        // Sources hand the same string instance with every sample: a reference check avoids hashing per event.
        if (_last is { } last && (ReferenceEquals(last.Name, name) || last.Name == name))
        {
            return last;
        }

        if (!_instances.TryGetValue(name, out var inst))
        {
            inst = new InstanceState(name);
            _instances[name] = inst;
        }

        _last = inst;
        return inst;
    }

    private static void RemoveStale<TKey, TSeries>(Dictionary<TKey, TSeries> series, int keep)
        where TKey : notnull
        where TSeries : PolledSeries
    {
        foreach (var (key, s) in series)
        {
            if (s.Stamp != keep)
            {
                series.Remove(key);
            }
        }
    }

    internal List<Measurement<long>> ObserveLong(CounterExport kind)
    {
        var list = new List<Measurement<long>>();
        lock (_gate)
        {
            foreach (var inst in _instances.Values)
            {
                switch (kind)
                {
                    case CounterExport.InstanceRestarts:
                        list.Add(new(inst.Restarts, inst.Tags));
                        break;
                    case CounterExport.EventsReceived:
                        list.Add(new(inst.EventsReceived, inst.Tags));
                        break;
                    case CounterExport.EventsLost:
                        for (var k = 0; k < inst.Lost.Length; k++)
                        {
                            list.Add(new(inst.Lost[k], LossTags(inst, (LossKind)k)));
                        }

                        break;
                    default:
                        foreach (var s in inst.Counters.Values)
                        {
                            if (s.Export == kind)
                            {
                                list.Add(new((long)Scale(s, kind), s.Tags));
                            }
                        }

                        break;
                }
            }
        }

        return list;
    }

    internal List<Measurement<double>> ObserveDouble(CounterExport kind)
    {
        var list = new List<Measurement<double>>();
        lock (_gate)
        {
            foreach (var inst in _instances.Values)
            {
                if (kind == CounterExport.EventLossRatio)
                {
                    foreach (var s in inst.Counters.Values)
                    {
                        if (LossRatio(s) is { } ratio)
                        {
                            list.Add(new(ratio, s.Tags));
                        }
                    }

                    continue;
                }

                if (kind == CounterExport.InstanceStart)
                {
                    if (inst.StartTimeUtc != default)
                    {
                        list.Add(new((inst.StartTimeUtc - DateTime.UnixEpoch).TotalSeconds, inst.Tags));
                    }

                    continue;
                }

                foreach (var s in inst.Counters.Values)
                {
                    if (s.Export == kind && (CounterCatalog.IsCumulative(s.CounterType) || s.Point.HasValue))
                    {
                        list.Add(new(Scale(s, kind), s.Tags));
                    }
                }
            }
        }

        return list;
    }

    /// <summary>Share of the flushes the server counted that arrived as no event; null until both sides have data.</summary>
    internal static double? LossRatio(CounterSeries s)
    {
        if (s.Export != CounterExport.Flushes || !s.HasEvents || s.EventsAtBaseline < 0 || s.Tracker.Total <= 0)
        {
            return null;
        }

        var received = s.EventsAtLastReading - s.EventsAtBaseline;
        return Math.Clamp(1 - ((double)received / s.Tracker.Total), 0, 1);
    }

    private static double Scale(CounterSeries s, CounterExport kind) => kind switch
    {
        CounterExport.FlushWaitTime => s.Tracker.Total / 1000.0,
        CounterExport.LogUsedRatio => (s.Point ?? 0) / 100.0,
        CounterExport.LogUsedBytes or CounterExport.LogSizeBytes => (s.Point ?? 0) * 1024.0,
        _ when CounterCatalog.IsCumulative(s.CounterType) => s.Tracker.Total,
        _ => s.Point ?? 0,
    };

    internal List<Measurement<long>> ObserveWaitStats(WaitStatsField field)
    {
        var list = new List<Measurement<long>>();
        lock (_gate)
        {
            foreach (var inst in _instances.Values)
            {
                foreach (var s in inst.WaitStats.Values)
                {
                    list.Add(new(s.Tasks.Total, s.Tags));
                }
            }
        }

        return list;
    }

    internal List<Measurement<double>> ObserveWaitStatsSeconds(WaitStatsField field)
    {
        var list = new List<Measurement<double>>();
        lock (_gate)
        {
            foreach (var inst in _instances.Values)
            {
                foreach (var s in inst.WaitStats.Values)
                {
                    var ms = field == WaitStatsField.SignalTime ? s.SignalTimeMs.Total : s.WaitTimeMs.Total;
                    list.Add(new(ms / 1000.0, s.Tags));
                }
            }
        }

        return list;
    }

    internal List<Measurement<long>> ObserveFileStats(FileStatsField field)
    {
        var list = new List<Measurement<long>>();
        lock (_gate)
        {
            foreach (var inst in _instances.Values)
            {
                foreach (var (tags, files) in ByDatabase(inst))
                {
                    long sum = 0;
                    foreach (var f in files)
                    {
                        sum += field == FileStatsField.Writes ? f.Writes.Total : f.Bytes.Total;
                    }

                    list.Add(new(sum, tags));
                }
            }
        }

        return list;
    }

    internal List<Measurement<double>> ObserveFileStallSeconds()
    {
        var list = new List<Measurement<double>>();
        lock (_gate)
        {
            foreach (var inst in _instances.Values)
            {
                foreach (var (tags, files) in ByDatabase(inst))
                {
                    list.Add(new(files.Sum(f => f.StallMs.Total) / 1000.0, tags));
                }
            }
        }

        return list;
    }

    private static IEnumerable<(KeyValuePair<string, object?>[] Tags, List<FileStatsSeries> Files)> ByDatabase(InstanceState inst) =>
        inst.FileStats.Values.GroupBy(f => f.DatabaseName, StringComparer.Ordinal).Select(g => (g.First().Tags, g.ToList()));

    private static KeyValuePair<string, object?>[] LossTags(InstanceState inst, LossKind kind) =>
        [new(MetricAttributes.Instance, inst.Name), new(MetricAttributes.LossKind, LossKindNames.Of(kind))];
}
