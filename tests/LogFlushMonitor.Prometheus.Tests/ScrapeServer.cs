using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.Extensions.DependencyInjection;

namespace LogFlushMonitor.Prometheus.Tests;

/// <summary>
/// A minimal ASP.NET Core app on a free port of 127.0.0.1 with the scrape endpoint mapped, as any host maps it (the
/// library owns no server: the service maps it onto its own app).
/// </summary>
public sealed class ScrapeServer : IAsyncDisposable
{
    private readonly WebApplication _app;

    private ScrapeServer(WebApplication app) => _app = app;

    /// <summary>The port Kestrel bound.</summary>
    public int Port => new Uri(_app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses.First()).Port;

    /// <summary>Starts serving <paramref name="handler"/> at /metrics.</summary>
    public static async Task<ScrapeServer> StartAsync(PrometheusScrapeHandler handler, ScrapeSendLimits? limits = null)
    {
        var builder = WebApplication.CreateEmptyBuilder(new WebApplicationOptions());
        builder.WebHost.UseKestrelCore().UseUrls("http://127.0.0.1:0");
        builder.Services.AddRoutingCore();
        var app = builder.Build();
        app.MapPrometheusScrapingEndpoint(handler, sendLimits: limits);
        await app.StartAsync();
        return new ScrapeServer(app);
    }

    public async ValueTask DisposeAsync()
    {
        await _app.StopAsync();
        await _app.DisposeAsync();
    }
}
