using System.CommandLine;
using LogFlushMonitor.Analysis.Commands;
using System.Globalization;
using System.Net.Sockets;
using LogFlushMonitor.Hosting;

namespace LogFlushMonitor.Commands;

/// <summary>
/// <c>logflushmonitor health</c>: the container HEALTHCHECK (the runtime image has no curl). GETs a URL and exits 0 on
/// 2xx, 1 otherwise with one line saying why, 2 for a bad URL or timeout. It runs every few seconds, so it starts no
/// host, reads no configuration and sets up no logging.
/// </summary>
internal static class HealthCommand
{
    /// <summary>The monitor's liveness endpoint as seen from inside its container: /healthz on the default Http:Urls.</summary>
    public static readonly string DefaultUrl = new HttpOptions().Urls.TrimEnd('/') + "/healthz";

    /// <summary>The longest --timeout.</summary>
    private static readonly TimeSpan MaxTimeout = TimeSpan.FromHours(1);

    public static Command Create()
    {
        var url = new Option<string>("--url") { Description = "The URL to GET (http or https).", DefaultValueFactory = _ => DefaultUrl };
        var timeout = new Option<string>("--timeout") { Description = "How long to wait for the answer, e.g. 3s or 500ms.", DefaultValueFactory = _ => "3s" };
        var command = new Command("health", "Ask an HTTP endpoint (by default the monitor's /healthz) whether it is healthy: exit 0 on a 2xx answer, 1 otherwise.")
        {
            url, timeout,
        };
        command.SetAction(async (parse, cancellationToken) =>
        {
            var text = parse.GetValue(url) ?? "";
            if (!Uri.TryCreate(text, UriKind.Absolute, out var uri) || (uri.Scheme != Uri.UriSchemeHttp && uri.Scheme != Uri.UriSchemeHttps))
            {
                await parse.Error().WriteLineAsync($"--url '{text}' is not an http or https URL. Write e.g. {DefaultUrl}.").ConfigureAwait(false);
                return ExitCodes.Configuration;
            }

            // The HTTP client's connect timeout stops at about 24 days; a probe has no use for more than an hour.
            if (!DurationParser.TryParse(parse.GetValue(timeout), out var wait) || wait < TimeSpan.FromMilliseconds(1) || wait > MaxTimeout)
            {
                await parse.Error().WriteLineAsync($"--timeout '{LogEscaping.Escape(parse.GetValue(timeout) ?? "")}' is not a duration from 1ms to 1h. Write e.g. 3s or 500ms.").ConfigureAwait(false);
                return ExitCodes.Configuration;
            }

            var (healthy, line) = await ProbeAsync(uri, wait, cancellationToken).ConfigureAwait(false);
            await (healthy ? parse.Out() : parse.Error()).WriteLineAsync(line).ConfigureAwait(false);
            return healthy ? ExitCodes.Ok : ExitCodes.Failure;
        });
        return command;
    }

    /// <summary>GETs <paramref name="uri"/>; true for a 2xx answer within <paramref name="timeout"/>, with one line saying what happened.</summary>
    public static async Task<(bool Healthy, string Line)> ProbeAsync(Uri uri, TimeSpan timeout, CancellationToken cancellationToken)
    {
        // No proxy: a container's HTTP_PROXY must not send a probe of 127.0.0.1 elsewhere.
        using var handler = new SocketsHttpHandler { UseProxy = false, ConnectTimeout = timeout, AllowAutoRedirect = false };
        using var client = new HttpClient(handler) { Timeout = Timeout.InfiniteTimeSpan };
        using var deadline = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        deadline.CancelAfter(timeout);
        var seconds = timeout.TotalSeconds.ToString("0.###", CultureInfo.InvariantCulture);
        try
        {
            using var response = await client.GetAsync(uri, HttpCompletionOption.ResponseHeadersRead, deadline.Token).ConfigureAwait(false);
            var status = $"HTTP {(int)response.StatusCode} {response.ReasonPhrase}".TrimEnd();
            return response.IsSuccessStatusCode
                ? (true, $"healthy: {status} from {uri}")
                : (false, $"unhealthy: {status} from {uri}");
        }
        catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
        {
            return (false, $"unhealthy: no answer from {uri} within {seconds} s (timeout)");
        }
        catch (HttpRequestException e) when (e.InnerException is SocketException { SocketErrorCode: SocketError.ConnectionRefused })
        {
            return (false, $"unhealthy: connection refused by {uri.Authority}: nothing listens there (is the monitor running, with Http:Urls on that port?)");
        }
        catch (HttpRequestException e) when (e.InnerException is SocketException { SocketErrorCode: SocketError.TimedOut })
        {
            return (false, $"unhealthy: no answer from {uri} within {seconds} s (timeout)");
        }
        catch (HttpRequestException e)
        {
            var detail = e.InnerException is SocketException s ? s.Message : e.Message;
            return (false, $"unhealthy: {uri}: {detail.TrimEnd('.')}");
        }
    }
}
