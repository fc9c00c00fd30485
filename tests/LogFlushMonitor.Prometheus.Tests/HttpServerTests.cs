using System.Diagnostics;
using System.IO.Compression;
using System.Net;
using System.Net.Http.Headers;
using System.Text;

namespace LogFlushMonitor.Prometheus.Tests;

/// <summary>The scrape endpoint over real HTTP, mapped onto a minimal app (<see cref="ScrapeServer"/>).</summary>
public sealed class HttpServerTests
{

    [Fact]
    public async Task Scrape_endpoint_serves_the_handler_text_with_the_0_0_4_content_type()
    {
        using var sample = new SampleTelemetry();
        await using var server = await ScrapeServer.StartAsync(sample.Handler);
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
    public async Task Head_on_the_scrape_answers_as_get_without_the_text()
    {
        using var sample = new SampleTelemetry();
        await using var server = await ScrapeServer.StartAsync(sample.Handler);
        using var client = new HttpClient { BaseAddress = new Uri($"http://127.0.0.1:{server.Port}") };

        using var get = await client.GetAsync(new Uri("/metrics", UriKind.Relative));
        using var head = await client.SendAsync(new HttpRequestMessage(HttpMethod.Head, new Uri("/metrics", UriKind.Relative)));

        // Before: 405 (GET only), which uptime checkers and load balancers probing with HEAD take for a failure.
        Assert.Equal(HttpStatusCode.OK, head.StatusCode);
        Assert.Equal(get.Content.Headers.ContentType, head.Content.Headers.ContentType);
        Assert.Equal((await get.Content.ReadAsByteArrayAsync()).Length, head.Content.Headers.ContentLength);
        Assert.Empty(await head.Content.ReadAsByteArrayAsync());
    }

    [Fact]
    public async Task A_slow_reader_delays_no_other_scrape_and_is_dropped_below_the_minimum_rate()
    {
        using var large = new LargeTelemetry(counters: 40);
        var limits = new ScrapeSendLimits { MinimumBytesPerSecond = 1 << 20, GracePeriod = TimeSpan.FromSeconds(1) };
        await using var server = await ScrapeServer.StartAsync(large.Handler, limits);
        var expected = await large.Handler.ScrapeTextAsync();
        Assert.True(expected.Length > 3_000_000, $"the text is only {expected.Length} bytes");

        // The slow reader: a small receive window, 1 KB every 100 ms (10 KB/s) of a text of several MB.
        using var slow = new System.Net.Sockets.Socket(System.Net.Sockets.SocketType.Stream, System.Net.Sockets.ProtocolType.Tcp) { ReceiveBufferSize = 1024 };
        await slow.ConnectAsync(IPAddress.Loopback, server.Port);
        await slow.SendAsync(Encoding.ASCII.GetBytes($"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:{server.Port}\r\n\r\n"));
        var slowRead = 0L;
        var dropped = Task.Run(async () =>
        {
            var buffer = new byte[1024];
            try
            {
                while (true)
                {
                    var n = await slow.ReceiveAsync(buffer);
                    if (n == 0)
                    {
                        return true;
                    }

                    slowRead += n;
                    await Task.Delay(100);
                }
            }
            catch (System.Net.Sockets.SocketException)
            {
                return true; // reset: dropped
            }
        });
        await Eventually.Until(() => Interlocked.Read(ref slowRead) > 0, "the slow reader to get its first bytes", TimeSpan.FromSeconds(10));

        // Six scrapes side by side while the slow one holds its text: each completes within a small bound. Before, they
        // waited for the slow reader's turn (6 of 6 timed out over 70 s with a 10 MB text at 1 KB/s).
        using var client = new HttpClient { BaseAddress = new Uri($"http://127.0.0.1:{server.Port}"), Timeout = TimeSpan.FromSeconds(30) };
        var timer = Stopwatch.StartNew();
        var texts = await Task.WhenAll(Enumerable.Range(0, 6).Select(_ => client.GetStringAsync(new Uri("/metrics", UriKind.Relative))));
        Assert.True(timer.Elapsed < TimeSpan.FromSeconds(5), $"six scrapes took {timer.Elapsed} beside the slow reader");
        Assert.All(texts, t => Assert.Equal(expected, t));

        // The slow reader is cut once its budget (1 s + length at 1 MB/s) is spent, long before it could read the text.
        var budget = limits.BudgetFor(Encoding.UTF8.GetByteCount(expected));
        Assert.True(await dropped.WaitAsync(budget + TimeSpan.FromSeconds(15)), "the slow reader was not dropped");
        Assert.True(Interlocked.Read(ref slowRead) < expected.Length, "the slow reader got the whole text");
    }

    [Fact]
    public async Task Scrape_is_gzip_compressed_when_the_scraper_accepts_gzip()
    {
        using var sample = new SampleTelemetry();
        await using var server = await ScrapeServer.StartAsync(sample.Handler);
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
    public async Task Gzip_scrape_of_a_text_many_buffers_long_decompresses_to_exactly_the_plain_text()
    {
        using var large = new LargeTelemetry();
        await using var server = await ScrapeServer.StartAsync(large.Handler);
        using var client = new HttpClient(new HttpClientHandler { AutomaticDecompression = DecompressionMethods.None });
        var url = new Uri($"http://127.0.0.1:{server.Port}/metrics");

        var plain = await client.GetByteArrayAsync(url);
        var (encoding, gzipped) = await GetAsync(client, url, "gzip");

        Assert.Equal("gzip", encoding);
        Assert.True(plain.Length > 20 * PrometheusScrapeHandler.ChunkSize, $"the text is only {plain.Length} bytes");
        Assert.True(gzipped.Length < plain.Length / 5, $"gzip gave {gzipped.Length} bytes for {plain.Length}");
        Assert.Equal(plain, Gunzip(gzipped));
        Assert.Equal(await large.Handler.ScrapeTextAsync(), Encoding.UTF8.GetString(plain));
    }

    [Fact]
    public async Task Concurrent_http_scrapes_plain_and_gzip_each_receive_the_whole_text()
    {
        using var large = new LargeTelemetry(counters: 4);
        await using var server = await ScrapeServer.StartAsync(large.Handler);
        var expected = Encoding.UTF8.GetBytes(await large.Handler.ScrapeTextAsync());
        using var client = new HttpClient(new HttpClientHandler { AutomaticDecompression = DecompressionMethods.None });
        var url = new Uri($"http://127.0.0.1:{server.Port}/metrics");

        var scrapes = Enumerable.Range(0, 8).Select(i => GetAsync(client, url, i % 2 == 0 ? "gzip" : null)).ToArray();
        var responses = await Task.WhenAll(scrapes);

        Assert.All(responses, r => Assert.Equal(expected, r.Encoding == "gzip" ? Gunzip(r.Body) : r.Body));
        Assert.Equal(4, responses.Count(r => r.Encoding == "gzip"));

        // Scrapes that met during a collect shared its text: at most one collect each, at least one for them all.
        Assert.InRange(large.Handler.CollectCount, 2, 9);
    }

    [Fact]
    public async Task A_collect_that_fails_midway_answers_503_and_no_partial_text()
    {
        using var large = new LargeTelemetry();
        large.Break();
        await using var server = await ScrapeServer.StartAsync(large.Handler);
        using var client = new HttpClient(new HttpClientHandler { AutomaticDecompression = DecompressionMethods.None });
        var url = new Uri($"http://127.0.0.1:{server.Port}/metrics");

        foreach (var encoding in new[] { null, "gzip" })
        {
            using var request = new HttpRequestMessage(HttpMethod.Get, url);
            if (encoding is not null)
            {
                request.Headers.AcceptEncoding.Add(new StringWithQualityHeaderValue(encoding));
            }

            // The whole text is rendered before anything is sent: a render that fails late is a failed scrape, with no
            // part of the text (before, the status line and part of the text went out and the connection was cut).
            using var response = await client.SendAsync(request);
            Assert.Equal(HttpStatusCode.ServiceUnavailable, response.StatusCode);
            Assert.Equal("collect failed\n", await response.Content.ReadAsStringAsync());
        }
    }

    [Fact]
    public async Task A_scraper_that_hangs_up_mid_text_does_not_hold_up_the_next_scrape()
    {
        using var large = new LargeTelemetry();
        await using var server = await ScrapeServer.StartAsync(large.Handler);
        var url = new Uri($"http://127.0.0.1:{server.Port}/metrics");

        using (var leaving = new HttpClient())
        {
            using var response = await leaving.GetAsync(url, HttpCompletionOption.ResponseHeadersRead);
            await using var body = await response.Content.ReadAsStreamAsync();
            var first = new byte[1000];
            await body.ReadExactlyAsync(first);
            Assert.StartsWith("# HELP target_info", Encoding.UTF8.GetString(first));
        }

        using var client = new HttpClient();
        var text = await client.GetStringAsync(url).WaitAsync(TimeSpan.FromSeconds(30));
        Assert.Equal(await large.Handler.ScrapeTextAsync(), text);
    }

    [Fact]
    public async Task Get_and_head_are_served_other_methods_get_405_and_unknown_paths_404()
    {
        using var sample = new SampleTelemetry();
        await using var server = await ScrapeServer.StartAsync(sample.Handler);
        using var client = new HttpClient { BaseAddress = new Uri($"http://127.0.0.1:{server.Port}") };

        foreach (var method in new[] { HttpMethod.Post, HttpMethod.Put, HttpMethod.Delete })
        {
            using var request = new HttpRequestMessage(method, "/metrics");
            using var response = await client.SendAsync(request);
            Assert.Equal(HttpStatusCode.MethodNotAllowed, response.StatusCode);
            Assert.Equal(["GET", "HEAD"], response.Content.Headers.Allow);
        }

        using var missing = await client.GetAsync(new Uri("/metrics/extra", UriKind.Relative));
        Assert.Equal(HttpStatusCode.NotFound, missing.StatusCode);
        Assert.Equal(0, sample.Handler.CollectCount);
    }

    [Fact]
    public async Task Failed_collect_answers_503_and_the_server_keeps_serving()
    {
        var sample = new SampleTelemetry();
        await using var server = await ScrapeServer.StartAsync(sample.Handler);
        using var client = new HttpClient { BaseAddress = new Uri($"http://127.0.0.1:{server.Port}") };
        sample.Dispose();

        using var failed = await client.GetAsync(new Uri("/metrics", UriKind.Relative));
        Assert.Equal(HttpStatusCode.ServiceUnavailable, failed.StatusCode);
        Assert.Equal("collect failed\n", await failed.Content.ReadAsStringAsync());

        // The next scrape is answered too (503 again, not a connection the failure took down).
        using var again = await client.GetAsync(new Uri("/metrics", UriKind.Relative));
        Assert.Equal(HttpStatusCode.ServiceUnavailable, again.StatusCode);
    }

    private static async Task<(string? Encoding, byte[] Body)> GetAsync(HttpClient client, Uri url, string? acceptEncoding)
    {
        using var request = new HttpRequestMessage(HttpMethod.Get, url);
        if (acceptEncoding is not null)
        {
            request.Headers.AcceptEncoding.Add(new StringWithQualityHeaderValue(acceptEncoding));
        }

        using var response = await client.SendAsync(request);
        response.EnsureSuccessStatusCode();
        return (response.Content.Headers.ContentEncoding.SingleOrDefault(), await response.Content.ReadAsByteArrayAsync());
    }

    private static byte[] Gunzip(byte[] gzipped)
    {
        using var gzip = new GZipStream(new MemoryStream(gzipped), CompressionMode.Decompress);
        using var plain = new MemoryStream();
        gzip.CopyTo(plain);
        return plain.ToArray();
    }

    [SkippableFact]
    public async Task Promtool_check_metrics_accepts_a_real_http_scrape()
    {
        Skip.IfNot(File.Exists(ToolPaths.Promtool), $"promtool not found at {ToolPaths.Promtool} (Debian package 'prometheus'; CI installs it)");
        using var sample = new SampleTelemetry();
        await using var server = await ScrapeServer.StartAsync(sample.Handler);
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
