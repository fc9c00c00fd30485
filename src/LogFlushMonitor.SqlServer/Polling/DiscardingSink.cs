using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;

namespace LogFlushMonitor.SqlServer.Polling;

/// <summary>Takes every sample and keeps nothing: for `check`, which proves statements run; the numbers are `run`'s business.</summary>
internal sealed class DiscardingSink : IPollSink, IEventSink
{
    /// <summary>The one instance (it holds nothing).</summary>
    public static readonly DiscardingSink Instance = new();

    public void OnBatch(SignalBatch batch)
    {
    }

    public void OnSourceLoss(string instance, LossKind kind, long count)
    {
    }

    public void OnLogFlush(in LogFlushEvent flush)
    {
    }

    public void OnWait(in WaitEvent wait)
    {
    }
}
