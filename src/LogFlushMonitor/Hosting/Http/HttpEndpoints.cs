using LogFlushMonitor.Prometheus;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Diagnostics.HealthChecks;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.Configuration;

namespace LogFlushMonitor.Hosting;

/// <summary>
/// The host's HTTP server (Kestrel, or none when Http:Enabled is false) and what it serves: /healthz and /readyz as
/// ASP.NET Core health checks, /metrics (Exporters:Prometheus:Path) when Prometheus is enabled, and the documentation
/// this build was made with at /docs/ (<see cref="DocsEndpoints"/>: the alerts' runbooks). GET and HEAD only (HEAD
/// answers as GET without the body); other methods get 405.
/// </summary>
internal static partial class HttpEndpoints
{
    private static readonly HttpMethodMetadata GetAndHead = new([HttpMethods.Get, HttpMethods.Head]);

    /// <summary>Kestrel on Http:Urls, or no server at all.</summary>
    public static void ConfigureServer(WebApplicationBuilder builder, HttpOptions http)
    {
        if (!http.Enabled)
        {
            // OTLP only, nothing to serve: without a listener of its own, Kestrel would take http://localhost:5000.
            builder.Services.AddSingleton<IServer, NoServer>();
            return;
        }

        builder.WebHost.UseUrls(http.Urls);

        // Kestrel's own configuration section (Kestrel:Endpoints, certificates) is not one of ours: the listener is
        // Http:Urls alone, as docs/configuration.md says.
        builder.WebHost.ConfigureKestrel(k => k.Configure(new ConfigurationBuilder().Build(), reloadOnChange: false));
    }

    /// <summary>Maps the endpoints, and logs where they are once the server listens.</summary>
    public static void Map(WebApplication app, MonitorOptions options, PrometheusScrapeHandler? scrapeHandler)
    {
        if (!options.Http.Enabled)
        {
            return;
        }

        // Liveness: the process serves requests. No check runs.
        app.MapHealthChecks("/healthz", new HealthCheckOptions
        {
            Predicate = _ => false,
            ResponseWriter = (context, _) => WriteAsync(context, "ok\n", "text/plain; charset=utf-8"),
        }).WithMetadata(GetAndHead);

        // Readiness: 200 or 503 with the JSON report of each component (Readiness), the same body either way.
        app.MapHealthChecks("/readyz", new HealthCheckOptions
        {
            Predicate = check => check.Name == ReadinessHealthCheck.Name,
            ResponseWriter = (context, report) => WriteAsync(
                context,
                (report.Entries.TryGetValue(ReadinessHealthCheck.Name, out var entry) ? entry.Description : null) + "\n",
                "application/json; charset=utf-8"),
        }).WithMetadata(GetAndHead);

        if (scrapeHandler is not null)
        {
            app.MapPrometheusScrapingEndpoint(scrapeHandler, options.Exporters.Prometheus.Path);
        }

        DocsEndpoints.Map(app, GetAndHead);

        var logger = app.Services.GetRequiredService<ILoggerFactory>().CreateLogger(typeof(HttpEndpoints).FullName!);
        app.Lifetime.ApplicationStarted.Register(() =>
        {
            foreach (var address in Addresses(app.Services))
            {
                if (scrapeHandler is not null)
                {
                    LogListening(logger, new Uri(address, options.Exporters.Prometheus.Path));
                }
                else
                {
                    LogHealthOnly(logger, new Uri(address, "/healthz"), new Uri(address, "/readyz"));
                }

                LogDocs(logger, new Uri(address, "/docs/alerts.md"));
            }
        });
    }

    /// <summary>The addresses the server bound, with actual ports (after the start).</summary>
    public static IReadOnlyList<Uri> Addresses(IServiceProvider services) =>
        services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()?.Addresses.Select(a => new Uri(a)).ToList() ?? [];

    /// <summary>The text with its length; the body only for GET (HEAD answers as GET without it).</summary>
    private static Task WriteAsync(HttpContext context, string text, string contentType)
    {
        context.Response.ContentType = contentType;
        var body = System.Text.Encoding.UTF8.GetBytes(text);
        context.Response.ContentLength = body.Length;
        return HttpMethods.IsHead(context.Request.Method)
            ? Task.CompletedTask
            : context.Response.Body.WriteAsync(body, context.RequestAborted).AsTask();
    }

    [LoggerMessage(EventId = 100, Level = LogLevel.Information, Message = "Serving metrics at {Url}")]
    private static partial void LogListening(ILogger logger, Uri url);

    [LoggerMessage(EventId = 105, Level = LogLevel.Information, Message = "Serving the alerts' runbooks and the rest of this version's documentation at {Url}")]
    private static partial void LogDocs(ILogger logger, Uri url);

    [LoggerMessage(EventId = 104, Level = LogLevel.Information, Message = "Serving health at {Health} and readiness at {Ready} (no /metrics: Exporters:Prometheus:Enabled is false)")]
    private static partial void LogHealthOnly(ILogger logger, Uri health, Uri ready);

    /// <summary>The server of a host that serves nothing over HTTP (Http:Enabled=false): it listens nowhere.</summary>
    private sealed class NoServer : IServer
    {
        public Microsoft.AspNetCore.Http.Features.IFeatureCollection Features { get; } = new Microsoft.AspNetCore.Http.Features.FeatureCollection();

        public Task StartAsync<TContext>(IHttpApplication<TContext> application, CancellationToken cancellationToken)
            where TContext : notnull => Task.CompletedTask;

        public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;

        public void Dispose()
        {
        }
    }
}
