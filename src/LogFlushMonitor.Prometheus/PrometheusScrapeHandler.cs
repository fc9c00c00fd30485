using System.Buffers;
using System.IO.Pipelines;
using LogFlushMonitor.Prometheus.Exposition;

namespace LogFlushMonitor.Prometheus;

/// <summary>
/// Turns scrapes into collects whose text streams to the scraper as it is rendered: the collect renders on a
/// pool thread into a small pooled buffer, which hands each filled chunk through a bounded pipe to the caller's
/// stream. Memory per scrape is a few chunks, whatever the size of the text. Scrapes take turns: each one runs
/// its own collect, after the one before it has finished (a collect's data is read under the SDK's collect,
/// which serves one reader at a time). Thread-safe; HTTP endpoints call <see cref="ScrapeAsync"/>.
/// </summary>
public sealed class PrometheusScrapeHandler : IDisposable
{
    /// <summary>The Content-Type of text format 0.0.4.</summary>
    public const string ContentType = "text/plain; version=0.0.4; charset=utf-8";

    /// <summary>Size of the render buffer: the text leaves it in pieces of this size.</summary>
    internal const int ChunkSize = 64 * 1024;

    /// <summary>
    /// The renderer waits once this much text is waiting to be sent, and resumes when half of it has gone. Four
    /// chunks rather than one or two: fewer hand-offs between the render and send threads made a plain 10 MB scrape
    /// over HTTP 15-20 % faster for 192 KB more (bench/README.md).
    /// </summary>
    internal const int PipePauseBytes = 4 * ChunkSize;

    private readonly PrometheusExporter _exporter;
    private readonly SemaphoreSlim _turn = new(1, 1);
    // Chunks are rarely exactly one block long, so each spans up to two: the pause threshold's worth plus slack.
    private readonly SegmentPool _segments = new(ChunkSize, maxKept: (PipePauseBytes / ChunkSize) + 4);
    private readonly Pipe _pipe;
    private readonly Utf8TextBuffer _chunk;
    private readonly PipeDrain _drain;
    private readonly Func<Exception?> _produce;
    private long _collectCount;
    private volatile bool _disposed;

    /// <summary>Creates a handler over a registered exporter; usually obtained from <see cref="PrometheusMeterProviderBuilderExtensions.AddPrometheusPullExporter"/>.</summary>
    public PrometheusScrapeHandler(PrometheusExporter exporter)
    {
        ArgumentNullException.ThrowIfNull(exporter);
        _exporter = exporter;

        // The writer's wait is released on the thread that reads (Inline): the renderer blocks its pool thread
        // while it waits, so its wake-up must not need another pool thread.
        _pipe = new Pipe(new PipeOptions(
            pool: _segments,
            pauseWriterThreshold: PipePauseBytes,
            resumeWriterThreshold: PipePauseBytes / 2,
            minimumSegmentSize: ChunkSize,
            writerScheduler: PipeScheduler.Inline,
            useSynchronizationContext: false));
        _drain = new PipeDrain(_pipe.Writer);
        _chunk = new Utf8TextBuffer(ChunkSize, _drain);
        _produce = Produce;
    }

    /// <summary>How many collects ran to completion.</summary>
    public long CollectCount => Interlocked.Read(ref _collectCount);

    /// <summary>The exporter this handler collects from.</summary>
    public PrometheusExporter Exporter => _exporter;

    /// <summary>
    /// Waits for this scrape's turn, starts a collect and returns once its first text is ready, so a collect that
    /// fails before any text can still be answered with an error status. Copy the text with
    /// <see cref="PrometheusScrape.CopyToAsync"/> and dispose the scrape: the next one waits for that.
    /// Throws <see cref="InvalidOperationException"/> when the collect fails.
    /// </summary>
    public async Task<PrometheusScrape> ScrapeAsync(CancellationToken cancellationToken = default)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        await _turn.WaitAsync(cancellationToken).ConfigureAwait(false);
        Task<Exception?>? producer = null;
        try
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            _drain.Reset();
            producer = Task.Run(_produce, CancellationToken.None);

