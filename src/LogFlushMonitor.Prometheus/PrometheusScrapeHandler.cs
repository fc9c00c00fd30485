using LogFlushMonitor.Prometheus.Exposition;

namespace LogFlushMonitor.Prometheus;

/// <summary>
/// Turns scrapes into collects: one collect at a time, concurrent scrapes share its result, and a
/// result younger than <see cref="PrometheusExporterOptions.ScrapeResponseCacheDuration"/> is reused.
/// Thread-safe; HTTP endpoints call <see cref="ScrapeAsync"/>.
/// </summary>
public sealed class PrometheusScrapeHandler : IDisposable
{
    /// <summary>The Content-Type of text format 0.0.4.</summary>
    public const string ContentType = "text/plain; version=0.0.4; charset=utf-8";

    private readonly PrometheusExporter _exporter;
    private readonly TimeProvider _timeProvider;
    private readonly Utf8TextBuffer _buffer = new(64 * 1024);
    private readonly object _gate = new();
    private readonly Action<byte[]> _returnArray;
    private byte[]? _spare;
    private ScrapeSnapshot? _current;
    private Task<ScrapeSnapshot>? _inFlight;
    private long _collectCount;
    private bool _disposed;

    /// <summary>Creates a handler over a registered exporter; usually obtained from <see cref="PrometheusMeterProviderBuilderExtensions.AddPrometheusPullExporter"/>.</summary>
    public PrometheusScrapeHandler(PrometheusExporter exporter, TimeProvider? timeProvider = null)
    {
        ArgumentNullException.ThrowIfNull(exporter);
        _exporter = exporter;
        _timeProvider = timeProvider ?? TimeProvider.System;
        _returnArray = ReturnArray;
    }

    /// <summary>How many collects ran (scrapes served from the cache or a shared collect do not count).</summary>
    public long CollectCount => Interlocked.Read(ref _collectCount);

    /// <summary>The exporter this handler collects from.</summary>
    public PrometheusExporter Exporter => _exporter;

    /// <summary>
    /// Returns the current text: cached, shared with a collect in progress, or from a new collect.
    /// Throws <see cref="InvalidOperationException"/> when the collect fails.
    /// </summary>
    public async Task<PrometheusScrapeLease> ScrapeAsync(CancellationToken cancellationToken = default)
    {
        while (true)
        {
            Task<ScrapeSnapshot> pending;
            lock (_gate)
            {
                ObjectDisposedException.ThrowIf(_disposed, this);
                var current = _current;
                var cacheFor = _exporter.Options.ScrapeResponseCacheDuration;
                if (current is not null && cacheFor > TimeSpan.Zero
                    && _timeProvider.GetUtcNow() - current.CollectedAt < cacheFor
                    && current.TryAddReference())
                {
                    return new PrometheusScrapeLease(current, fromCache: true);
                }

                pending = _inFlight ??= Task.Run(CollectOnce, CancellationToken.None);
            }

            var snapshot = await pending.WaitAsync(cancellationToken).ConfigureAwait(false);
            if (snapshot.TryAddReference())
            {
                return new PrometheusScrapeLease(snapshot, fromCache: false);
            }

            // A newer collect replaced and released it before this scrape woke up: take the newer one.
        }
    }

    private ScrapeSnapshot CollectOnce()
    {
        try
        {
            var timeout = (int)Math.Clamp(_exporter.Options.CollectTimeout.TotalMilliseconds, 1, int.MaxValue);
            _buffer.Clear();
            if (!_exporter.CollectInto(_buffer, timeout))
            {
                throw new InvalidOperationException("The OpenTelemetry SDK collect failed or timed out.");
            }

            Interlocked.Increment(ref _collectCount);

            var array = _buffer.Detach(out var length, TakeArray(length: _buffer.Length + (_buffer.Length / 8)));
            var snapshot = new ScrapeSnapshot(array, length, _timeProvider.GetUtcNow(), _returnArray);
            lock (_gate)
            {
                var previous = _current;
                _current = snapshot;
                _inFlight = null;
                previous?.Release();
                if (_disposed)
                {
                    _current = null;
                    snapshot.Release();
                }
            }

            return snapshot;
        }
        catch
        {
            lock (_gate)
            {
                _inFlight = null;
            }

            throw;
        }
    }

    // Arrays rotate through one spare slot instead of the shared pool: the pool keeps returns in the
    // returning thread's cache, and collects hop between pool threads, so it would miss and allocate.
    private byte[] TakeArray(int length)
    {
        var spare = Interlocked.Exchange(ref _spare, null);
        if (spare is not null && spare.Length >= length)
        {
            return spare;
        }

        if (spare is not null)
        {
            Utf8TextBuffer.Return(spare);
        }

        // Room for this collect's size plus some, so the next render does not regrow.
        return Utf8TextBuffer.Rent(Math.Max(length, 4096));
    }

    private void ReturnArray(byte[] array)
    {
        if (Interlocked.CompareExchange(ref _spare, array, null) is not null)
        {
            Utf8TextBuffer.Return(array);
        }
    }

    /// <summary>Releases the cached text. Leases already handed out stay valid until disposed.</summary>
    public void Dispose()
    {
        lock (_gate)
        {
            if (_disposed)
            {
                return;
            }

            _disposed = true;
            _current?.Release();
            _current = null;
        }
    }
}
