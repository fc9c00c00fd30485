namespace LogFlushMonitor.Core.Samples;

/// <summary>
/// Where a source reports events it knows it lost. Both kinds of source detect losses: event readers (an
/// event_sequence gap, a malformed buffer or line, a full channel) and one poller (the server's own count of events
/// its session dropped). So both <see cref="IEventSink"/> and <see cref="IPollSink"/> carry it, and a loss report
/// always goes straight to the aggregation: it is one call per gap or poll, never per event, and never dropped.
/// </summary>
public interface ILossSink
{
    /// <summary><paramref name="count"/> events of <paramref name="instance"/> were lost for <paramref name="kind"/>.</summary>
    void OnSourceLoss(string instance, LossKind kind, long count);
}
