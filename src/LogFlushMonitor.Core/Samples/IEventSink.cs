namespace LogFlushMonitor.Core.Samples;

/// <summary>
/// Where high-rate events go: one call per log flush or wait, thousands a second from a live stream or a file.
/// Implementations allocate nothing per call. Whether a call may wait for room is decided by the writer a source
/// asks the pipeline for (<see cref="Pipeline.SamplePipeline.DroppingWriter"/> never waits,
/// <see cref="Pipeline.SamplePipeline.CreateWaitingWriter"/> holds events for a paced source), never by the source.
/// </summary>
public interface IEventSink : ILossSink
{
    /// <summary>A log_flush_start or log_flush_complete event.</summary>
    void OnLogFlush(in LogFlushEvent flush);

    /// <summary>A completed wait event.</summary>
    void OnWait(in WaitEvent wait);
}
