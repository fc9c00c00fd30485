using LogFlushMonitor.Core.Samples;

namespace LogFlushMonitor.Testing;

/// <summary>A loss report as recorded.</summary>
public sealed record RecordedLoss(string Instance, LossKind Kind, long Count);

/// <summary>
/// The one test sink: keeps every sample in arrival order (boxed: a test helper, not a hot path), counts events,
/// and optionally passes everything on to <c>next</c>. Thread-safe. With <see cref="Keep"/> false it only counts,
/// allocating nothing, for allocation tests. As a paced sink it never holds anything back.
/// </summary>
public sealed class RecordingSink(ISampleSink? next = null) : IPacedSampleSink
{
    private readonly Lock _gate = new();
    private readonly List<object> _all = [];
    private readonly List<Core.XEvents.OutstandingFlushSource> _sources = [];
    private long _events;
    private long _flushes;

    /// <summary>Whether samples are kept (true) or only counted (false).</summary>
    public bool Keep { get; init; } = true;

    /// <summary>Every sample kept, in arrival order (a snapshot).</summary>
    public IReadOnlyList<object> All
    {
        get
        {
            lock (_gate)
            {
                return [.. _all];
            }
        }
    }

    /// <summary>The outstanding-flush sources handed on (not samples: kept apart from <see cref="All"/>).</summary>
    public IReadOnlyList<Core.XEvents.OutstandingFlushSource> OutstandingSources
    {
        get
        {
            lock (_gate)
            {
                return [.. _sources];
            }
        }
    }

    /// <summary>Log flush and wait events delivered (counted even when not kept).</summary>
    public long Events => Interlocked.Read(ref _events);

    /// <summary>log_flush_start events plus the flushes counted in histogram buckets (counted even when not kept).</summary>
    public long Flushes => Interlocked.Read(ref _flushes);

    /// <summary>log_flush_start events kept.</summary>
    public IReadOnlyList<LogFlushEvent> FlushStarts => [.. Of<LogFlushEvent>().Where(f => !f.IsComplete)];

    /// <summary>log_flush_complete events kept.</summary>
    public IReadOnlyList<LogFlushEvent> FlushCompletes => [.. Of<LogFlushEvent>().Where(f => f.IsComplete)];

    /// <summary>Wait events kept.</summary>
    public IReadOnlyList<WaitEvent> Waits => Of<WaitEvent>();

    /// <summary>Counter rows kept.</summary>
    public IReadOnlyList<CounterSample> Counters => Of<CounterSample>();

    /// <summary>Server-dropped losses, summed.</summary>
    public long ServerDropped => Of<RecordedLoss>().Where(l => l.Kind == LossKind.ServerDropped).Sum(l => l.Count);

    /// <summary>Kept samples of one type, in order.</summary>
    public IReadOnlyList<T> Of<T>()
    {
        lock (_gate)
        {
            return [.. _all.OfType<T>()];
        }
    }

    /// <inheritdoc />
    public void OnLogFlush(in LogFlushEvent flush)
    {
        Interlocked.Increment(ref _events);
        if (!flush.IsComplete)
        {
            Interlocked.Increment(ref _flushes);
        }

        Add(flush);
        next?.OnLogFlush(flush);
    }

    /// <inheritdoc />
    public void OnWait(in WaitEvent wait)
    {
        Interlocked.Increment(ref _events);
        Add(wait);
        next?.OnWait(wait);
    }

    /// <inheritdoc />
    public void OnSourceLoss(string instance, LossKind kind, long count)
    {
        Add(new RecordedLoss(instance, kind, count));
        next?.OnSourceLoss(instance, kind, count);
    }

    /// <inheritdoc />
    public void OnCounter(in CounterSample counter)
    {
        Add(counter);
        next?.OnCounter(counter);
    }

    /// <inheritdoc />
    public void OnWaitStats(in WaitStatsSample waitStats)
    {
        Add(waitStats);
        next?.OnWaitStats(waitStats);
    }

    /// <inheritdoc />
    public void OnFileStats(in FileStatsSample fileStats)
    {
        Add(fileStats);
        next?.OnFileStats(fileStats);
    }

    /// <inheritdoc />
    public void OnServerStart(in ServerStartSample start)
    {
        Add(start);
        next?.OnServerStart(start);
    }

    /// <inheritdoc />
    public void OnPollCompleted(in PollCompleted completed)
    {
        Add(completed);
        next?.OnPollCompleted(completed);
    }

    /// <inheritdoc />
    public void OnDatabaseName(in DatabaseNameSample database)
    {
        Add(database);
        next?.OnDatabaseName(database);
    }

    /// <inheritdoc />
    public void OnFlushBucket(in FlushBucketSample bucket)
    {
        Interlocked.Add(ref _flushes, bucket.Count);
        Add(bucket);
        next?.OnFlushBucket(bucket);
    }

    /// <inheritdoc />
    public void OnWriteLogWaiters(in WriteLogWaitersSample waiters)
    {
        Add(waiters);
        next?.OnWriteLogWaiters(waiters);
    }

    /// <inheritdoc />
    public void OnLogWriters(in LogWritersSample writers)
    {
        Add(writers);
        next?.OnLogWriters(writers);
    }

    /// <inheritdoc />
    public void OnHadrReplica(in HadrReplicaSample replica)
    {
        Add(replica);
        next?.OnHadrReplica(replica);
    }

    /// <inheritdoc />
    public void OnOutstandingFlushes(Core.XEvents.OutstandingFlushSource source)
    {
        lock (_gate)
        {
            _sources.Add(source);
        }

        next?.OnOutstandingFlushes(source);
    }

    /// <inheritdoc />
    public ValueTask WaitForRoomAsync(CancellationToken cancellationToken) =>
        cancellationToken.IsCancellationRequested ? ValueTask.FromCanceled(cancellationToken) : ValueTask.CompletedTask;

    private void Add<T>(in T sample)
        where T : notnull
    {
        if (!Keep)
        {
            return; // before boxing: counting alone allocates nothing
        }

        lock (_gate)
        {
            _all.Add(sample);
        }
    }
}
