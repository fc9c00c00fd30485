using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.XEvents;

namespace LogFlushMonitor.Core.Aggregation;

/// <summary>
/// What is in flight now, which completed-only figures cannot show (a stalled log device completes nothing): flushes
/// started and not completed (read from the source's pair table at collection time) and sessions waiting on WRITELOG
/// (polled).
/// </summary>
public sealed partial class LogFlushAggregator
{
    /// <summary>The outstanding flushes of the instance being read; used under the lock.</summary>
    private readonly List<OutstandingFlushReading> _outstandingScratch = [];

    /// <inheritdoc />
    public void OnWriteLogWaiters(in WriteLogWaitersSample waiters)
    {
        lock (_gate)
        {
            var inst = Instance(waiters.Instance);
            inst.LearnName(waiters.DatabaseId, waiters.DatabaseName);
            if (!inst.WriteLogWaiters.TryGetValue(waiters.DatabaseId, out var s) || s.DatabaseName != waiters.DatabaseName)
            {
                s = new WriteLogWaitersSeries(inst.Name, waiters.DatabaseId, waiters.DatabaseName);
                inst.WriteLogWaiters[waiters.DatabaseId] = s;
            }

            s.Stamp = inst.CurrentStamp(PollKind.WriteLogWaiters);
            s.Sessions = Math.Max(0, waiters.Sessions);
            s.LongestWaitMs = Math.Max(0, waiters.LongestWaitMs);
        }
    }

    /// <inheritdoc />
    public void OnLogWriters(in LogWritersSample writers)
    {
        lock (_gate)
        {
            var inst = Instance(writers.Instance);
            inst.LearnName(writers.DatabaseId, writers.DatabaseName);
            var key = (writers.DatabaseId, writers.Application);
            if (!inst.LogWriters.TryGetValue(key, out var s) || s.DatabaseName != writers.DatabaseName)
            {
                s = new LogWritersSeries(inst.Name, writers.DatabaseName, writers.Application);
                inst.LogWriters[key] = s;
            }

            s.Stamp = inst.CurrentStamp(PollKind.LogWriters);
            s.Transactions = Math.Max(0, writers.Transactions);
            s.LogBytesUsed = Math.Max(0, writers.LogBytesUsed);
            s.LogBytesReserved = Math.Max(0, writers.LogBytesReserved);
        }
    }

    /// <inheritdoc />
    public void OnOutstandingFlushes(OutstandingFlushSource source)
    {
        ArgumentNullException.ThrowIfNull(source);
        lock (_gate)
        {
            Instance(source.Instance).Outstanding = source;
        }
    }

    /// <summary>
    /// One measurement per database of an in-flight family. Outstanding flushes: every database with event state (0
    /// when nothing is outstanding, so "measured, none" differs from "not measured": an instance in histogram mode has no
    /// such series), plus any database with outstanding flushes whose events all went missing on the way. WRITELOG
    /// waiters: every database the last poll listed.
    /// </summary>
    private void ReadInFlight(InstanceState inst, MetricDefinition family, AggregationFact fact, MeasurementBuffers into)
    {
        switch (fact)
        {
            case AggregationFact.WriteLogWaiting:
                foreach (var s in inst.WriteLogWaiters.Values)
                {
                    Add(into, family, s.Sessions, s.Sessions, s.Tags);
                }

                return;
            case AggregationFact.WriteLogLongestWait:
                foreach (var s in inst.WriteLogWaiters.Values)
                {
                    Add(into, family, s.LongestWaitMs / 1000, s.LongestWaitMs / 1000.0, s.Tags);
                }

                return;
        }

        if (!ReadOutstanding(inst))
        {
            return;
        }

        var age = fact == AggregationFact.OutstandingFlushAge;
        foreach (var db in inst.Databases)
        {
            var o = OutstandingOf(db.DatabaseId);
            Add(into, family, age ? (long)o.OldestAgeSeconds : o.Count, age ? o.OldestAgeSeconds : o.Count, db.Tags);
        }

        foreach (var o in _outstandingScratch)
        {
            if (inst.Find(o.DatabaseId) is null)
            {
                var name = MetricAttributes.Limit(inst.Names.GetValueOrDefault(o.DatabaseId) ?? MetricAttributes.UnnamedDatabase(o.DatabaseId));
                Add(into, family, age ? (long)o.OldestAgeSeconds : o.Count, age ? o.OldestAgeSeconds : o.Count, [new(MetricAttributes.Instance, inst.ExportName), new(MetricAttributes.Database, name)]);
            }
        }
    }

