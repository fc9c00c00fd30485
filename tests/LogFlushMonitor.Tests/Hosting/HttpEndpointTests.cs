using System.Net;
using LogFlushMonitor.Hosting;

namespace LogFlushMonitor.Tests.Hosting;

/// <summary>
/// The one host's HTTP server: /healthz and /readyz (ASP.NET Core health checks, same codes and bodies as before),
/// /metrics only with Prometheus, HEAD as GET without a body, nothing listening with Http:Enabled=false.
/// </summary>
[Collection("host")]
public sealed class HttpEndpointTests
{
    [Theory]
    [InlineData("/healthz")]
    [InlineData("/readyz")]
    [InlineData("/metrics")]
    public async Task Head_answers_as_get_without_a_body(string path)
    {
        await using var host = await RunningHost.StartAsync(new() { ["Sources:Simulate:Scenario"] = "autocommit" });
        await Eventually.Until(async () => (await host.Http.GetAsync("/readyz")).IsSuccessStatusCode, "/readyz ready", TimeSpan.FromSeconds(30));

        using var get = await host.Http.GetAsync(path);
        using var head = await host.Http.SendAsync(new HttpRequestMessage(HttpMethod.Head, path));

        Assert.Equal(HttpStatusCode.OK, head.StatusCode);
        Assert.Equal(get.StatusCode, head.StatusCode);
        Assert.Equal(get.Content.Headers.ContentType, head.Content.Headers.ContentType);
        Assert.True(head.Content.Headers.ContentLength > 0, $"HEAD {path}: no Content-Length");
        if (path != "/metrics")
        {
            // The scrape's text changes between two collects; the health texts do not.
            Assert.Equal((await get.Content.ReadAsByteArrayAsync()).Length, head.Content.Headers.ContentLength);
        }

        Assert.Empty(await head.Content.ReadAsByteArrayAsync());
    }

    [Fact]
    public async Task Healthz_is_ok_and_readyz_answers_503_with_the_json_report_while_a_component_is_not_ready()
    {
        await using var host = await RunningHost.StartAsync(
            new() { ["Sources:Simulate:Scenario"] = "autocommit" },
            beforeStart: services => services.GetRequiredService<Readiness>().NotReady("test", "held back by the test"));

        using (var health = await host.Http.GetAsync("/healthz"))
        {
            Assert.Equal(HttpStatusCode.OK, health.StatusCode);
            Assert.Equal("ok\n", await health.Content.ReadAsStringAsync());
            Assert.Equal("text/plain; charset=utf-8", health.Content.Headers.ContentType?.ToString());
        }

        using (var notReady = await host.Http.GetAsync("/readyz"))
        {
            Assert.Equal(HttpStatusCode.ServiceUnavailable, notReady.StatusCode);
            Assert.Equal("application/json; charset=utf-8", notReady.Content.Headers.ContentType?.ToString());
            var body = await notReady.Content.ReadAsStringAsync();
            Assert.StartsWith("{\"status\":\"not_ready\"", body, StringComparison.Ordinal);
            Assert.Contains("\"test\":{\"state\":\"held back by the test\"}", body, StringComparison.Ordinal);
            Assert.EndsWith("}\n", body, StringComparison.Ordinal);
        }

        host.Host.Services.GetRequiredService<Readiness>().Ready("test");
        await Eventually.Until(async () => (await host.Http.GetAsync("/readyz")).StatusCode == HttpStatusCode.OK, "/readyz 200", TimeSpan.FromSeconds(30));
        Assert.StartsWith("{\"status\":\"ready\"", await host.Http.GetStringAsync("/readyz"), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Other_methods_get_405_naming_get_and_head()
    {
        await using var host = await RunningHost.StartAsync(new() { ["Sources:Simulate:Scenario"] = "autocommit" });
        foreach (var path in new[] { "/healthz", "/readyz", "/metrics" })
        {
            using var response = await host.Http.PostAsync(path, null);
            Assert.Equal(HttpStatusCode.MethodNotAllowed, response.StatusCode);
            Assert.Equal(["GET", "HEAD"], response.Content.Headers.Allow);
        }
    }

    [Fact]
    public async Task Otlp_only_serves_health_and_readiness_and_no_metrics()
    {
        await using var receiver = await FakeOtlpReceiver.StartAsync(grpc: false);
        await using var host = await RunningHost.StartAsync(new()
        {
            ["Sources:Simulate:Scenario"] = "autocommit",
            ["Exporters:Prometheus:Enabled"] = "false",
            ["Exporters:Otlp:Enabled"] = "true",
            ["Exporters:Otlp:Protocol"] = "http/protobuf",
            ["Exporters:Otlp:Endpoint"] = receiver.Address.ToString(),
            ["Exporters:Otlp:Interval"] = "00:00:01",
        });

        Assert.Equal("ok\n", await host.Http.GetStringAsync("/healthz"));
        using (var metrics = await host.Http.GetAsync("/metrics"))
        {
            Assert.Equal(HttpStatusCode.NotFound, metrics.StatusCode);
        }

        Assert.True(await receiver.WaitForAsync(r => r.Path == "/v1/metrics", TimeSpan.FromSeconds(30)), "no export reached the collector");
    }

    [Fact]
    public async Task With_http_off_nothing_listens_and_otlp_still_exports()
    {
        await using var receiver = await FakeOtlpReceiver.StartAsync(grpc: false);
        await using var host = await RunningHost.StartAsync(new()
        {
            ["Sources:Simulate:Scenario"] = "autocommit",
            ["Http:Enabled"] = "false",
            ["Exporters:Prometheus:Enabled"] = "false",
            ["Exporters:Otlp:Enabled"] = "true",
            ["Exporters:Otlp:Protocol"] = "http/protobuf",
            ["Exporters:Otlp:Endpoint"] = receiver.Address.ToString(),
            ["Exporters:Otlp:Interval"] = "00:00:01",
        });

        // Before, the default listener of an ASP.NET Core app would have taken http://localhost:5000.
        Assert.Empty(MonitorHost.HttpAddresses(host.Host.Services));
        Assert.True(await receiver.WaitForAsync(r => r.Path == "/v1/metrics", TimeSpan.FromSeconds(30)), "no export reached the collector");
    }

    [Fact]
    public async Task A_stopped_host_no_longer_accepts_connections()
    {
        var host = await RunningHost.StartAsync(new() { ["Sources:Simulate:Scenario"] = "autocommit" });
        var address = host.BaseAddress;
        Assert.Equal("ok\n", await host.Http.GetStringAsync("/healthz"));
        await host.DisposeAsync();

        using var client = new HttpClient();
        await Assert.ThrowsAsync<HttpRequestException>(() => client.GetAsync(new Uri(address, "/healthz")));
    }
}
