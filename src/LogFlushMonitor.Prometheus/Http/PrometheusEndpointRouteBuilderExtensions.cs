using System.IO.Compression;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Microsoft.Net.Http.Headers;

namespace LogFlushMonitor.Prometheus;

/// <summary>Maps the scrape, liveness and readiness endpoints onto any ASP.NET Core app.</summary>
public static class PrometheusEndpointRouteBuilderExtensions
{
    /// <summary>Serves the handler's text at <paramref name="path"/>, gzip-compressed when the scraper accepts gzip.</summary>
    public static IEndpointConventionBuilder MapPrometheusScrapingEndpoint(
        this IEndpointRouteBuilder endpoints, PrometheusScrapeHandler handler, string path = "/metrics", bool enableGzip = true)
    {
        ArgumentNullException.ThrowIfNull(endpoints);
        ArgumentNullException.ThrowIfNull(handler);
        var logger = endpoints.ServiceProvider.GetService<ILoggerFactory>()?.CreateLogger(typeof(PrometheusScrapeHandler).FullName!);
        return endpoints.MapGet(path, context => WriteScrapeAsync(context, handler, enableGzip, logger));
    }

    /// <summary>
    /// Maps <paramref name="healthPath"/> (200 while the process serves requests) and
    /// <paramref name="readyPath"/> (200 when <paramref name="readiness"/> says ready, else 503 with its reason).
    /// </summary>
    public static IEndpointRouteBuilder MapHealthEndpoints(
        this IEndpointRouteBuilder endpoints,
        Func<(bool Ready, string Reason)>? readiness,
        string healthPath = "/healthz",
        string readyPath = "/readyz")
    {
        ArgumentNullException.ThrowIfNull(endpoints);
        endpoints.MapGet(healthPath, () => Results.Text("ok\n"));
        endpoints.MapGet(readyPath, () =>
        {
            var (ready, reason) = readiness?.Invoke() ?? (true, "ready");
            return ready
                ? Results.Text("ready\n")
                : Results.Text((string.IsNullOrWhiteSpace(reason) ? "not ready" : reason) + "\n", statusCode: StatusCodes.Status503ServiceUnavailable);
        });
        return endpoints;
    }

    private static async Task WriteScrapeAsync(HttpContext context, PrometheusScrapeHandler handler, bool enableGzip, ILogger? logger)
    {
        PrometheusScrapeLease lease;
        try
        {
            lease = await handler.ScrapeAsync(context.RequestAborted).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (context.RequestAborted.IsCancellationRequested)
        {
            return;
        }
        catch (Exception ex) when (ex is InvalidOperationException or ObjectDisposedException)
        {
            if (logger is not null)
            {
                PrometheusLog.ScrapeFailed(logger, ex, context.Connection.RemoteIpAddress?.ToString());
            }
            context.Response.StatusCode = StatusCodes.Status503ServiceUnavailable;
            await context.Response.WriteAsync("collect failed\n", context.RequestAborted).ConfigureAwait(false);
            return;
        }

        using (lease)
        {
            var response = context.Response;
            response.ContentType = PrometheusScrapeHandler.ContentType;
            response.Headers.Vary = HeaderNames.AcceptEncoding;
            if (enableGzip && AcceptsGzip(context.Request))
            {
                response.Headers.ContentEncoding = "gzip";
                var gzip = new GZipStream(response.Body, CompressionLevel.Fastest, leaveOpen: true);
                await using (gzip.ConfigureAwait(false))
                {
                    await gzip.WriteAsync(lease.Content, context.RequestAborted).ConfigureAwait(false);
                }
            }
            else
            {
                response.ContentLength = lease.Content.Length;
                await response.Body.WriteAsync(lease.Content, context.RequestAborted).ConfigureAwait(false);
            }
        }
    }

    private static bool AcceptsGzip(HttpRequest request)
    {
        if (!request.Headers.ContainsKey(HeaderNames.AcceptEncoding))
        {
            return false;
        }

        foreach (var encoding in request.GetTypedHeaders().AcceptEncoding)
        {
            if (encoding.Value.Equals("gzip", StringComparison.OrdinalIgnoreCase) && (encoding.Quality ?? 1) > 0)
            {
                return true;
            }
        }

        return false;
    }
}
