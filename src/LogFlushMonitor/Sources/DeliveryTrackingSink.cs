using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;
using LogFlushMonitor.Hosting;

namespace LogFlushMonitor.Sources;

/// <summary>
/// Passes a paced source's samples on and reports what it delivers, like the SQL Server source does: readiness once
/// the first sample arrives, and per instance <see cref="SourceHealth"/> success for the stream (events) and the
/// poller (polled rows: each signal says which component its rows show working), so sqlserver.monitor.up and
/// last_success have data on a simulated or replayed stack.
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

    public void OnSourceLoss(string instance, LossKind kind, long count) => inner.OnSourceLoss(instance, kind, count);

    public void OnBatch(SignalBatch batch)
    {
        inner.OnBatch(batch);
        if (batch.Signal.Component is { } component)
        {
            Seen(component == SourceComponents.Stream ? _stream : _poller, batch.Instance);
        }
    }

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
