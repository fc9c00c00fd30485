namespace LogFlushMonitor.Prometheus;

/// <summary>
/// One scrape in progress: its collect renders while <see cref="CopyToAsync"/> sends the text on. Dispose it when
/// done (also after a failure or cancellation): the next scrape starts when this one is disposed.
/// </summary>
public sealed class PrometheusScrape : IAsyncDisposable
{
    private readonly PrometheusScrapeHandler _handler;
    private readonly Task<Exception?> _producer;
    private int _ended;

    internal PrometheusScrape(PrometheusScrapeHandler handler, Task<Exception?> producer)
    {
        _handler = handler;
        _producer = producer;
    }

    /// <summary>
    /// Writes the text (UTF-8, format 0.0.4, <see cref="PrometheusScrapeHandler.ContentType"/>) to
    /// <paramref name="destination"/> as it is rendered and returns its length in bytes. Call once.
    /// Throws <see cref="InvalidOperationException"/> when the collect fails after part of the text was written:
    /// the destination then holds a partial text, which the caller must not present as complete.
    /// </summary>
    public async Task<long> CopyToAsync(Stream destination, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(destination);
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _ended) != 0, this);
        var reader = _handler.Reader;
        long total = 0;
        while (true)
        {
            System.IO.Pipelines.ReadResult result;
            try
            {
                result = await reader.ReadAsync(cancellationToken).ConfigureAwait(false);
            }
            catch (Exception ex) when (ex is not OperationCanceledException)
            {
                throw new InvalidOperationException($"The collect failed after {total} bytes of text were written: {ex.Message}", ex);
            }

            var buffer = result.Buffer;
            foreach (var segment in buffer)
            {
                await destination.WriteAsync(segment, cancellationToken).ConfigureAwait(false);
                total += segment.Length;
            }

            reader.AdvanceTo(buffer.End);
            if (result.IsCompleted)
            {
                return total;
            }
        }
    }

    /// <inheritdoc />
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _ended, 1) == 0)
        {
            await _handler.EndAsync(_producer).ConfigureAwait(false);
        }
    }
}
