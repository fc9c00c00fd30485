using System.Collections.Concurrent;
using System.Text;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.Logging;

namespace LogFlushMonitor.Tests.Hosting;

/// <summary>A minimal OTLP receiver on 127.0.0.1: records each export request's path, content type and body.</summary>
internal sealed class FakeOtlpReceiver : IAsyncDisposable
{
    private readonly WebApplication _app;

    private FakeOtlpReceiver(WebApplication app) => _app = app;

    public ConcurrentQueue<(string Path, string? ContentType, byte[] Body)> Requests { get; } = new();

    /// <summary>Each request's x-api-key header, as name=value.</summary>
    public ConcurrentQueue<string> Headers { get; } = new();

    /// <summary>How long the receiver waits before it answers (none unless a test wants timeouts).</summary>
    public TimeSpan Delay { get; set; }

    /// <summary>The status the receiver answers with (200 unless a test wants failures).</summary>
    public int Status { get; set; } = StatusCodes.Status200OK;

    public Uri Address => new(_app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses.First());

    public static async Task<FakeOtlpReceiver> StartAsync(bool grpc)
    {
        var builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        builder.WebHost.ConfigureKestrel(k => k.Listen(System.Net.IPAddress.Loopback, 0, l => l.Protocols = grpc ? HttpProtocols.Http2 : HttpProtocols.Http1AndHttp2));
        var app = builder.Build();
        var receiver = new FakeOtlpReceiver(app);
        app.Run(async context =>
        {
            using var ms = new MemoryStream();
            await context.Request.Body.CopyToAsync(ms);
            if (receiver.Delay > TimeSpan.Zero)
            {
                await Task.Delay(receiver.Delay, context.RequestAborted).ContinueWith(_ => { }, TaskScheduler.Default);
            }

            receiver.Requests.Enqueue((context.Request.Path, context.Request.ContentType, ms.ToArray()));
            foreach (var key in context.Request.Headers["x-api-key"])
            {
                receiver.Headers.Enqueue("x-api-key=" + key);
            }

            if (receiver.Status != StatusCodes.Status200OK)
            {
                context.Response.StatusCode = receiver.Status;
                return;
            }

            if (grpc)
            {
                // An empty ExportMetricsServiceResponse in a gRPC frame, then the status trailer.
                context.Response.ContentType = "application/grpc";
                await context.Response.Body.WriteAsync(new byte[5]);
                context.Response.AppendTrailer("grpc-status", "0");
            }
            else
            {
                context.Response.ContentType = "application/x-protobuf";
                context.Response.StatusCode = StatusCodes.Status200OK;
            }
        });
        await app.StartAsync();
        return receiver;
    }

    public async Task<bool> WaitForAsync(Func<(string Path, string? ContentType, byte[] Body), bool> match, TimeSpan timeout)
    {
        try
        {
            await Eventually.Until(() => Requests.Any(match), "an OTLP export that matches", timeout);
            return true;
        }
        catch (TimeoutException)
        {
            return false;
        }
    }

    public async ValueTask DisposeAsync()
    {
        await _app.StopAsync();
        await _app.DisposeAsync();
    }
}

[Collection("host")]
public class OtlpExportTests
{
    private static bool Holds(byte[] body, string text) => body.AsSpan().IndexOf(Encoding.UTF8.GetBytes(text)) >= 0;

    [Theory]
    [InlineData("http/protobuf")]
    [InlineData("grpc")]
    public async Task Metrics_are_pushed_over_otlp_and_the_last_export_happens_at_shutdown(string protocol)
    {
        var grpc = protocol == "grpc";
        await using var receiver = await FakeOtlpReceiver.StartAsync(grpc);
        var host = await RunningHost.StartAsync(new()
        {
            ["Sources:Simulate:Scenario"] = "autocommit",
            ["Sources:Simulate:Speed"] = "10",
            ["Exporters:Otlp:Enabled"] = "true",
            ["Exporters:Otlp:Protocol"] = protocol,
            ["Exporters:Otlp:Endpoint"] = receiver.Address.ToString(),
            ["Exporters:Otlp:Interval"] = "00:00:01",
        });

        var expectedPath = grpc ? "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export" : "/v1/metrics";
        var arrived = await receiver.WaitForAsync(
            r => r.Path == expectedPath && Holds(r.Body, "sqlserver.log.flush.write_size") && Holds(r.Body, "sqlserver.instance.name"),
            TimeSpan.FromSeconds(30));
        Assert.True(arrived, $"no OTLP export with the write-size histogram arrived; got {receiver.Requests.Count} requests: "
            + string.Join(", ", receiver.Requests.Select(r => $"{r.Path} {r.ContentType} {r.Body.Length} B")));
        var first = receiver.Requests.First(r => r.Path == expectedPath);
        Assert.StartsWith(grpc ? "application/grpc" : "application/x-protobuf", first.ContentType, StringComparison.Ordinal);
        Assert.True(Holds(first.Body, "service.name") && Holds(first.Body, "logflushmonitor"), "the resource is exported");

        var before = receiver.Requests.Count;
        await host.DisposeAsync(); // stop: the last values are exported before the process would exit
        Assert.True(receiver.Requests.Count > before, "no final export at shutdown");
    }

    [Fact]
    public async Task Without_a_configured_timeout_OTEL_EXPORTER_OTLP_TIMEOUT_applies()
    {
        await using var receiver = await FakeOtlpReceiver.StartAsync(grpc: false);
        receiver.Delay = TimeSpan.FromSeconds(5); // under the 10 s default, over the variable's 300 ms
        Environment.SetEnvironmentVariable("OTEL_EXPORTER_OTLP_TIMEOUT", "300");
        try
        {
            await using var host = await RunningHost.StartAsync(new()
            {
                ["Sources:Simulate:Scenario"] = "autocommit",
                ["Exporters:Otlp:Enabled"] = "true",
                ["Exporters:Otlp:Protocol"] = "http/protobuf",
                ["Exporters:Otlp:Endpoint"] = receiver.Address.ToString(),
                ["Exporters:Otlp:Interval"] = "00:00:01",
            });

            var text = await host.ScrapeUntilAsync(
                t => t.Contains("sqlserver_monitor_export_failures_total{", StringComparison.Ordinal) && t.Contains("error_type=\"timeout\"", StringComparison.Ordinal),
                TimeSpan.FromSeconds(30));
            Assert.Contains("exporter=\"otlp\"", text, StringComparison.Ordinal);
        }
        finally
        {
            Environment.SetEnvironmentVariable("OTEL_EXPORTER_OTLP_TIMEOUT", null);
        }
    }
}
