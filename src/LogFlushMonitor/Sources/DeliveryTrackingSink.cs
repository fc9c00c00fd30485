using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Hosting;

namespace LogFlushMonitor.Sources;

/// <summary>
/// Passes a paced source's samples on and reports what it delivers, like the SQL Server source does: readiness once
/// the first sample arrives, and per instance <see cref="SourceHealth"/> success for the stream (events) and the
/// poller (polled rows), so sqlserver.monitor.up and last_success have data on a simulated or replayed stack.
/// </summary>
/// <remarks>
/// Health is reported at most once a second per instance and component: the per-event cost is a clock read and,
/// when the instance changes, a dictionary lookup; nothing is allocated. Not thread-safe: one per source, like its writer.
/// </remarks>
internal sealed class DeliveryTrackingSink(IPacedSampleSink inner, SourceHealth health, Readiness readiness, string component, TimeProvider time) : IPacedSampleSink
{
    private static readonly TimeSpan ReportEvery = TimeSpan.FromSeconds(1);
    private readonly Tracker _stream = new(SourceComponents.Stream);
    private readonly Tracker _poller = new(SourceComponents.Poller);
    private bool _delivered;

    public void OnLogFlush(in LogFlushEvent flush)
    {
        inner.OnLogFlush(flush);
        Seen(_stream, flush.Instance);
    }

    public void OnWait(in WaitEvent wait)
    {
        inner.OnWait(wait);
        Seen(_stream, wait.Instance);
    }

    public void OnFlushBucket(in FlushBucketSample bucket)
    {
        inner.OnFlushBucket(bucket);
        Seen(_stream, bucket.Instance);
    }

    public void OnSourceLoss(string instance, LossKind kind, long count) => inner.OnSourceLoss(instance, kind, count);

    public void OnCounter(in CounterSample counter)
    {
        inner.OnCounter(counter);
        Seen(_poller, counter.Instance);
    }

    public void OnWaitStats(in WaitStatsSample waitStats)
    {
        inner.OnWaitStats(waitStats);
        Seen(_poller, waitStats.Instance);
    }

    public void OnFileStats(in FileStatsSample fileStats)
    {
        inner.OnFileStats(fileStats);
        Seen(_poller, fileStats.Instance);
    }

    public void OnServerStart(in ServerStartSample start)
    {
        inner.OnServerStart(start);
        Seen(_poller, start.Instance);
    }

    public void OnPollCompleted(in PollCompleted completed)
    {
        inner.OnPollCompleted(completed);
        Seen(_poller, completed.Instance);
    }

    public void OnDatabaseName(in DatabaseNameSample database)
    {
        inner.OnDatabaseName(database);
        Seen(_poller, database.Instance);
    }

    public void OnWriteLogWaiters(in WriteLogWaitersSample waiters)
    {
        inner.OnWriteLogWaiters(waiters);
        Seen(_poller, waiters.Instance);
    }

    public void OnLogWriters(in LogWritersSample writers)
    {
        inner.OnLogWriters(writers);
        Seen(_poller, writers.Instance);
    }

    public void OnHadrReplica(in HadrReplicaSample replica)
    {
        inner.OnHadrReplica(replica);
        Seen(_poller, replica.Instance);
    }

    public void OnOutstandingFlushes(Core.XEvents.OutstandingFlushSource source) => inner.OnOutstandingFlushes(source);

    public ValueTask WaitForRoomAsync(CancellationToken cancellationToken) => inner.WaitForRoomAsync(cancellationToken);

    private void Seen(Tracker tracker, string instance)
    {
        var now = time.GetTimestamp();
        if (ReferenceEquals(instance, tracker.LastInstance) && time.GetElapsedTime(tracker.LastReported, now) < ReportEvery)
        {
            return;
        }

        if (!tracker.Instances.TryGetValue(instance, out var known))
        {
            // A name is cut (and counted) once, when first seen, not on every report.
            known = (MetricAttributes.Limit(instance), long.MinValue);
            health.SetMode(known.ExportName, CollectionModes.Stream);
        }

        tracker.LastInstance = instance;
        if (known.ReportedAt != long.MinValue && time.GetElapsedTime(known.ReportedAt, now) < ReportEvery)
        {
            tracker.LastReported = known.ReportedAt;
            return;
        }

        health.Succeeded(known.ExportName, tracker.Component);
        tracker.Instances[instance] = (known.ExportName, now);
        tracker.LastReported = now;
        if (!_delivered)
        {
            _delivered = true;
            readiness.Delivered(component);
        }
    }

    private sealed class Tracker(string component)
    {
        public string Component { get; } = component;

        public Dictionary<string, (string ExportName, long ReportedAt)> Instances { get; } = new(StringComparer.Ordinal);

        public string? LastInstance { get; set; }

        public long LastReported { get; set; }
    }
}
