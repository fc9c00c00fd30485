using System.Collections.Concurrent;
using LogFlushMonitor.Core.Samples;

namespace LogFlushMonitor.SqlServer.Tests.Scripted;

/// <summary>Keeps every sample in arrival order (thread-safe), optionally passing them on.</summary>
public sealed class RecordingSink(ISampleSink? next = null) : ISampleSink
{
    private readonly ConcurrentQueue<object> _all = new();

    /// <summary>Every sample, in order (a snapshot).</summary>
    public IReadOnlyList<object> All => [.. _all];

    /// <summary>Samples of one type.</summary>
    public IReadOnlyList<T> Of<T>() => _all.OfType<T>().ToList();

    /// <summary>Server-dropped losses delivered, summed.</summary>
    public long ServerDropped => _all.OfType<Loss>().Where(l => l.Kind == LossKind.ServerDropped).Sum(l => l.Count);

    public void OnLogFlush(in LogFlushEvent flush)
    {
        var f = flush;
        Add(f, s => s.OnLogFlush(f));
    }

    public void OnWait(in WaitEvent wait)
    {
        var w = wait;
        Add(w, s => s.OnWait(w));
    }

    public void OnCounter(in CounterSample counter)
    {
        var c = counter;
        Add(c, s => s.OnCounter(c));
    }

    public void OnWaitStats(in WaitStatsSample waitStats)
    {
        var w = waitStats;
        Add(w, s => s.OnWaitStats(w));
    }

    public void OnFileStats(in FileStatsSample fileStats)
    {
        var f = fileStats;
        Add(f, s => s.OnFileStats(f));
    }

    public void OnServerStart(in ServerStartSample start)
    {
        var st = start;
        Add(st, s => s.OnServerStart(st));
    }

    public void OnPollCompleted(in PollCompleted completed)
    {
        var c = completed;
        Add(c, s => s.OnPollCompleted(c));
    }

    public void OnDatabaseName(string instance, int databaseId, string name) => next?.OnDatabaseName(instance, databaseId, name);

    public void OnSourceLoss(string instance, LossKind kind, long count) =>
        Add(new Loss(instance, kind, count), s => s.OnSourceLoss(instance, kind, count));

    private void Add(object sample, Action<ISampleSink> forward)
    {
        _all.Enqueue(sample);
        if (next is not null)
        {
            forward(next);
        }
    }

    /// <summary>An OnSourceLoss call.</summary>
    public sealed record Loss(string Instance, LossKind Kind, long Count);
}
