using LogFlushMonitor.Core.Samples;

namespace LogFlushMonitor.SqlServer.Polling;

/// <summary>Takes every sample and keeps nothing: for `check`, which proves statements run; the numbers are `run`'s business.</summary>
internal sealed class DiscardingSink : IPollSink, IEventSink
{
    /// <summary>The one instance (it holds nothing).</summary>
    public static readonly DiscardingSink Instance = new();

    public void OnCounter(in CounterSample counter)
    {
    }

    public void OnWaitStats(in WaitStatsSample waitStats)
    {
    }

    public void OnFileStats(in FileStatsSample fileStats)
    {
    }

    public void OnServerStart(in ServerStartSample start)
    {
    }

    public void OnPollCompleted(in PollCompleted completed)
    {
    }

    public void OnDatabaseName(in DatabaseNameSample database)
    {
    }

    public void OnFlushBucket(in FlushBucketSample bucket)
    {
    }

    public void OnWriteLogWaiters(in WriteLogWaitersSample waiters)
    {
    }

    public void OnLogWriters(in LogWritersSample writers)
    {
    }

    public void OnHadrReplica(in HadrReplicaSample replica)
    {
    }

    public void OnOutstandingFlushes(Core.XEvents.OutstandingFlushSource source)
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
