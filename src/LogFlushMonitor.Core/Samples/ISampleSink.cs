namespace LogFlushMonitor.Core.Samples;

/// <summary>
/// A sink for sources that produce both events and polled rows (the simulator, NDJSON replay) and for what takes
/// everything (the aggregation, an NDJSON recording). Sources that produce one kind take the narrower interface.
/// </summary>
public interface ISampleSink : IEventSink, IPollSink
{
}

/// <summary>
/// The sink a paced source writes to (simulation, replay): it never drops, and never blocks the calling thread.
/// When the pipeline is behind it holds what the source delivers, in order, and the source awaits
/// <see cref="WaitForRoomAsync"/> at its next pause (after a simulation step, after a replayed line).
/// </summary>
public interface IPacedSampleSink : ISampleSink
{
    /// <summary>Completes once everything held so far is in the pipeline (at once when nothing is held).</summary>
    /// <exception cref="OperationCanceledException">When <paramref name="cancellationToken"/> is cancelled first.</exception>
    ValueTask WaitForRoomAsync(CancellationToken cancellationToken);
}
