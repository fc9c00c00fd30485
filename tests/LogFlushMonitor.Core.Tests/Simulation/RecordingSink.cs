using LogFlushMonitor.Core.Samples;

namespace LogFlushMonitor.Core.Tests.Simulation;

/// <summary>A loss report as recorded.</summary>
public sealed record RecordedLoss(string Instance, LossKind Kind, long Count);

/// <summary>Records every sample in delivery order (boxed: a test helper, not a hot path).</summary>
public sealed class RecordingSink : ISampleSink
{
    public List<object> Samples { get; } = [];

    public IEnumerable<LogFlushEvent> FlushStarts => Samples.OfType<LogFlushEvent>().Where(f => !f.IsComplete);

    public IEnumerable<LogFlushEvent> FlushCompletes => Samples.OfType<LogFlushEvent>().Where(f => f.IsComplete);

    public IEnumerable<WaitEvent> Waits => Samples.OfType<WaitEvent>();

    public IEnumerable<CounterSample> Counters => Samples.OfType<CounterSample>();

    public void OnLogFlush(in LogFlushEvent flush) => Samples.Add(flush);

    public void OnWait(in WaitEvent wait) => Samples.Add(wait);

    public void OnCounter(in CounterSample counter) => Samples.Add(counter);

    public void OnWaitStats(in WaitStatsSample waitStats) => Samples.Add(waitStats);

    public void OnFileStats(in FileStatsSample fileStats) => Samples.Add(fileStats);

    public void OnServerStart(in ServerStartSample start) => Samples.Add(start);

    public void OnPollCompleted(in PollCompleted completed) => Samples.Add(completed);

    public void OnSourceLoss(string instance, LossKind kind, long count) => Samples.Add(new RecordedLoss(instance, kind, count));
}

/// <summary>Delivers every sample to several sinks, so one run feeds a recording and an aggregator.</summary>
public sealed class TeeSink(params ISampleSink[] sinks) : ISampleSink
{
    public void OnLogFlush(in LogFlushEvent flush)
    {
        foreach (var s in sinks)
        {
            s.OnLogFlush(flush);
        }
    }

    public void OnWait(in WaitEvent wait)
    {
        foreach (var s in sinks)
        {
            s.OnWait(wait);
        }
    }

    public void OnCounter(in CounterSample counter)
    {
        foreach (var s in sinks)
        {
            s.OnCounter(counter);
        }
    }

    public void OnWaitStats(in WaitStatsSample waitStats)
    {
        foreach (var s in sinks)
        {
            s.OnWaitStats(waitStats);
        }
    }

    public void OnFileStats(in FileStatsSample fileStats)
    {
        foreach (var s in sinks)
        {
            s.OnFileStats(fileStats);
        }
    }

    public void OnServerStart(in ServerStartSample start)
    {
        foreach (var s in sinks)
        {
            s.OnServerStart(start);
        }
    }

    public void OnPollCompleted(in PollCompleted completed)
    {
        foreach (var s in sinks)
        {
            s.OnPollCompleted(completed);
        }
    }

    public void OnSourceLoss(string instance, LossKind kind, long count)
    {
        foreach (var s in sinks)
        {
            s.OnSourceLoss(instance, kind, count);
        }
    }
}
