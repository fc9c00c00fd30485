using LogFlushMonitor.Prometheus.Exposition;

namespace LogFlushMonitor.Prometheus;

/// <summary>
/// Turns scrapes into collects, rendered once and served to every scrape that asked meanwhile. A collect renders on a
/// pool thread, as fast as it can, into pooled 64 KB blocks (<see cref="RenderedText"/>); no scrape's socket is ever in
/// its way. Scrapes that arrive while a collect is rendering share its text; one that arrives after it ended starts the
/// next (a collect's data is read under the SDK's collect, which serves one reader at a time). Each scrape then sends
/// the shared text at its own pace, and the blocks return to the pool when the last one is done. Before, scrapes took
/// turns and a turn lasted until the text was copied to the client: one client reading slowly held every other scrape.
/// Thread-safe; HTTP endpoints call <see cref="ScrapeAsync(PrometheusFormat, CancellationToken)"/>.
/// </summary>
public sealed class PrometheusScrapeHandler : IDisposable
{
    /// <summary>The Content-Type of text format 0.0.4.</summary>
    public const string ContentType = "text/plain; version=0.0.4; charset=utf-8";

    /// <summary>The Content-Type of the protobuf exposition (length-delimited <c>io.prometheus.client.MetricFamily</c>).</summary>
    public const string ProtobufContentType = "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited";

    /// <summary>Size of the render buffer and of each pooled block of text.</summary>
    internal const int ChunkSize = 64 * 1024;

    /// <summary>
    /// Blocks kept in the pool between scrapes: a text up to 10 MB (the largest measured, bench/README.md) is served
    /// from reused blocks; a larger one allocates the rest each time.
    /// </summary>
    internal const int MaxKeptBlocks = 160;

    private readonly PrometheusExporter _exporter;
    private readonly Lock _gate = new();

    // Collects of the two formats may be asked for at once; the exporter and the render buffer serve one at a time.
    private readonly Lock _collectGate = new();
    private readonly SegmentPool _blocks = new(ChunkSize, MaxKeptBlocks);
    private readonly Utf8TextBuffer _chunk;
    private readonly ChunkDrain _drain = new();
    private readonly RenderedText?[] _rendering = new RenderedText?[2]; // per PrometheusFormat
    private long _collectCount;
    private bool _disposed;

    /// <summary>Creates a handler over a registered exporter; usually obtained from <see cref="PrometheusMeterProviderBuilderExtensions.AddPrometheusPullExporter"/>.</summary>
    public PrometheusScrapeHandler(PrometheusExporter exporter)
    {
        ArgumentNullException.ThrowIfNull(exporter);
        _exporter = exporter;
        _chunk = new Utf8TextBuffer(ChunkSize, _drain);
    }

    /// <summary>How many collects ran to completion.</summary>
    public long CollectCount => Interlocked.Read(ref _collectCount);

    /// <summary>The exporter this handler collects from.</summary>
    public PrometheusExporter Exporter => _exporter;

    /// <summary>Pooled blocks created so far (tests: a steady scrape reuses them).</summary>
    internal int BlocksCreated => _blocks.Created;

    /// <summary>
    /// Joins the collect in progress, or starts one, and returns once its whole text is rendered: a collect that fails
    /// fails the scrape before anything is sent (the scraper never gets a partial text). Copy the text with
    /// <see cref="PrometheusScrape.CopyToAsync"/> and dispose the scrape. Throws <see cref="InvalidOperationException"/>
    /// when the collect fails.
    /// </summary>
    public Task<PrometheusScrape> ScrapeAsync(CancellationToken cancellationToken = default) =>
        ScrapeAsync(PrometheusFormat.Text, cancellationToken);

    /// <summary>
    /// As <see cref="ScrapeAsync(CancellationToken)"/>, in <paramref name="format"/>: a scrape joins a collect of its own
    /// format only (each format is rendered once per collect, for every scrape of that format that joined it).
    /// </summary>
    public async Task<PrometheusScrape> ScrapeAsync(PrometheusFormat format, CancellationToken cancellationToken = default)
    {
        RenderedText text;
        var start = false;
        var slot = format == PrometheusFormat.Protobuf ? 1 : 0;
        lock (_gate)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            if (_rendering[slot] is { } joined)
            {
                joined.AddReader();
                text = joined;
            }
            else
            {
                // One reference for this scrape, one for the render itself (released when it ends).
                text = new RenderedText(_blocks, format);
                text.AddReader();
                _rendering[slot] = text;
                start = true;
            }
        }

        if (start)
        {
            _ = Task.Run(() => Produce(text, slot), CancellationToken.None);
        }

        try
        {
            var failure = await text.Rendered.WaitAsync(cancellationToken).ConfigureAwait(false);
            if (failure is not null)
            {
                throw new InvalidOperationException(failure.Message, failure);
            }
        }
        catch
        {
            text.Release();
            throw;
        }

        return new PrometheusScrape(text);
    }

    /// <summary>Collects (or joins a collect) and writes the whole text to <paramref name="destination"/>; returns its length in bytes.</summary>
    public Task<long> ScrapeToAsync(Stream destination, CancellationToken cancellationToken = default) =>
        ScrapeToAsync(destination, PrometheusFormat.Text, cancellationToken);

    /// <summary>As <see cref="ScrapeToAsync(Stream, CancellationToken)"/>, in <paramref name="format"/>.</summary>
    public async Task<long> ScrapeToAsync(Stream destination, PrometheusFormat format, CancellationToken cancellationToken = default)
    {
        var scrape = await ScrapeAsync(format, cancellationToken).ConfigureAwait(false);
        await using (scrape.ConfigureAwait(false))
        {
            return await scrape.CopyToAsync(destination, cancellationToken).ConfigureAwait(false);
        }
    }

    /// <summary>Runs on a pool thread: the collect and its rendering into <paramref name="text"/>, which no reader can slow.</summary>
    private void Produce(RenderedText text, int slot)
    {
        Exception? failure = null;
        lock (_collectGate)
        {
            try
            {
                var timeout = (int)Math.Clamp(_exporter.Options.CollectTimeout.TotalMilliseconds, 1, int.MaxValue);
                _drain.Target = text;
                _chunk.Clear();
                if (_exporter.CollectInto(_chunk, timeout, text.Format))
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
                // Whatever failed, the scrapes waiting for this text must hear of it.
                failure = ex;
            }
            finally
            {
                _drain.Target = null;
            }
        }

        bool disposed;
        lock (_gate)
        {
            _rendering[slot] = null;
            disposed = _disposed;
        }

        text.Complete(failure);
        text.Release(); // the render's own reference
        if (disposed)
        {
            FreeBuffers();
        }
    }

    /// <summary>Refuses new scrapes. Scrapes in progress finish; the render buffer returns to the pool after the last render.</summary>
    public void Dispose()
    {
        bool idle;
        lock (_gate)
        {
            if (_disposed)
            {
                return;
            }

            _disposed = true;
            idle = _rendering[0] is null && _rendering[1] is null;
        }

        if (idle)
        {
            FreeBuffers();
        }
    }

    private void FreeBuffers()
    {
        _chunk.Dispose();
        _blocks.Dispose();
    }

    /// <summary>Appends each filled chunk of the render buffer to the text being rendered.</summary>
    private sealed class ChunkDrain : IUtf8Drain
    {
        public RenderedText? Target { get; set; }

        public void Drain(ReadOnlySpan<byte> bytes) => Target?.Append(bytes);
    }
}