    /// <summary>Reads the instance's outstanding flushes into the scratch list; false when no open source reports them.</summary>
    private bool ReadOutstanding(InstanceState inst)
    {
        _outstandingScratch.Clear();
        if (inst.Outstanding is not { } source)
        {
            return false;
        }

        if (source.IsClosed)
        {
            inst.Outstanding = null; // the source stopped: its series go
            return false;
        }

        source.Read(_outstandingScratch);
        return true;
    }

    private OutstandingFlushReading OutstandingOf(int databaseId)
    {
        foreach (var o in _outstandingScratch)
        {
            if (o.DatabaseId == databaseId)
            {
                return o;
            }
        }

        return new OutstandingFlushReading(databaseId, 0, 0);
    }

    /// <summary>
    /// Adds what is in flight to each database's snapshot, and a row for a database that has flushes outstanding or
    /// sessions waiting but no row yet (a stall since monitoring began). Called under the lock.
    /// </summary>
    private List<DatabaseSnapshot> AddInFlight(List<DatabaseSnapshot> list)
    {
        foreach (var inst in _instances.Values)
        {
            var streamed = ReadOutstanding(inst);
            if (!streamed && inst.WriteLogWaiters.Count == 0)
            {
                continue;
            }

            var covered = new HashSet<int>();
            for (var i = 0; i < list.Count; i++)
            {
                var db = list[i];
                if (db.Instance != inst.Name)
                {
                    continue;
                }

                var id = db.DatabaseId >= 0 ? db.DatabaseId : inst.Names.FirstOrDefault(kv => kv.Value == db.Database, new(-1, "")).Key;
                covered.Add(id);
                list[i] = WithInFlight(db, inst, id, streamed);
            }

            foreach (var id in _outstandingScratch.Where(o => o.Count > 0).Select(o => o.DatabaseId)
                .Concat(inst.WriteLogWaiters.Values.Where(w => w.Sessions > 0).Select(w => w.DatabaseId)).Distinct().ToList())
            {
                if (!covered.Add(id))
                {
                    continue;
                }

                list.Add(WithInFlight(new DatabaseSnapshot
                {
                    Instance = inst.Name,
                    DatabaseId = id,
                    Database = inst.Names.GetValueOrDefault(id) ?? inst.WriteLogWaiters.GetValueOrDefault(id)?.DatabaseName ?? MetricAttributes.UnnamedDatabase(id),
                    WriteSizes = new WriteSizeDistribution(),
                    FlushDurations = new LatencyDistribution(),
                    Waits = [],
                }, inst, id, streamed));
            }
        }

        return list;
    }

    private DatabaseSnapshot WithInFlight(DatabaseSnapshot db, InstanceState inst, int databaseId, bool streamed)
    {
        var o = OutstandingOf(databaseId);
        var w = databaseId >= 0 ? inst.WriteLogWaiters.GetValueOrDefault(databaseId) : null;
        return db with
        {
            OutstandingFlushes = streamed ? o.Count : null,
            OldestOutstandingFlushSeconds = streamed ? o.OldestAgeSeconds : null,
            WriteLogWaitingSessions = w?.Sessions,
            WriteLogLongestWaitSeconds = w is null ? null : w.LongestWaitMs / 1000.0,
        };
    }
}
