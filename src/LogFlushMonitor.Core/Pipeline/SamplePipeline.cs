using System.Threading.Channels;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Samples;

namespace LogFlushMonitor.Core.Pipeline;

/// <summary>
/// The seam between sources and the aggregation. High-rate events go through one bounded channel; polled rows and
/// loss reports are few and go straight to the aggregation (<see cref="Polls"/>). What happens to an event when the
/// channel is full is the choice of the source, made by the writer it asks for: the live stream takes the
/// <see cref="DroppingWriter"/> (it must never wait: the server disconnects a reader that stalls), a paced source
/// takes a <see cref="CreateWaitingWriter">waiting writer</see> (it never loses an event and waits asynchronously).
/// </summary>
/// <remarks>
/// Any number of source threads may write. Exactly one task runs <see cref="RunAsync"/>, which drains the channel in
/// batches into the aggregation; after <see cref="Complete"/> it drains what is left before returning.
/// </remarks>
public sealed class SamplePipeline
{
    private const int BatchSize = 1024;
    private readonly Channel<EventSample> _channel;
    private readonly ILossSink _losses;
    private readonly Action<ReadOnlySpan<EventSample>> _applyBatch;
    private readonly DrainSignal _drained = new();
    private long _dropped;
    private long _accepted;
    private long _applied;

    /// <summary>Creates a pipeline in front of <paramref name="aggregator"/>.</summary>
    /// <param name="aggregator">The aggregation the consumer feeds.</param>
    /// <param name="capacity">Events the channel holds before writers drop or wait.</param>
    public SamplePipeline(LogFlushAggregator aggregator, int capacity = 65536)
        : this(aggregator, aggregator, aggregator.Apply, capacity)
    {
    }

