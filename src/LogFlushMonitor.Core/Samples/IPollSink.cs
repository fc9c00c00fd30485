using LogFlushMonitor.Core.Signals;

namespace LogFlushMonitor.Core.Samples;

/// <summary>
/// Where polled rows go: a few batches per poll interval from the signals' pollers, the histogram reads and the event
/// readers' outstanding-flush sources. They go straight to the aggregation (no channel) and are never dropped. Every
/// signal's rows travel the same way (<see cref="OnBatch"/>): a sink that passes them on passes any signal's.
/// </summary>
public interface IPollSink : ILossSink
{
    /// <summary>Rows of one signal read from one instance at one time (<see cref="SignalBatch"/>).</summary>
    void OnBatch(SignalBatch batch);
}
