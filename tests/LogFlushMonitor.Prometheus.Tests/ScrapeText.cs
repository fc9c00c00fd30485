using System.Text;

namespace LogFlushMonitor.Prometheus.Tests;

internal static class ScrapeText
{
    /// <summary>Scrapes once through the handler and returns the text.</summary>
    public static async Task<string> ScrapeTextAsync(this PrometheusScrapeHandler handler)
    {
        using var text = new MemoryStream();
        await handler.ScrapeToAsync(text);
        return Encoding.UTF8.GetString(text.GetBuffer(), 0, (int)text.Length);
    }
}
