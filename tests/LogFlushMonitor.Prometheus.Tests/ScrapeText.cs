using System.Text;

namespace LogFlushMonitor.Prometheus.Tests;

internal static class ScrapeText
{
    /// <summary>Scrapes once through the handler and returns the text.</summary>
    public static async Task<string> ScrapeTextAsync(this PrometheusScrapeHandler handler)
    {
        using var lease = await handler.ScrapeAsync();
        return Encoding.UTF8.GetString(lease.Content.Span);
    }
}