    internal SamplePipeline(IPollSink polls, ILossSink losses, Action<ReadOnlySpan<EventSample>> applyBatch, int capacity)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(capacity, 1);
        Polls = polls;
        _losses = losses;
        _applyBatch = applyBatch;
        DroppingWriter = new DroppingEventWriter(this);
        _channel = Channel.CreateBounded<EventSample>(new BoundedChannelOptions(capacity)
        {
            SingleReader = true,
            SingleWriter = false,
            FullMode = BoundedChannelFullMode.Wait, // TryWrite returns false when full; WriteAsync waits for room
            AllowSynchronousContinuations = false,
        });
    }

    /// <summary>Polled rows and loss reports: straight to the aggregation, thread-safe, never dropped.</summary>
    public IPollSink Polls { get; }

    /// <summary>
    /// The writer for sources that must never wait (the live stream): when the channel is full the event is dropped
    /// and counted (sqlserver.monitor.events.lost, loss.kind=channel_full). Thread-safe; shared by every such source.
    /// </summary>
    public IEventSink DroppingWriter { get; }

    /// <summary>Events dropped because the channel was full.</summary>
    public long Dropped => Interlocked.Read(ref _dropped);

    /// <summary>Events accepted into the channel.</summary>
    public long Accepted => Interlocked.Read(ref _accepted);

    /// <summary>Events the consumer has applied to the aggregation.</summary>
    public long Applied => Interlocked.Read(ref _applied);

    /// <summary>
    /// A writer for one source that may wait for room (replay, simulation): it never drops. Its calls never block:
    /// when the channel is full it holds events, in order, until the source awaits
    /// <see cref="IPacedSampleSink.WaitForRoomAsync"/>. Polled rows go straight to the aggregation. Not thread-safe:
    /// one writer per source.
    /// </summary>
    public IPacedSampleSink CreateWaitingWriter() => new WaitingSampleWriter(this);

    /// <summary>No more events will come: <see cref="RunAsync"/> drains the channel and returns.</summary>
    public void Complete() => _channel.Writer.TryComplete();

    /// <summary>Consumes the channel until <see cref="Complete"/> (then drains) or cancellation (then stops at once).</summary>
    public async Task RunAsync(CancellationToken cancellationToken)
    {
        var batch = new EventSample[BatchSize];
        var reader = _channel.Reader;
        try
        {
            while (await reader.WaitToReadAsync(cancellationToken).ConfigureAwait(false))
            {
                var n = 0;
                while (n < batch.Length && reader.TryRead(out batch[n]))
                {
                    n++;
                }

                _applyBatch(batch.AsSpan(0, n));
                _drained.Reached(Interlocked.Add(ref _applied, n));
                Array.Clear(batch, 0, n); // release string references held by the batch
            }
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
        }
    }

    /// <summary>
    /// Completes when every event accepted so far has been applied to the aggregation (for tests and orderly stops).
    /// The consumer signals it after each batch: nothing polls.
    /// </summary>
    /// <exception cref="TimeoutException">When the events are not applied within <paramref name="timeout"/>.</exception>
    public async Task WaitForDrainAsync(TimeSpan timeout, TimeProvider? time = null)
    {
        var target = Accepted;
        try
        {
            await _drained.WaitAsync(target, () => Applied).WaitAsync(timeout, time ?? TimeProvider.System).ConfigureAwait(false);
        }
        catch (TimeoutException)
        {
            throw new TimeoutException($"The pipeline still had {target - Applied} events to apply after {timeout}.");
        }
    }

    private bool TryAccept(in EventSample sample)
    {
        if (!_channel.Writer.TryWrite(sample))
        {
            return false;
        }

        Interlocked.Increment(ref _accepted);
        return true;
    }

    /// <summary>Waits for room and writes; false when the pipeline completed first (the event is then dropped and counted).</summary>
    private async ValueTask<bool> AcceptWhenRoomAsync(EventSample sample, CancellationToken cancellationToken)
    {
        try
        {
            await _channel.Writer.WriteAsync(sample, cancellationToken).ConfigureAwait(false);
        }
        catch (ChannelClosedException)
        {
            Drop(sample);
            return false;
        }

        Interlocked.Increment(ref _accepted);
        return true;
    }

    private void Drop(in EventSample sample)
    {
        Interlocked.Increment(ref _dropped);
        _losses.OnSourceLoss(sample.Instance, LossKind.ChannelFull, 1);
    }

    private sealed class DroppingEventWriter(SamplePipeline pipeline) : IEventSink
    {
        public void OnLogFlush(in LogFlushEvent flush) => Write(EventSample.Of(flush));

        public void OnWait(in WaitEvent wait) => Write(EventSample.Of(wait));

        public void OnSourceLoss(string instance, LossKind kind, long count) => pipeline._losses.OnSourceLoss(instance, kind, count);

        private void Write(in EventSample sample)
        {
            if (!pipeline.TryAccept(sample))
            {
                pipeline.Drop(sample);
            }
        }
    }

    /// <summary>Holds events while the channel is full; the source moves them in by awaiting <see cref="WaitForRoomAsync"/>.</summary>
    private sealed class WaitingSampleWriter(SamplePipeline pipeline) : IPacedSampleSink
    {
        private readonly Queue<EventSample> _held = new();

        public void OnLogFlush(in LogFlushEvent flush) => Write(EventSample.Of(flush));

        public void OnWait(in WaitEvent wait) => Write(EventSample.Of(wait));

        public void OnSourceLoss(string instance, LossKind kind, long count) => pipeline._losses.OnSourceLoss(instance, kind, count);

        public void OnBatch(Signals.SignalBatch batch) => pipeline.Polls.OnBatch(batch);

        public ValueTask WaitForRoomAsync(CancellationToken cancellationToken) =>
            _held.Count == 0 ? ValueTask.CompletedTask : MoveHeldAsync(cancellationToken);

        private void Write(in EventSample sample)
        {
            // Once something is held, later events queue behind it so the order is kept.
            if (_held.Count > 0 || !pipeline.TryAccept(sample))
            {
                _held.Enqueue(sample);
            }
        }

        private async ValueTask MoveHeldAsync(CancellationToken cancellationToken)
        {
            try
            {
                while (_held.TryPeek(out var sample))
                {
                    await pipeline.AcceptWhenRoomAsync(sample, cancellationToken).ConfigureAwait(false);
                    _held.Dequeue();
                }
            }
            catch (OperationCanceledException)
            {
                // The source stops while the consumer is behind: what fits now still goes in; the rest never reaches
                // the aggregation and is counted as lost.
                while (_held.TryDequeue(out var sample))
                {
                    if (!pipeline.TryAccept(sample))
                    {
                        pipeline.Drop(sample);
                    }
                }

                throw;
            }
        }
    }
}
