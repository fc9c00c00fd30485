using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Core.Samples;

namespace LogFlushMonitor.Core.Aggregation;

/// <summary>
/// The event side: log flushes, waits and losses (histogram mode's buckets are a signal of their own, FlushBucketsSignal). An event whose database id SQL Server cannot
/// assign (<see cref="DatabaseIds"/>) is counted as malformed and skipped, whatever its source: sources that can name
/// the file and line reject it before (NDJSON replay, analyze), this guard keeps the rest flowing for all others.
/// Each event's histogram value is noted under the lock and recorded after it is released: the SDK's Record (about 90 %
/// of the cost of an event, bench/README.md) never holds up a collect or another source.
/// </summary>
public sealed partial class LogFlushAggregator
{
    private const string WriteLog = "WRITELOG";

    /// <summary>The values one call records after the lock; per thread, grown to the largest batch and kept.</summary>
    [ThreadStatic]
    private static PendingRecord[]? t_pending;

    /// <inheritdoc />
    public void OnLogFlush(in LogFlushEvent flush)
    {
        var pending = Pending(1);
        var n = 0;
        lock (_gate)
        {
            ApplyFlush(flush, pending, ref n);
        }

        Record(pending, n);
    }

    /// <inheritdoc />
    public void OnWait(in WaitEvent wait)
    {
        var pending = Pending(1);
        var n = 0;
        lock (_gate)
        {
            ApplyWait(wait, pending, ref n);
        }

        Record(pending, n);
    }

    /// <summary>Applies a batch of events under one lock (the pipeline's consumer, analyze), then records their values.</summary>
    public void Apply(ReadOnlySpan<EventSample> events)
    {
        var pending = Pending(events.Length);
        var n = 0;
        lock (_gate)
        {
            foreach (ref readonly var e in events)
            {
                if (e.Kind == EventSampleKind.Flush)
                {
                    ApplyFlush(e.Flush, pending, ref n);
                }
                else
                {
                    ApplyWait(e.Wait, pending, ref n);
                }
            }
        }

        Record(pending, n);
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
            // Saturates: a recording's (or a server's) absurd count must not wrap the total negative.
            var lost = Instance(instance).Lost;
            lost[(int)kind] = lost[(int)kind] > long.MaxValue - count ? long.MaxValue : lost[(int)kind] + count;
        }
    }

    /// <summary>This thread's buffer for <paramref name="events"/> values, or null when nothing listens to the histograms.</summary>
    private PendingRecord[]? Pending(int events)
    {
        if (_metrics is not { RecordsEvents: true })
        {
            return null;
        }

        var pending = t_pending;
        if (pending is null || pending.Length < events)
        {
            pending = new PendingRecord[Math.Max(events, 64)];
            t_pending = pending;
        }

        return pending;
    }

    /// <summary>Outside the lock: records the values noted, and lets go of their tags.</summary>
    private void Record(PendingRecord[]? pending, int n)
    {
        if (pending is null || _metrics is not { } metrics)
        {
            return;
        }

        for (var i = 0; i < n; i++)
        {
            ref var p = ref pending[i];
            metrics.Record(p.Measure, p.Value, p.Tags);
            p.Tags = null!;
        }
    }

    private void ApplyFlush(in LogFlushEvent e, PendingRecord[]? pending, ref int n)
    {
        var inst = Instance(e.Instance);
        if (!DatabaseIds.IsValid(e.DatabaseId))
        {
            inst.Lost[(int)LossKind.Malformed]++;
            return;
        }

        inst.EventsReceived++;
        var db = inst.Database(e.DatabaseId, e.DatabaseName);
        db.Touch(e.TimestampUtc);
        inst.LastEventTicks = Math.Max(inst.LastEventTicks, e.TimestampUtc.Ticks);
        if (e.Duration is { } d)
        {
            var seconds = d.TotalSeconds;
            db.FlushDurations.Add(seconds);
            if (pending is not null)
            {
                pending[n++] = new PendingRecord(EventMeasure.FlushDuration, seconds, db.Tags);
            }
        }
        else
        {
            if (inst.IsListed(db))
            {
                inst.Agreement.FlushStarts++;
                inst.Agreement.FlushBytes += e.WriteSize;
            }
            else
            {
                inst.UnlistedEvents++; // a hidden database: no counter of its flushes is polled to hold them against
            }

            db.Sizes.Add(e.WriteSize);
            if (pending is not null)
            {
                pending[n++] = new PendingRecord(EventMeasure.FlushWriteSize, e.WriteSize, db.Tags);
            }
        }
    }

    private void ApplyWait(in WaitEvent e, PendingRecord[]? pending, ref int n)
    {
        var inst = Instance(e.Instance);
        if (!DatabaseIds.IsValid(e.DatabaseId))
        {
            inst.Lost[(int)LossKind.Malformed]++;
            return;
        }

        inst.EventsReceived++;
        var db = inst.Database(e.DatabaseId, e.DatabaseName);
        db.Touch(e.TimestampUtc);
        var w = db.Wait(e.WaitType);
        inst.LastEventTicks = Math.Max(inst.LastEventTicks, e.TimestampUtc.Ticks);
        if (w.Part is { } part)
        {
            inst.EventParts[(int)part] = true; // the session collects this wait type: the budget reads it from events
        }

        // A unit the server's own WRITELOG figures showed off by a clean 1,000 is corrected here (InstanceAgreement).
        var seconds = e.Duration.TotalSeconds * inst.Agreement.WaitScale;
        if (e.WaitType == WriteLog)
        {
            if (inst.IsListed(db))
            {
                inst.Agreement.WriteLogMs += seconds * 1000;
            }
            else
            {
                inst.UnlistedEvents++;
            }

            if (e.ClientApp is not null)
            {
                (db.Applications ??= new ApplicationWaits(db)).Add(e.ClientApp, seconds, e.TimestampUtc.Ticks);
            }

            if (e.QueryHash is { } hash)
            {
                (db.Statements ??= new StatementWaits(db)).Add(hash, seconds, e.TimestampUtc.Ticks);
            }
        }

        w.Durations.Add(seconds);
        if (pending is not null)
        {
            pending[n++] = new PendingRecord(EventMeasure.WaitDuration, seconds, w.Tags);
        }
    }

    /// <summary>One event's value to record once the lock is released; the tags are the series' own (immutable) array.</summary>
    private struct PendingRecord(EventMeasure measure, double value, KeyValuePair<string, object?>[] tags)
    {
        public EventMeasure Measure = measure;
        public double Value = value;
        public KeyValuePair<string, object?>[] Tags = tags;
    }
}
