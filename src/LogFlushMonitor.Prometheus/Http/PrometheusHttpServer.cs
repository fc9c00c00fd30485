using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

namespace LogFlushMonitor.Prometheus.Http;

/// <summary>
/// A self-contained Kestrel server for the scrape endpoint plus <c>/healthz</c> and <c>/readyz</c>, for
/// hosts that are not web apps themselves. Start, read <see cref="Port"/>, stop or dispose. Without a scrape handler
/// (metrics pushed over OTLP only) it serves the health endpoints alone.
/// </summary>
public sealed class PrometheusHttpServer : IAsyncDisposable
{
    private readonly WebApplication _app;
    private bool _started;

    /// <summary>Builds the server; nothing listens until <see cref="StartAsync"/>. A null <paramref name="handler"/> maps no scrape endpoint.</summary>
    public PrometheusHttpServer(
        PrometheusScrapeHandler? handler,
        PrometheusHttpServerOptions options,
        Func<(bool Ready, string Reason)>? readiness = null,
        ILoggerFactory? loggerFactory = null)
    {
        ArgumentNullException.ThrowIfNull(options);

        // The empty builder reads no appsettings.json or ASPNETCORE_* variables: the embedding host's
        // Kestrel settings (endpoints, HTTP_PORTS) must not leak into this listener.
        var builder = WebApplication.CreateEmptyBuilder(new WebApplicationOptions
        {
            ApplicationName = typeof(PrometheusHttpServer).Assembly.GetName().Name,
            EnvironmentName = Environments.Production,
        });
        builder.WebHost.UseKestrelCore();
        builder.WebHost.UseUrls(options.Urls);
        builder.Services.AddRoutingCore();
        if (loggerFactory is not null)
        {
            builder.Services.AddSingleton(loggerFactory);
        }

        // The embedding host owns process signals; this server must not stop itself on Ctrl+C.
        builder.Services.AddSingleton<IHostLifetime, EmbeddedHostLifetime>();

        _app = builder.Build();
        if (handler is not null)
        {
            _app.MapPrometheusScrapingEndpoint(handler, options.ScrapePath, options.EnableGzip, options.SendLimits);
        }

        _app.MapHealthEndpoints(readiness, options.HealthPath, options.ReadyPath);
    }

    /// <summary>The addresses Kestrel bound, with actual ports (known after <see cref="StartAsync"/>).</summary>
    public IReadOnlyList<Uri> BoundAddresses =>
        _app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()?.Addresses.Select(a => new Uri(a)).ToList() ?? [];

    /// <summary>The port of the first bound address.</summary>
    public int Port => BoundAddresses.Count > 0 ? BoundAddresses[0].Port : throw new InvalidOperationException("The server is not started.");

    /// <summary>Binds and starts serving.</summary>
    public async Task StartAsync(CancellationToken cancellationToken = default)
    {
        await _app.StartAsync(cancellationToken).ConfigureAwait(false);
        _started = true;
    }

    /// <summary>Stops accepting requests and drains the ones in flight.</summary>
    public async Task StopAsync(CancellationToken cancellationToken = default)
    {
        if (_started)
        {
            _started = false;
            await _app.StopAsync(cancellationToken).ConfigureAwait(false);
        }
    }

    /// <inheritdoc />
    public async ValueTask DisposeAsync()
    {
        await StopAsync().ConfigureAwait(false);
        await _app.DisposeAsync().ConfigureAwait(false);
    }

    private sealed class EmbeddedHostLifetime : IHostLifetime
    {
        public Task WaitForStartAsync(CancellationToken cancellationToken) => Task.CompletedTask;

        public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;
    }
}
