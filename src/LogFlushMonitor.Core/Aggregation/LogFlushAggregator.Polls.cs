using LogFlushMonitor.Core.Samples;

namespace LogFlushMonitor.Core.Aggregation;

/// <summary>The polled side: counters, wait stats, file stats, start times, database names, poll completions.</summary>
public sealed partial class LogFlushAggregator
{
    /// <summary>Whether each counter name seen is selected (<see cref="CounterSelection"/>), so a poll matches each name once.</summary>
    private readonly Dictionary<string, bool> _selected = new(StringComparer.Ordinal);

    /// <summary>What the series of each counter share, by object, counter, type and whether it is <c>_Total</c>.</summary>
    private readonly Dictionary<(string ObjectName, string CounterName, int CounterType, bool Total), CounterKind> _kinds = [];

    /// <inheritdoc />
    public void OnCounter(in CounterSample counter)
    {
        RejectedReading? rejected = null;
        lock (_gate)
        {
            var inst = Instance(counter.Instance);
            var key = (counter.ObjectName, counter.CounterName, counter.CounterInstance);
            var created = false;
            if (!inst.Counters.TryGetValue(key, out var s) || s.CounterType != counter.CounterType)
            {
                if (!IsSelected(counter.CounterName))
                {
                    return;
                }

                s = inst.NewCounter(Kind(counter), counter.CounterInstance);
                inst.AddCounter(key, s);
                created = true;
            }

            // Refreshed even when the reading is refused: one impossible value does not retire the database's series.
            s.Stamp = inst.CurrentStamp(PollKind.Counters);
            if (s.Apply(counter, inst) is var verdict and not ReadingVerdict.Accepted)
            {
                if (created)
                {
                    inst.RemoveCounter(key);
                }

                rejected = Reject(inst, new RejectedReading(inst.Name, "performance counter", counter.CounterName, counter.CounterInstance, counter.Value, verdict));
            }
        }

        Report(rejected);
    }

    /// <inheritdoc />
    public void OnWaitStats(in WaitStatsSample waitStats)
    {
        RejectedReading? rejected = null;
        lock (_gate)
        {
            var inst = Instance(waitStats.Instance);
            if (!inst.WaitStats.TryGetValue(waitStats.WaitType, out var s))
            {
                s = new WaitStatsSeries(inst.Name, waitStats.WaitType);
                inst.WaitStats[waitStats.WaitType] = s;
            }

            s.Stamp = inst.CurrentStamp(PollKind.WaitStats);
            var t = waitStats.TimestampUtc;
            s.Tasks.Update(waitStats.WaitingTasks, t, inst.Epoch, inst.StartTimeUtc);
            s.WaitTimeMs.Update(waitStats.WaitTimeMs, t, inst.Epoch, inst.StartTimeUtc);
            s.SignalTimeMs.Update(waitStats.SignalWaitTimeMs, t, inst.Epoch, inst.StartTimeUtc);
            rejected = Check(inst, "wait stats", waitStats.WaitType, ("waiting_tasks_count", waitStats.WaitingTasks, s.Tasks.LastVerdict),
                ("wait_time_ms", waitStats.WaitTimeMs, s.WaitTimeMs.LastVerdict), ("signal_wait_time_ms", waitStats.SignalWaitTimeMs, s.SignalTimeMs.LastVerdict));
            if (waitStats.MaxWaitTimeMs >= 0)
            {
                s.MaxWaitTimeMs = waitStats.MaxWaitTimeMs;
            }
        }

        Report(rejected);
    }

    /// <inheritdoc />
    public void OnFileStats(in FileStatsSample fileStats)
    {
        RejectedReading? rejected = null;
        lock (_gate)
        {
            var inst = Instance(fileStats.Instance);
            inst.LearnName(fileStats.DatabaseId, fileStats.DatabaseName);
            var key = (fileStats.DatabaseId, fileStats.FileId);
            if (!inst.FileStats.TryGetValue(key, out var s) || s.DatabaseName != fileStats.DatabaseName)
            {
                s = inst.NewFile(fileStats.DatabaseId, fileStats.DatabaseName);
                inst.AddFile(key, s);
            }

            s.Stamp = inst.CurrentStamp(PollKind.FileStats);
            var t = fileStats.TimestampUtc;
            s.Writes.Update(fileStats.NumWrites, t, inst.Epoch, inst.StartTimeUtc);
            s.Bytes.Update(fileStats.BytesWritten, t, inst.Epoch, inst.StartTimeUtc);
            s.StallMs.Update(fileStats.IoStallWriteMs, t, inst.Epoch, inst.StartTimeUtc);
            rejected = Check(inst, "file stats", fileStats.DatabaseName, ("num_of_writes", fileStats.NumWrites, s.Writes.LastVerdict),
                ("num_of_bytes_written", fileStats.BytesWritten, s.Bytes.LastVerdict), ("io_stall_write_ms", fileStats.IoStallWriteMs, s.StallMs.LastVerdict));
        }

        Report(rejected);
    }

