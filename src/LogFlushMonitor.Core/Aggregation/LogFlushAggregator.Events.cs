using System.Diagnostics;
using LogFlushMonitor.Core.Samples;

namespace LogFlushMonitor.Core.Aggregation;

/// <summary>
/// The event side: log flushes, waits, histogram buckets and losses. An event whose database id SQL Server cannot
/// assign (<see cref="DatabaseIds"/>) is counted as malformed and skipped, whatever its source: sources that can name
/// the file and line reject it before (NDJSON replay, analyze), this guard keeps the rest flowing for all others.
/// </summary>
public sealed partial class LogFlushAggregator
{
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

    /// <summary>Applies a batch of events under one lock (the pipeline's consumer, analyze).</summary>
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
            if (!DatabaseIds.IsValid(bucket.DatabaseId))
            {
                inst.Lost[(int)LossKind.Malformed] += bucket.Count;
                return;
            }

            inst.EventsReceived += bucket.Count;
            var db = inst.Database(bucket.DatabaseId, bucket.DatabaseName);
            db.Touch(bucket.TimestampUtc);
            db.Sizes.Add(bucket.WriteSize, bucket.Count);
            tags = db.Tags;
        }

        // Outside the lock: the SDK is thread-safe, and a large count must not hold up collection or other sources.
        _histograms?.RecordWriteSizes(bucket.WriteSize, bucket.Count, tags);
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

    private void ApplyFlush(in LogFlushEvent e)
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
        if (e.Duration is { } d)
        {
            var seconds = d.TotalSeconds;
            db.FlushDurations.Add(seconds);
            _histograms?.FlushDuration.Record(seconds, db.Tags);
        }
        else
        {
            db.Sizes.Add(e.WriteSize);
            _histograms?.FlushWriteSize.Record(e.WriteSize, db.Tags);
        }
    }

    private void ApplyWait(in WaitEvent e)
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
        if (!db.Waits.TryGetValue(e.WaitType, out var w))
        {
            w = new WaitTypeEvents(e.WaitType, db.WaitTags(e.WaitType));
            db.Waits[e.WaitType] = w;
        }

        var seconds = e.Duration.TotalSeconds;
        w.Durations.Add(seconds);
        _histograms?.WaitDuration.Record(seconds, w.Tags);
    }
}