            // Peek at the first text (or the end) without consuming it.
            var first = await _pipe.Reader.ReadAsync(cancellationToken).ConfigureAwait(false);
            _pipe.Reader.AdvanceTo(first.Buffer.Start);
            return new PrometheusScrape(this, producer);
        }
        catch (Exception ex)
        {
            if (producer is not null)
            {
                var failure = await EndAsync(producer).ConfigureAwait(false);
                if (ex is not OperationCanceledException && failure is not null)
                {
                    throw new InvalidOperationException(failure.Message, failure);
                }
            }
            else
            {
                ReleaseTurn();
            }

            throw;
        }
    }

    /// <summary>Collects once and writes the whole text to <paramref name="destination"/>; returns its length in bytes.</summary>
    public async Task<long> ScrapeToAsync(Stream destination, CancellationToken cancellationToken = default)
    {
        var scrape = await ScrapeAsync(cancellationToken).ConfigureAwait(false);
        await using (scrape.ConfigureAwait(false))
        {
            return await scrape.CopyToAsync(destination, cancellationToken).ConfigureAwait(false);
        }
    }

    internal PipeReader Reader => _pipe.Reader;

    /// <summary>Bytes the current or last collect handed to the pipe (tests: how far the renderer got).</summary>
    internal long BytesHandedOn => _drain.BytesHandedOn;

    /// <summary>Pipe blocks created so far (tests: a steady scrape reuses them).</summary>
    internal int BlocksCreated => _segments.Created;

    /// <summary>True while the renderer waits for the reader to catch up (tests).</summary>
    internal bool WaitingForReader => _drain.Waiting;

    /// <summary>Ends a scrape: stops reading (the renderer then finishes without sending), waits for the collect to end, frees the turn.</summary>
    internal async Task<Exception?> EndAsync(Task<Exception?> producer)
    {
        try
        {
            await _pipe.Reader.CompleteAsync().ConfigureAwait(false);
            var failure = await producer.ConfigureAwait(false);

            // Both ends are complete now (the producer always completes the writer): ready for the next scrape.
            _pipe.Reset();
            return failure;
        }
        finally
        {
            ReleaseTurn();
        }
    }

    /// <summary>Lets the next scrape go; once disposed, the first to see the turn free returns the buffer to the pool.</summary>
    private void ReleaseTurn()
    {
        _turn.Release();
        if (_disposed && _turn.Wait(0))
        {
            FreeBuffers();
            _turn.Release();
        }
    }

    /// <summary>Runs on a pool thread: the collect and its rendering, which blocks while the reader is behind.</summary>
    private Exception? Produce()
    {
        Exception? failure = null;
        try
        {
            var timeout = (int)Math.Clamp(_exporter.Options.CollectTimeout.TotalMilliseconds, 1, int.MaxValue);
            _chunk.Clear();
            if (_exporter.CollectInto(_chunk, timeout))
            {
                _chunk.Flush();
                Interlocked.Increment(ref _collectCount);
            }
            else
            {
                failure = new InvalidOperationException("The OpenTelemetry SDK collect failed or timed out.");
            }
        }
        catch (Exception ex)
        {
            // Whatever failed, the pipe must end, or the scrape would wait for text forever.
            failure = ex;
        }

        // A failed collect ends the text with an error, so a reader never takes a partial text for a whole one.
        _pipe.Writer.Complete(failure);
        return failure;
    }

    /// <summary>Refuses new scrapes. A scrape in progress finishes; the buffer returns to the pool after it.</summary>
    public void Dispose()
    {
        if (_disposed)
        {
            return;
        }

        _disposed = true;
        if (_turn.Wait(0))
        {
            FreeBuffers();
            _turn.Release();
        }
    }

    private void FreeBuffers()
    {
        _chunk.Dispose();
        _segments.Dispose();
    }

    /// <summary>Copies each filled chunk into the pipe and waits while the reader is more than the pause threshold behind.</summary>
    private sealed class PipeDrain : IUtf8Drain
    {
        private readonly PipeWriter _writer;

        // Waiting for a flush blocks on this event, signalled by the pipe's completion callback: no Task per wait.
        private readonly ManualResetEventSlim _flushed = new();
        private readonly Action _signalFlushed;
        private bool _readerGone;
        private long _bytes;
        private volatile bool _waiting;

        public PipeDrain(PipeWriter writer)
        {
            _writer = writer;
            _signalFlushed = _flushed.Set;
        }

        public long BytesHandedOn => Interlocked.Read(ref _bytes);

        public bool Waiting => _waiting;

        public void Reset()
        {
            _readerGone = false;
            Interlocked.Exchange(ref _bytes, 0);
        }

        public void Drain(ReadOnlySpan<byte> bytes)
        {
            if (_readerGone)
            {
                // The scraper went away: render to the end (the SDK's collect must finish) and send nothing.
                return;
            }

            _writer.Write(bytes);
            Interlocked.Add(ref _bytes, bytes.Length);
            var flush = _writer.FlushAsync().GetAwaiter();
            if (!flush.IsCompleted)
            {
                _waiting = true;
                _flushed.Reset();
                flush.UnsafeOnCompleted(_signalFlushed);
                _flushed.Wait();
                _waiting = false;
            }

            _readerGone = flush.GetResult().IsCompleted;
        }
    }
}
