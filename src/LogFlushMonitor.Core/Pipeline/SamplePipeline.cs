using System.Threading.Channels;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Samples;

namespace LogFlushMonitor.Core.Pipeline;

/// <summary>
/// The seam between sources and the aggregation. High-rate events go through a bounded channel that never
/// blocks the source: when it is full the event is dropped and counted (loss.kind=channel_full). Polled rows
/// are few and go straight to the aggregation.
/// </summary>
/// <remarks>
/// Any number of source threads may call the <see cref="ISampleSink"/> members. Exactly one task runs
/// <see cref="RunAsync"/>, which drains the channel in batches into the aggregation; it drains what is left
/// after <see cref="Complete"/> before returning.
/// </remarks>
public sealed class SamplePipeline : ISampleSink
{
    private const int BatchSize = 1024;
    private readonly Channel<EventSample> _channel;
    private readonly ISampleSink _aggregator;
    private readonly Action<ReadOnlySpan<EventSample>> _applyBatch;
    private long _dropped;
    private long _accepted;
    private long _applied;
    private volatile bool _completed;

    /// <summary>Creates a pipeline in front of <paramref name="aggregator"/>.</summary>
    /// <param name="aggregator">The aggregation the consumer feeds.</param>
    /// <param name="capacity">Events the channel holds before it drops.</param>
    public SamplePipeline(LogFlushAggregator aggregator, int capacity = 65536)
        : this(aggregator, aggregator.Apply, capacity)
    {
    }

    internal SamplePipeline(ISampleSink sink, Action<ReadOnlySpan<EventSample>> applyBatch, int capacity)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(capacity, 1);
        _aggregator = sink;
        _applyBatch = applyBatch;
        Waiting = new WaitingSink(this);
        _channel = Channel.CreateBounded<EventSample>(new BoundedChannelOptions(capacity)
        {
            SingleReader = true,
            SingleWriter = false,
            FullMode = BoundedChannelFullMode.Wait, // with TryWrite only: false when full, never waits
            AllowSynchronousContinuations = false,
        });
    }

    /// <summary>
    /// The same pipeline for sources that may wait (replay, simulation): when the channel is full they wait
    /// for room instead of dropping. A live stream must never wait (the server would disconnect it): it uses
    /// the pipeline itself.
    /// </summary>
    public ISampleSink Waiting { get; }

    /// <summary>Events dropped because the channel was full.</summary>
    public long Dropped => Interlocked.Read(ref _dropped);

    /// <summary>Events accepted into the channel.</summary>
    public long Accepted => Interlocked.Read(ref _accepted);

    /// <summary>Events waiting in the channel.</summary>
    public int Pending => _channel.Reader.CanCount ? _channel.Reader.Count : 0;

    /// <inheritdoc />
    public void OnLogFlush(in LogFlushEvent flush) => Enqueue(EventSample.Of(flush));

    /// <inheritdoc />
    public void OnWait(in WaitEvent wait) => Enqueue(EventSample.Of(wait));

    /// <inheritdoc />
    public void OnCounter(in CounterSample counter) => _aggregator.OnCounter(counter);

    /// <inheritdoc />
    public void OnWaitStats(in WaitStatsSample waitStats) => _aggregator.OnWaitStats(waitStats);

    /// <inheritdoc />
    public void OnFileStats(in FileStatsSample fileStats) => _aggregator.OnFileStats(fileStats);

    /// <inheritdoc />
    public void OnServerStart(in ServerStartSample start) => _aggregator.OnServerStart(start);

    /// <inheritdoc />
    public void OnPollCompleted(in PollCompleted completed) => _aggregator.OnPollCompleted(completed);

    /// <inheritdoc />
    public void OnDatabaseName(string instance, int databaseId, string name) => _aggregator.OnDatabaseName(instance, databaseId, name);

    /// <inheritdoc />
    public void OnSourceLoss(string instance, LossKind kind, long count) => _aggregator.OnSourceLoss(instance, kind, count);

    /// <summary>No more events will come: <see cref="RunAsync"/> drains the channel and returns.</summary>
    public void Complete()
    {
        _completed = true;
        _channel.Writer.TryComplete();
    }

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
                Interlocked.Add(ref _applied, n);
                Array.Clear(batch, 0, n); // release string references held by the batch
            }
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
        }
    }

    /// <summary>Events the consumer has applied to the aggregation.</summary>
    public long Applied => Interlocked.Read(ref _applied);

    /// <summary>Waits until every event accepted so far has been applied to the aggregation (for tests and orderly stops).</summary>
    public async Task WaitForDrainAsync(TimeSpan timeout, TimeProvider? time = null)
    {
        time ??= TimeProvider.System;
        var deadline = time.GetUtcNow() + timeout;
        while (Applied < Accepted)
        {
            if (time.GetUtcNow() > deadline)
            {
                throw new TimeoutException($"The pipeline still had {Accepted - Applied} events to apply after {timeout}.");
            }

            await Task.Delay(5).ConfigureAwait(false);
        }
    }

    private void EnqueueWaiting(in EventSample sample)
    {
        var spinner = default(SpinWait);
        while (!_channel.Writer.TryWrite(sample))
        {
            if (_completed)
            {
                Drop(sample);
                return;
            }

            spinner.SpinOnce(sleep1Threshold: 10);
        }

        Interlocked.Increment(ref _accepted);
    }

    private void Drop(in EventSample sample)
    {
        Interlocked.Increment(ref _dropped);
        _aggregator.OnSourceLoss(sample.Instance, LossKind.ChannelFull, 1);
    }

    private void Enqueue(in EventSample sample)
    {
        if (_channel.Writer.TryWrite(sample))
        {
            Interlocked.Increment(ref _accepted);
            return;
        }

        Drop(sample);
    }

    private sealed class WaitingSink(SamplePipeline pipeline) : ISampleSink
    {
        public void OnLogFlush(in LogFlushEvent flush) => pipeline.EnqueueWaiting(EventSample.Of(flush));

        public void OnWait(in WaitEvent wait) => pipeline.EnqueueWaiting(EventSample.Of(wait));

        public void OnCounter(in CounterSample counter) => pipeline.OnCounter(counter);

        public void OnWaitStats(in WaitStatsSample waitStats) => pipeline.OnWaitStats(waitStats);

        public void OnFileStats(in FileStatsSample fileStats) => pipeline.OnFileStats(fileStats);

        public void OnServerStart(in ServerStartSample start) => pipeline.OnServerStart(start);

        public void OnPollCompleted(in PollCompleted completed) => pipeline.OnPollCompleted(completed);

        public void OnDatabaseName(string instance, int databaseId, string name) => pipeline.OnDatabaseName(instance, databaseId, name);

        public void OnSourceLoss(string instance, LossKind kind, long count) => pipeline.OnSourceLoss(instance, kind, count);
    }
}
