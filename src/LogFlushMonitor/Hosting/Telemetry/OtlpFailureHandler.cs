using System.Globalization;
using System.Net;
using System.Net.Sockets;
using LogFlushMonitor.Core.Health;

namespace LogFlushMonitor.Hosting;

/// <summary>
/// Sits under the OTLP exporter's HttpClient (both protocols go over it) and sees every export request: a failure
/// (nothing listening, an HTTP or gRPC error status, a timeout) is counted in <see cref="ExportHealth"/>
/// (sqlserver.monitor.export.failures) and logged, at most once a minute with the count in between, instead of the
/// exporter's silence. <paramref name="succeeded"/> is told of every export the collector accepted.
/// </summary>
internal sealed partial class OtlpFailureHandler(ExportHealth health, Uri endpoint, TimeProvider time, ILogger logger, HttpMessageHandler? inner = null, Action? succeeded = null)
    : DelegatingHandler(inner ?? new SocketsHttpHandler { PooledConnectionLifetime = TimeSpan.FromMinutes(5) })
{
    /// <summary>The exporter attribute value.</summary>
    public const string Exporter = "otlp";

    private static readonly TimeSpan LogEvery = TimeSpan.FromMinutes(1);
    private readonly Lock _gate = new();
    private long _lastLogged = long.MinValue;
    private long _unlogged;

    // The exporter sends synchronously (HttpClient.Send) on .NET; both paths are watched.
    protected override HttpResponseMessage Send(HttpRequestMessage request, CancellationToken cancellationToken)
    {
        try
        {
            return Observe(base.Send(request, cancellationToken));
        }
        catch (Exception e) when (e is HttpRequestException or OperationCanceledException)
        {
            Failed(Classify(e), e.GetBaseException().Message);
            throw;
        }
    }

    protected override async Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, CancellationToken cancellationToken)
    {
        try
        {
            return Observe(await base.SendAsync(request, cancellationToken).ConfigureAwait(false));
        }
        catch (Exception e) when (e is HttpRequestException or OperationCanceledException)
        {
            Failed(Classify(e), e.GetBaseException().Message);
            throw;
        }
    }

    private HttpResponseMessage Observe(HttpResponseMessage response)
    {
        if (!response.IsSuccessStatusCode)
        {
            Failed("http_" + ((int)response.StatusCode).ToString(CultureInfo.InvariantCulture), $"HTTP {(int)response.StatusCode} {response.ReasonPhrase}");
        }
        else if (GrpcStatus(response) is { } status and not "0")
        {
            Failed("grpc_" + status, "gRPC status " + status);
        }
        else
        {
            succeeded?.Invoke();
        }

        return response;
    }

    /// <summary>A gRPC error sent without a body has its status in the headers ("trailers-only").</summary>
    private static string? GrpcStatus(HttpResponseMessage response) =>
        response.Headers.TryGetValues("grpc-status", out var values) ? values.FirstOrDefault() : null;

    private static string Classify(Exception e) => e switch
    {
        OperationCanceledException => "timeout",
        HttpRequestException { InnerException: SocketException { SocketErrorCode: SocketError.ConnectionRefused or SocketError.HostNotFound or SocketError.HostUnreachable or SocketError.NetworkUnreachable } } => "unreachable",
        HttpRequestException { HttpRequestError: HttpRequestError.ConnectionError or HttpRequestError.NameResolutionError } => "unreachable",
        HttpRequestException { StatusCode: HttpStatusCode code } => "http_" + ((int)code).ToString(CultureInfo.InvariantCulture),
        _ => "failed",
    };

    private void Failed(string reason, string detail)
    {
        health.Failed(Exporter, reason);
        long suppressed;
        lock (_gate)
        {
            var now = time.GetTimestamp();
            if (_lastLogged != long.MinValue && time.GetElapsedTime(_lastLogged, now) < LogEvery)
            {
                _unlogged++;
                return;
            }

            _lastLogged = now;
            suppressed = _unlogged;
            _unlogged = 0;
        }

        LogExportFailed(logger, endpoint, reason, detail, suppressed);
    }

    [LoggerMessage(EventId = 103, Level = LogLevel.Warning,
        Message = "OTLP export to {Endpoint} failed ({ErrorType}: {Detail}); failures are logged at most once a minute ({Suppressed} not logged since the previous message) and all counted in sqlserver.monitor.export.failures")]
    private static partial void LogExportFailed(ILogger logger, Uri endpoint, string errorType, string detail, long suppressed);
}
