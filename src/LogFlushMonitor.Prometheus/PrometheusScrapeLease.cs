namespace LogFlushMonitor.Prometheus;

/// <summary>
/// The text of one scrape, valid until disposed. Dispose it once the response is written: the bytes
/// live in a pooled buffer shared with concurrent scrapes.
/// </summary>
public sealed class PrometheusScrapeLease : IDisposable
{
    private ScrapeSnapshot? _snapshot;

    internal PrometheusScrapeLease(ScrapeSnapshot snapshot, bool fromCache)
    {
        _snapshot = snapshot;
        FromCache = fromCache;
        CollectedAt = snapshot.CollectedAt;
    }

    /// <summary>UTF-8 text in format 0.0.4 (<see cref="PrometheusScrapeHandler.ContentType"/>).</summary>
    public ReadOnlyMemory<byte> Content => (_snapshot ?? throw new ObjectDisposedException(nameof(PrometheusScrapeLease))).Content;

    /// <summary>When the collect that produced this text finished.</summary>
    public DateTimeOffset CollectedAt { get; }

    /// <summary>True when the text came from an earlier collect still within the cache duration.</summary>
    public bool FromCache { get; }

    /// <inheritdoc />
    public void Dispose() => Interlocked.Exchange(ref _snapshot, null)?.Release();
}