    /// <summary>Under the lock: counts each refused column of a row as malformed and returns the first to report.</summary>
    private static RejectedReading? Check(InstanceState inst, string source, string subject, params ReadOnlySpan<(string Column, long Value, ReadingVerdict Verdict)> columns)
    {
        RejectedReading? first = null;
        foreach (var (column, value, verdict) in columns)
        {
            if (verdict != ReadingVerdict.Accepted)
            {
                var r = Reject(inst, new RejectedReading(inst.Name, source, column, subject, value, verdict));
                first ??= r;
            }
        }

        return first;
    }

    /// <summary>Under the lock: counts a refused reading as malformed input of its instance.</summary>
    private static RejectedReading Reject(InstanceState inst, RejectedReading reading)
    {
        inst.Lost[(int)LossKind.Malformed]++;
        return reading;
    }

    /// <summary>Outside the lock: hands a refused reading to the host.</summary>
    private void Report(RejectedReading? rejected)
    {
        if (rejected is { } r)
        {
            _rejected?.Invoke(r);
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
        List<AgreementReport>? reports = null;
        lock (_gate)
        {
            var inst = Instance(completed.Instance);
            var keep = inst.CompletePoll(completed.Kind);
            switch (completed.Kind)
            {
                case PollKind.Counters:
                    inst.ForgetNameIndex();
                    RetireCounters(inst, keep);
                    CrossCheckCounters(inst, keep, ref reports);
                    break;
                case PollKind.WaitStats:
                    RemoveStale(inst.WaitStats, keep);
                    // Only an instance whose events flow has two sides to compare.
                    if (inst.EventsReceived > 0 && inst.WaitStats.TryGetValue("WRITELOG", out var writeLog) && writeLog.Stamp == keep)
                    {
                        inst.Agreement.OnWaitStats(writeLog.WaitTimeMs.LastIncrease, ref reports);
                    }

                    break;
                case PollKind.FileStats:
                    RetireFiles(inst, keep);
                    break;
                case PollKind.WriteLogWaiters:
                    RemoveStale(inst.WriteLogWaiters, keep);
                    break;
                case PollKind.LogWriters:
                    RemoveStale(inst.LogWriters, keep);
                    break;
                case PollKind.HadrReplicas:
                    RemoveStale(inst.Replicas, keep);
                    break;
            }
        }

        foreach (var r in reports ?? [])
        {
            _agreement?.Invoke(r);
        }
    }

    /// <summary>
    /// Under the lock: the watched databases' increases of Log Flushes/sec, Log Bytes Flushed/sec and Log Flush Wait
    /// Time in this poll (never <c>_Total</c>, which includes internal databases no session watches), against the events.
    /// </summary>
    private static void CrossCheckCounters(InstanceState inst, int keep, ref List<AgreementReport>? reports)
    {
        if (inst.EventsReceived == 0)
        {
            return; // no event source (or none yet): nothing to compare the counters with
        }

        long flushes = 0, bytes = 0, waitMs = 0;
        foreach (var s in inst.Counters.Values)
        {
            if (s.Stamp != keep || s.IsInstanceTotal || s.ObjectName != DatabasesCounters.Object)
            {
                continue;
            }

            switch (s.CounterName)
            {
                case DatabasesCounters.LogFlushes:
                    flushes += s.Tracker.LastIncrease;
                    break;
                case DatabasesCounters.LogBytesFlushed:
                    bytes += s.Tracker.LastIncrease;
                    break;
                case DatabasesCounters.LogFlushWaitTime:
                    waitMs += s.Tracker.LastIncrease;
                    break;
            }
        }

        long lost = 0;
        for (var k = 0; k < inst.Lost.Length; k++)
        {
            lost += k == (int)LossKind.Malformed ? 0 : inst.Lost[k];
        }

        inst.Agreement.OnCounters(flushes, bytes, waitMs, lost, ref reports);
    }

    /// <summary>Under the lock: what every series of the sample's counter shares, made once per counter (a bounded set, as names are).</summary>
    private CounterKind Kind(in CounterSample counter)
    {
        var key = (counter.ObjectName, counter.CounterName, counter.CounterType, Total: counter.CounterInstance == DatabasesCounters.TotalInstance);
        if (!_kinds.TryGetValue(key, out var kind))
        {
            kind = new CounterKind(key.ObjectName, key.CounterName, key.CounterType, key.Total);
            if (_kinds.Count < 4096)
            {
                _kinds[key] = kind;
            }
        }

        return kind;
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
                inst.RemoveCounter(key);
                if (s.ObjectName == DatabasesCounters.Object)
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

    /// <summary>Removes log files the poll did not list.</summary>
    private static void RetireFiles(InstanceState inst, int keep)
    {
        foreach (var (key, s) in inst.FileStats)
        {
            if (s.Stamp != keep)
            {
                inst.RemoveFile(key);
            }
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
