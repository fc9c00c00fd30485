using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;

namespace LogFlushMonitor.Testing;

/// <summary>A loss report as recorded.</summary>
public sealed record RecordedLoss(string Instance, LossKind Kind, long Count);

/// <summary>One row of a signal's batch as recorded, with the instance and time of the batch.</summary>
/// <typeparam name="TRow">The signal's row.</typeparam>
public sealed record Polled<TRow>(string Instance, DateTime TimestampUtc, TRow Row);

/// <summary>The end of a poll of a signal, as recorded.</summary>
public sealed record PollEnded(Signal Signal, string Instance, DateTime TimestampUtc);

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
    private readonly List<SignalBatch> _batches = [];
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
    public IReadOnlyList<Polled<CounterRow>> Counters => Rows<CounterRow>();

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

    /// <summary>
    /// Keeps the batch, and each of its rows as a <see cref="Polled{TRow}"/> (in <see cref="All"/>, for <see cref="Of{T}"/>
    /// and <see cref="Rows{TRow}"/>), and the end of a poll as a <see cref="PollEnded"/>. An outstanding-flush source is kept
    /// in <see cref="OutstandingSources"/>.
    /// </summary>
    public void OnBatch(SignalBatch batch)
    {
        ArgumentNullException.ThrowIfNull(batch);
        if (batch is SignalBatch<FlushBucketRow> buckets)
        {
            foreach (var b in buckets.Rows)
            {
                Interlocked.Add(ref _flushes, b.Count);
            }
        }

        if (batch is SignalBatch<Core.XEvents.OutstandingFlushSource> sources)
        {
            lock (_gate)
            {
                _sources.AddRange(sources.Rows);
            }
        }
        else if (Keep)
        {
            lock (_gate)
            {
                _batches.Add(batch);
                _all.AddRange(RowsOf(batch));
                if (batch.EndsPoll)
                {
                    _all.Add(new PollEnded(batch.Signal, batch.Instance, batch.TimestampUtc));
                }
            }
        }

        next?.OnBatch(batch);
    }

    /// <summary>Every batch kept, in arrival order (a snapshot; outstanding-flush sources apart).</summary>
    public IReadOnlyList<SignalBatch> Batches
    {
        get
        {
            lock (_gate)
            {
                return [.. _batches];
            }
        }
    }

    /// <summary>The rows of <typeparamref name="TRow"/> kept, with the instance and time of their batch, in order.</summary>
    public IReadOnlyList<Polled<TRow>> Rows<TRow>() => Of<Polled<TRow>>();

    /// <summary>The rows of <typeparamref name="TRow"/> kept, without their batch's instance and time, in order.</summary>
    public IReadOnlyList<TRow> Values<TRow>() => [.. Of<Polled<TRow>>().Select(p => p.Row)];

    /// <summary>The ends of polls kept of <paramref name="signal"/>, in order.</summary>
    public IReadOnlyList<PollEnded> PollEnds(Signal signal) => [.. Of<PollEnded>().Where(p => p.Signal == signal)];

    /// <summary>Each row of any signal's batch as a <see cref="Polled{TRow}"/>: no signal is named here (a new one needs no line).</summary>
    private static List<object> RowsOf(SignalBatch batch)
    {
        var type = batch.GetType();
        if (!type.IsGenericType || type.GetGenericTypeDefinition() != typeof(SignalBatch<>))
        {
            return [];
        }

        var each = typeof(RecordingSink).GetMethod(nameof(Each), System.Reflection.BindingFlags.NonPublic | System.Reflection.BindingFlags.Static)!
            .MakeGenericMethod(type.GetGenericArguments()[0]);
        return (List<object>)each.Invoke(null, [batch])!;
    }

    private static List<object> Each<TRow>(SignalBatch<TRow> batch)
    {
        var rows = new List<object>(batch.Count);
        foreach (var row in batch.Rows)
        {
            rows.Add(new Polled<TRow>(batch.Instance, batch.TimestampUtc, row));
        }

        return rows;
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
