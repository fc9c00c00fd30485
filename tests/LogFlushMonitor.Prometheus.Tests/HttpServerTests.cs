using System.Diagnostics;
using System.IO.Compression;
using System.Net;
using System.Net.Http.Headers;

namespace LogFlushMonitor.Prometheus.Tests;

public sealed class HttpServerTests
{
    private static PrometheusHttpServer NewServer(PrometheusScrapeHandler handler, Func<(bool, string)>? readiness = null) =>
        new(handler, new PrometheusHttpServerOptions { Urls = "http://127.0.0.1:0" }, readiness);

    [Fact]
    public async Task Scrape_endpoint_serves_the_handler_text_with_the_0_0_4_content_type()
    {
        using var sample = new SampleTelemetry();
        await using var server = NewServer(sample.Handler);
        await server.StartAsync();
        Assert.NotEqual(0, server.Port);

        using var client = new HttpClient { BaseAddress = new Uri($"http://127.0.0.1:{server.Port}") };
        using var response = await client.GetAsync(new Uri("/metrics", UriKind.Relative));
        var body = await response.Content.ReadAsStringAsync();

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal("text/plain; version=0.0.4; charset=utf-8", response.Content.Headers.ContentType?.ToString());
        Assert.Contains("sqlserver_log_flush_write_size_bytes_bucket{sqlserver_database_name=\"sales\",sqlserver_instance_name=\"SQL01\"", body);
        Assert.Equal(await sample.Handler.ScrapeTextAsync(), body);
    }

    [Fact]
    public async Task Scrape_is_gzip_compressed_when_the_scraper_accepts_gzip()
    {
        using var sample = new SampleTelemetry();
        await using var server = NewServer(sample.Handler);
        await server.StartAsync();
        using var client = new HttpClient(new HttpClientHandler { AutomaticDecompression = DecompressionMethods.None });

        using var request = new HttpRequestMessage(HttpMethod.Get, $"http://127.0.0.1:{server.Port}/metrics");
        request.Headers.AcceptEncoding.Add(new StringWithQualityHeaderValue("gzip"));
        using var response = await client.SendAsync(request);
        Assert.Equal(["gzip"], response.Content.Headers.ContentEncoding);

        await using var gzip = new GZipStream(await response.Content.ReadAsStreamAsync(), CompressionMode.Decompress);
        using var reader = new StreamReader(gzip);
        Assert.Equal(await sample.Handler.ScrapeTextAsync(), await reader.ReadToEndAsync());
    }

    [Fact]
    public async Task Healthz_is_ok_and_readyz_follows_the_readiness_check_with_its_reason()
    {
        using var sample = new SampleTelemetry();
        var ready = (Ready: false, Reason: "no SQL Server session yet");
        await using var server = NewServer(sample.Handler, () => ready);
        await server.StartAsync();
        using var client = new HttpClient { BaseAddress = new Uri($"http://127.0.0.1:{server.Port}") };

        using (var health = await client.GetAsync(new Uri("/healthz", UriKind.Relative)))
        {
            Assert.Equal(HttpStatusCode.OK, health.StatusCode);
        }

        using (var notReady = await client.GetAsync(new Uri("/readyz", UriKind.Relative)))
        {
            Assert.Equal(HttpStatusCode.ServiceUnavailable, notReady.StatusCode);
            Assert.Equal("no SQL Server session yet\n", await notReady.Content.ReadAsStringAsync());
        }

        ready = (true, string.Empty);
        using var nowReady = await client.GetAsync(new Uri("/readyz", UriKind.Relative));
        Assert.Equal(HttpStatusCode.OK, nowReady.StatusCode);
    }

    [Fact]
    public async Task Stopped_server_no_longer_accepts_connections()
    {
        using var sample = new SampleTelemetry();
        var server = NewServer(sample.Handler);
        await server.StartAsync();
        var port = server.Port;
        await server.StopAsync();
        await server.DisposeAsync();

        using var client = new HttpClient();
        await Assert.ThrowsAsync<HttpRequestException>(() => client.GetAsync(new Uri($"http://127.0.0.1:{port}/healthz")));
    }

    [Fact]
    public async Task Failed_collect_answers_503_and_the_server_keeps_serving()
    {
        var sample = new SampleTelemetry();
        await using var server = NewServer(sample.Handler);
        await server.StartAsync();
        using var client = new HttpClient { BaseAddress = new Uri($"http://127.0.0.1:{server.Port}") };
        sample.Dispose();

        using var failed = await client.GetAsync(new Uri("/metrics", UriKind.Relative));
        Assert.Equal(HttpStatusCode.ServiceUnavailable, failed.StatusCode);
        Assert.Equal("collect failed\n", await failed.Content.ReadAsStringAsync());

        using var health = await client.GetAsync(new Uri("/healthz", UriKind.Relative));
        Assert.Equal(HttpStatusCode.OK, health.StatusCode);
    }

    [SkippableFact]
    public async Task Promtool_check_metrics_accepts_a_real_http_scrape()
    {
        Skip.IfNot(File.Exists(ToolPaths.Promtool), $"promtool not found at {ToolPaths.Promtool} (Debian package 'prometheus'; CI installs it)");
        using var sample = new SampleTelemetry();
        await using var server = NewServer(sample.Handler);
        await server.StartAsync();
        using var client = new HttpClient();
        var body = await client.GetStringAsync(new Uri($"http://127.0.0.1:{server.Port}/metrics"));

        var start = new ProcessStartInfo(ToolPaths.Promtool, ["check", "metrics"])
        {
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        using var promtool = Process.Start(start)!;
        await promtool.StandardInput.WriteAsync(body);
        promtool.StandardInput.Close();
        var stdout = promtool.StandardOutput.ReadToEndAsync();
        var stderr = promtool.StandardError.ReadToEndAsync();
        await promtool.WaitForExitAsync(new CancellationTokenSource(TimeSpan.FromSeconds(20)).Token);

        Assert.True(promtool.ExitCode == 0, $"promtool exit {promtool.ExitCode}: {await stdout}{await stderr}\n---\n{body}");
        Assert.Contains("sqlserver_log_flushes_total", body);
    }
}
