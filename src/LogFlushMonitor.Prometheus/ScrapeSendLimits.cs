namespace LogFlushMonitor.Prometheus;

/// <summary>
/// How long a scraper may take to read a scrape: <see cref="GracePeriod"/> plus the text's length at
/// <see cref="MinimumBytesPerSecond"/> (of uncompressed text, so gzip only makes it more lenient). A scraper slower than
/// that is dropped (its connection cut) and logged: it holds the text's memory, and with enough of them a slow-reading
/// client could make the service hold many texts at once. Prometheus on any network reads megabytes a second; the
/// defaults give a 10 MB text 10 s + 160 s.
/// </summary>
public sealed class ScrapeSendLimits
{
    /// <summary>The default minimum rate: 64 KiB of text a second.</summary>
    public const double DefaultMinimumBytesPerSecond = 64 * 1024;

    /// <summary>The slowest a scraper may read, in bytes of (uncompressed) text a second.</summary>
    public double MinimumBytesPerSecond { get; set; } = DefaultMinimumBytesPerSecond;

    /// <summary>Time every scrape gets on top of its length at the minimum rate.</summary>
    public TimeSpan GracePeriod { get; set; } = TimeSpan.FromSeconds(10);

    /// <summary>How long a text of <paramref name="length"/> bytes may take to send.</summary>
    public TimeSpan BudgetFor(long length) =>
        GracePeriod + TimeSpan.FromSeconds(Math.Min(length / Math.Max(1, MinimumBytesPerSecond), TimeSpan.FromDays(1).TotalSeconds));
}
