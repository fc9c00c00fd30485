namespace LogFlushMonitor.Prometheus;

/// <summary>
/// One scrape's view of a rendered text, which other scrapes of the same collect may share. Dispose it when done
/// (also after a failure or cancellation): the text's blocks return to the pool when its last scrape is disposed.
/// </summary>
public sealed class PrometheusScrape : IAsyncDisposable
{
    private readonly RenderedText _text;
    private int _ended;

    internal PrometheusScrape(RenderedText text) => _text = text;

    /// <summary>The text's length in bytes (UTF-8 text format 0.0.4, or the protobuf exposition: <see cref="ContentType"/>).</summary>
    public long Length => _text.Length;

    /// <summary>The format the scrape is in.</summary>
    public PrometheusFormat Format => _text.Format;

    /// <summary>The Content-Type to send it with.</summary>
    public string ContentType => _text.Format == PrometheusFormat.Protobuf ? PrometheusScrapeHandler.ProtobufContentType : PrometheusScrapeHandler.ContentType;

    /// <summary>Writes the whole text to <paramref name="destination"/> and returns its length in bytes.</summary>
    public async Task<long> CopyToAsync(Stream destination, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(destination);
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _ended) != 0, this);
        long total = 0;
        foreach (var piece in _text.Pieces())
        {
            await destination.WriteAsync(piece, cancellationToken).ConfigureAwait(false);
            total += piece.Length;
        }

        return total;
    }

    /// <inheritdoc />
    public ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _ended, 1) == 0)
        {
            _text.Release();
        }

        return ValueTask.CompletedTask;
    }
}
