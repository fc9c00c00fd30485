using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;

namespace LogFlushMonitor.Core.XEvents;

/// <summary>
/// Passes a paced source's samples on (the simulator, a replayed recording) and pairs its log_flush_start and
/// log_flush_complete events per instance in a <see cref="FlushPairTable"/> on the way, before anything reaches the
/// pipeline: these sources report flushes that started and did not complete the way a live stream does, through one
/// <see cref="OutstandingFlushSource"/> per instance sent to the inner sink (a row of
/// <see cref="SignalRegistry.OutstandingFlushes"/>) when the instance first shows up.
/// </summary>
/// <remarks>
/// <para>A database's starts are paired once one of its completes has been seen: a source may not collect completes
/// (an event session without log_flush_complete, the simulator's databases without them), and a start nothing can
/// complete is not an outstanding flush.</para>
/// <para>An instance's clock is the newest timestamp among its samples (virtual or recorded time, polls included, so it
/// keeps moving while nothing completes, every signal's batch included); its table's starts age on it. A new <c>sqlserver_start_time</c> (a restart)
/// retires what was outstanding: those flushes will never complete, and the restart is not a stall.</para>
/// <para>Not thread-safe, like the writer it wraps: one per source. The per-event cost is the table's (nothing is
/// allocated once an instance is known).</para>
/// </remarks>
public sealed class OutstandingFlushTracker(ISampleSink inner) : IPacedSampleSink
{
    private readonly Dictionary<string, Tracked> _instances = new(StringComparer.Ordinal);
    private Tracked? _last;

    /// <summary>The pair table of <paramref name="instance"/>, once it has shown up.</summary>
    public FlushPairTable? Table(string instance) => _instances.GetValueOrDefault(instance)?.Pairs;

    /// <inheritdoc />
    public void OnLogFlush(in LogFlushEvent flush)
    {
        var t = Of(flush.Instance);
        t.Saw(flush.TimestampUtc);
        // A recording without log_block_id (an optional field) cannot pair: its starts are not outstanding flushes.
        if (flush.LogBlockId != 0 && DatabaseIds.IsValid(flush.DatabaseId))
        {
            if (flush.IsComplete)
            {
                t.CompletesSeen(flush.DatabaseId);
                t.Pairs.TryComplete(flush.DatabaseId, flush.LogBlockId, flush.TimestampUtc.Ticks, out _);
            }
            else if (t.HasCompletes(flush.DatabaseId))
            {
                t.Pairs.Start(flush.DatabaseId, flush.LogBlockId, flush.TimestampUtc.Ticks);
            }
        }

        inner.OnLogFlush(flush);
    }

    /// <inheritdoc />
    public void OnWait(in WaitEvent wait)
    {
        Of(wait.Instance).Saw(wait.TimestampUtc);
        inner.OnWait(wait);
    }

    /// <inheritdoc />
    public void OnSourceLoss(string instance, LossKind kind, long count) => inner.OnSourceLoss(instance, kind, count);

    /// <inheritdoc />
    public void OnBatch(SignalBatch batch)
    {
        ArgumentNullException.ThrowIfNull(batch);
        var t = Of(batch.Instance);
        t.Saw(batch.TimestampUtc);
        if (batch is SignalBatch<ServerStartRow> start)
        {
            foreach (var row in start.Rows)
            {
                if (t.StartTimeUtc != default && t.StartTimeUtc != row.StartTimeUtc)
                {
                    t.Pairs.RetireAll();
                }

                t.StartTimeUtc = row.StartTimeUtc;
            }
        }

        inner.OnBatch(batch);
    }

    /// <inheritdoc />
    public ValueTask WaitForRoomAsync(CancellationToken cancellationToken) =>
        inner is IPacedSampleSink paced ? paced.WaitForRoomAsync(cancellationToken) : ValueTask.CompletedTask;

    private Tracked Of(string instance)
    {
        // Sources hand the same string instance with every sample: a reference check avoids hashing per event.
        if (_last is { } last && (ReferenceEquals(last.Name, instance) || last.Name == instance))
        {
            return last;
        }

        if (!_instances.TryGetValue(instance, out var t))
        {
            t = Add(instance);
        }

        _last = t;
        return t;
    }

    // Apart from Of: a lambda capturing a local there would allocate its closure on every call, not only the first.
    private Tracked Add(string instance)
    {
        var t = new Tracked(instance);
        _instances[instance] = t;
        var source = new OutstandingFlushSource(instance, () => t.Pairs, t.Now);
        inner.OnBatch(SignalRegistry.OutstandingFlushes.Row(instance, default, source));
        return t;
    }

    private sealed class Tracked(string name)
    {
        private long _nowTicks;
        private bool[] _completes = new bool[64];

        public string Name { get; } = name;

        public FlushPairTable Pairs { get; } = new(concurrentReaders: true);

        public DateTime StartTimeUtc { get; set; }

        public void Saw(DateTime utc)
        {
            if (utc.Ticks > _nowTicks)
            {
                Volatile.Write(ref _nowTicks, utc.Ticks);
            }
        }

        public DateTime Now() => new(Volatile.Read(ref _nowTicks), DateTimeKind.Utc);

        public bool HasCompletes(int databaseId) => databaseId < _completes.Length && _completes[databaseId];

        public void CompletesSeen(int databaseId)
        {
            if (databaseId >= _completes.Length)
            {
                // Grown when a larger database_id appears, not per event.
                Array.Resize(ref _completes, Math.Max(databaseId + 1, Math.Min(_completes.Length * 2, DatabaseIds.Max + 1)));
            }

            _completes[databaseId] = true;
        }
    }
}
