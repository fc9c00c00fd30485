using System.IO.Compression;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Microsoft.Net.Http.Headers;

namespace LogFlushMonitor.Prometheus;

/// <summary>Maps the scrape endpoint onto any ASP.NET Core app (the app owns the server; this library owns none).</summary>
public static class PrometheusEndpointRouteBuilderExtensions
{
    /// <summary>
    /// Serves the handler's text at <paramref name="path"/> for GET, gzip-compressed when the scraper accepts gzip, in the
    /// protobuf exposition when its Accept header prefers that (<see cref="Negotiate"/>), else in text format 0.0.4; a
    /// scraper that reads slower than <paramref name="sendLimits"/> allow (the defaults when null) is dropped. HEAD
    /// answers as GET (status, type, length) without the text; other methods get 405.
    /// </summary>
    public static IEndpointConventionBuilder MapPrometheusScrapingEndpoint(
        this IEndpointRouteBuilder endpoints, PrometheusScrapeHandler handler, string path = "/metrics", bool enableGzip = true, ScrapeSendLimits? sendLimits = null)
    {
        ArgumentNullException.ThrowIfNull(endpoints);
        ArgumentNullException.ThrowIfNull(handler);
        var logger = endpoints.ServiceProvider.GetService<ILoggerFactory>()?.CreateLogger(typeof(PrometheusScrapeHandler).FullName!);
        var limits = sendLimits ?? new ScrapeSendLimits();
        return endpoints.MapMethods(path, GetAndHead, context => WriteScrapeAsync(context, handler, enableGzip, limits, logger));
    }

    private static readonly string[] GetAndHead = [HttpMethods.Get, HttpMethods.Head];

    private static async Task WriteScrapeAsync(HttpContext context, PrometheusScrapeHandler handler, bool enableGzip, ScrapeSendLimits limits, ILogger? logger)
    {
        var aborted = context.RequestAborted;
        PrometheusScrape scrape;
        try
        {
            scrape = await handler.ScrapeAsync(Negotiate(context.Request), aborted).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (aborted.IsCancellationRequested)
        {
            return;
        }
        catch (Exception ex) when (ex is InvalidOperationException or ObjectDisposedException)
        {
            // Nothing was sent yet: the scraper gets an error status, not an empty or partial text.
            if (logger is not null)
            {
                PrometheusLog.ScrapeFailed(logger, ex, context.Connection.RemoteIpAddress?.ToString());
            }

            context.Response.StatusCode = StatusCodes.Status503ServiceUnavailable;
            await context.Response.WriteAsync("collect failed\n", aborted).ConfigureAwait(false);
            return;
        }

        await using (scrape.ConfigureAwait(false))
        {
            var response = context.Response;
            response.ContentType = scrape.ContentType;
            response.Headers.Vary = VaryHeader;

            // The whole text is rendered by now: its plain length is known.
            var gzip = enableGzip && AcceptsGzip(context.Request);
            if (gzip)
            {
                response.Headers.ContentEncoding = "gzip";
            }
            else
            {
                response.ContentLength = scrape.Length;
            }

            if (HttpMethods.IsHead(context.Request.Method))
            {
                // The headers a GET would get, and nothing after them.
                return;
            }

            // A scraper that does not take the text at the minimum rate is dropped: it must not hold the text (and its
            // memory) for hours. Other scrapes never wait on it: each sends the shared text on its own.
            var budget = limits.BudgetFor(scrape.Length);
            using var sending = CancellationTokenSource.CreateLinkedTokenSource(aborted);
            sending.CancelAfter(budget);
            var compressor = gzip ? new GZipStream(response.Body, CompressionLevel.Fastest, leaveOpen: true) : null;
            try
            {
                await scrape.CopyToAsync(compressor ?? response.Body, sending.Token).ConfigureAwait(false);
                if (compressor is not null)
                {
                    // Writes the gzip trailer: only a complete text gets one.
                    await compressor.DisposeAsync().ConfigureAwait(false);
                    compressor = null;
                }
            }
            catch (OperationCanceledException) when (sending.IsCancellationRequested && !aborted.IsCancellationRequested)
            {
                if (logger is not null)
                {
                    PrometheusLog.SlowScraperDropped(logger, context.Connection.RemoteIpAddress?.ToString(), scrape.Length, budget.TotalSeconds, limits.MinimumBytesPerSecond);
                }

                context.Abort();
            }
            catch (Exception ex) when (ex is IOException || (ex is OperationCanceledException && aborted.IsCancellationRequested))
            {
                // The scraper went away (the abort may not be signalled yet when the write fails); the scrape's
                // disposal lets the collect finish without sending.
            }
            catch (InvalidOperationException ex)
            {
                // The collect failed after part of the text went out: cut the connection, so the scraper sees a failed
                // scrape rather than a shorter text that parses.
                if (logger is not null)
                {
                    PrometheusLog.ScrapeFailed(logger, ex, context.Connection.RemoteIpAddress?.ToString());
                }

                context.Abort();
            }
            finally
            {
                if (compressor is not null)
                {
                    await DisposeQuietlyAsync(compressor).ConfigureAwait(false);
                }
            }
        }
    }

    /// <summary>Frees the compressor of a scrape that did not finish; its trailer goes nowhere (the connection is cut or gone).</summary>
    private static async Task DisposeQuietlyAsync(GZipStream compressor)
    {
        try
        {
            await compressor.DisposeAsync().ConfigureAwait(false);
        }
        catch (Exception ex) when (ex is IOException or InvalidOperationException or OperationCanceledException or ObjectDisposedException)
        {
            // Nothing to tell anyone: the scrape already failed and was logged, or the scraper left.
        }
    }

    private static readonly string VaryHeader = HeaderNames.Accept + ", " + HeaderNames.AcceptEncoding;

    /// <summary>
    /// The protobuf exposition when the Accept header lists
    /// <c>application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited</c> with a quality
    /// above zero and no lower than the best it gives text/plain (or text/*, */*); text format 0.0.4 otherwise, and
    /// without an Accept header. A Prometheus with native histograms enabled lists protobuf first; one without never
    /// lists it. The other types it may list (OpenMetrics) are not served, so they do not take part.
    /// </summary>
    internal static PrometheusFormat Negotiate(HttpRequest request)
    {
        if (!request.Headers.ContainsKey(HeaderNames.Accept))
        {
            return PrometheusFormat.Text;
        }

        double protobuf = 0, text = 0;
        foreach (var media in request.GetTypedHeaders().Accept)
        {
            var quality = media.Quality ?? 1;
            var type = media.MediaType.Value;
            if (string.Equals(type, "application/vnd.google.protobuf", StringComparison.OrdinalIgnoreCase)
                && HasParameter(media, "proto", "io.prometheus.client.MetricFamily")
                && HasParameter(media, "encoding", "delimited"))
            {
                protobuf = Math.Max(protobuf, quality);
            }
            else if (type is not null && (type.Equals("text/plain", StringComparison.OrdinalIgnoreCase) || type is "text/*" or "*/*"))
            {
                text = Math.Max(text, quality);
            }
        }

        return protobuf > 0 && protobuf >= text ? PrometheusFormat.Protobuf : PrometheusFormat.Text;
    }

    private static bool HasParameter(MediaTypeHeaderValue media, string name, string value)
    {
        foreach (var parameter in media.Parameters)
        {
            if (parameter.Name.Equals(name, StringComparison.OrdinalIgnoreCase))
            {
                return parameter.Value.Equals(value, StringComparison.Ordinal);
            }
        }

        return false;
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
