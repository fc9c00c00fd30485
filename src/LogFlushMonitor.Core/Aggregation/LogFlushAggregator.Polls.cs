using LogFlushMonitor.Core.Samples;

namespace LogFlushMonitor.Core.Aggregation;

/// <summary>The polled side: counters, wait stats, file stats, start times, database names, poll completions.</summary>
public sealed partial class LogFlushAggregator
{
    /// <summary>Whether each counter name seen is selected (<see cref="CounterSelection"/>), so a poll matches each name once.</summary>
    private readonly Dictionary<string, bool> _selected = new(StringComparer.Ordinal);

    /// <inheritdoc />
    public void OnCounter(in CounterSample counter)
    {
        lock (_gate)
        {
            var inst = Instance(counter.Instance);
            var key = (counter.ObjectName, counter.CounterName, counter.CounterInstance);
            if (!inst.Counters.TryGetValue(key, out var s) || s.CounterType != counter.CounterType)
            {
                if (!IsSelected(counter.CounterName))
                {
                    return;
                }

                s = new CounterSeries(inst.Name, counter.ObjectName, counter.CounterName, counter.CounterInstance, counter.CounterType);
                inst.Counters[key] = s;
            }

            s.Stamp = inst.CurrentStamp(PollKind.Counters);
            s.Apply(counter, inst);
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
    public void OnDatabaseName(in DatabaseNameSample database)
    {
        lock (_gate)
        {
            Instance(database.Instance).LearnName(database.DatabaseId, database.Name);
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
                    RetireCounters(inst, keep);
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

    /// <summary>Under the lock: whether a counter is selected, remembered per name (a bounded set: the names a server has).</summary>
    private bool IsSelected(string counterName)
    {
        if (!_selected.TryGetValue(counterName, out var selected))
        {
            selected = _counters.Matches(counterName);
            if (_selected.Count < 4096)
            {
                _selected[counterName] = selected;
            }
        }

        return selected;
    }

    /// <summary>Removes counters the poll did not refresh; a database whose counters vanished was dropped or taken offline.</summary>
    private static void RetireCounters(InstanceState inst, int keep)
    {
        List<string>? goneDatabases = null;
        foreach (var (key, s) in inst.Counters)
        {
            if (s.Stamp != keep)
            {
                inst.Counters.Remove(key);
                if (s.ObjectName == CounterCatalog.DatabasesObject)
                {
                    (goneDatabases ??= []).Add(s.CounterInstance);
                }
            }
        }

        // Its event series go with it.
        foreach (var name in goneDatabases ?? [])
        {
            inst.RemoveDatabase(name);
        }
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
}
