using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Core.Signals;

namespace LogFlushMonitor.Core.Aggregation;

/// <summary>
/// What is in flight now, for the snapshots the terminal and the advisor read: flushes started and not completed (the
/// outstanding-flushes signal's pair table, read now) and sessions waiting on WRITELOG (the waiters signal's last poll).
/// </summary>
public sealed partial class LogFlushAggregator
{
    /// <summary>
    /// Adds what is in flight to each database's snapshot, and a row for a database that has flushes outstanding or
    /// sessions waiting but no row yet (a stall since monitoring began). Called under the lock.
    /// </summary>
    private List<DatabaseSnapshot> AddInFlight(List<DatabaseSnapshot> list)
    {
        foreach (var inst in _instances.Values)
        {
            var outstanding = inst.Find<OutstandingFlushesSignal.State>(SignalRegistry.OutstandingFlushes);
            var waiters = inst.Find<WriteLogWaitersSignal.State>(SignalRegistry.WriteLogWaiters);
            var streamed = outstanding?.ReadOutstanding() == true;
            if (!streamed && !(waiters?.Series.Any() ?? false))
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
                list[i] = WithInFlight(db, outstanding, waiters, id, streamed);
            }

            var stalled = (streamed ? outstanding!.Last.Where(o => o.Count > 0).Select(o => o.DatabaseId) : [])
                .Concat(waiters?.Series.Where(w => w.Sessions > 0).Select(w => w.DatabaseId) ?? []).Distinct().ToList();
            foreach (var id in stalled)
            {
                if (!covered.Add(id))
                {
                    continue;
                }

                list.Add(WithInFlight(new DatabaseSnapshot
                {
                    Instance = inst.Name,
                    DatabaseId = id,
                    Database = inst.Names.GetValueOrDefault(id) ?? waiters?.Find(id)?.DatabaseName ?? MetricAttributes.UnnamedDatabase(id),
                    WriteSizes = new WriteSizeDistribution(),
                    FlushDurations = new LatencyDistribution(),
                    Waits = [],
                }, outstanding, waiters, id, streamed));
            }
        }

        return list;
    }

    private static DatabaseSnapshot WithInFlight(DatabaseSnapshot db, OutstandingFlushesSignal.State? outstanding, WriteLogWaitersSignal.State? waiters, int databaseId, bool streamed)
    {
        var o = streamed ? outstanding!.Of(databaseId) : default;
        var w = databaseId >= 0 ? waiters?.Find(databaseId) : null;
        return db with
        {
            OutstandingFlushes = streamed ? o.Count : null,
            OldestOutstandingFlushSeconds = streamed ? o.OldestAgeSeconds : null,
            WriteLogWaitingSessions = w?.Sessions,
            WriteLogLongestWaitSeconds = w is null ? null : w.LongestWaitMs / 1000.0,
        };
    }
}
