using System.Collections.Concurrent;
using System.Diagnostics;
using System.Globalization;
using System.Net;
using System.Net.Sockets;
using System.Text;
using System.Text.Json;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.Extensions.DependencyInjection;

namespace LogFlushMonitor.Prometheus.Tests;

/// <summary>
/// Scrapes the endpoint with a real Prometheus server and checks what it stored, through its HTTP API.
/// </summary>
public sealed class RealPrometheusTests
{
    private static readonly TimeSpan Deadline = TimeSpan.FromSeconds(25);

    [SkippableFact]
    public async Task Prometheus_scrapes_counter_and_histogram_series_with_their_labels_and_values()
    {
        Skip.IfNot(File.Exists(ToolPaths.Prometheus), $"prometheus not found at {ToolPaths.Prometheus} (Debian package 'prometheus'; CI installs it)");

        using var sample = new SampleTelemetry();
        await using var server = new PrometheusHttpServer(sample.Handler, new PrometheusHttpServerOptions { Urls = "http://127.0.0.1:0" });
        await server.StartAsync();

        var work = Directory.CreateTempSubdirectory("lfm-prometheus-");
        var apiPort = FreePort();
        var config = Path.Combine(work.FullName, "prometheus.yml");
        await File.WriteAllTextAsync(config, $"""
            global:
              scrape_interval: 1s
              scrape_timeout: 1s
            scrape_configs:
              - job_name: logflushmonitor
                static_configs:
                  - targets: ['127.0.0.1:{server.Port}']
            """);

        var stderr = new StringBuilder();
        using var prometheus = new Process
        {
            StartInfo = new ProcessStartInfo(ToolPaths.Prometheus,
            [
                "--config.file=" + config,
                "--storage.tsdb.path=" + Path.Combine(work.FullName, "data"),
                $"--web.listen-address=127.0.0.1:{apiPort}",
                "--log.level=warn",
            ])
            {
                RedirectStandardError = true,
                RedirectStandardOutput = true,
            },
        };
        prometheus.ErrorDataReceived += (_, e) => { lock (stderr) { stderr.AppendLine(e.Data); } };
        prometheus.OutputDataReceived += (_, _) => { };
        try
        {
            prometheus.Start();
            prometheus.BeginErrorReadLine();
            prometheus.BeginOutputReadLine();
            using var api = new HttpClient { BaseAddress = new Uri($"http://127.0.0.1:{apiPort}"), Timeout = TimeSpan.FromSeconds(5) };

            // Wait until one scrape has stored the histogram.
            var buckets = await WaitForAsync(api, "sqlserver_log_flush_write_size_bytes_bucket", r => r.GetArrayLength() == 10, prometheus, stderr);

            var byLe = buckets.EnumerateArray().ToDictionary(
                s => s.GetProperty("metric").GetProperty("le").GetString()!,
                s => s.GetProperty("value")[1].GetString());
            Assert.Equal("5", byLe["512"]);
            Assert.Equal("10", byLe["1024"]);
            Assert.Equal("10", byLe["+Inf"]);
            var first = buckets[0].GetProperty("metric");
            Assert.Equal("logflushmonitor", first.GetProperty("job").GetString());
            Assert.Equal($"127.0.0.1:{server.Port}", first.GetProperty("instance").GetString());
            Assert.Equal("sales", first.GetProperty("sqlserver_database_name").GetString());
            Assert.Equal(sample.MeterName, first.GetProperty("otel_scope_name").GetString());

            var counter = (await QueryAsync(api, "sqlserver_log_flushes_total"))[0];
            Assert.Equal("10", counter.GetProperty("value")[1].GetString());
            Assert.Equal("SQL01", counter.GetProperty("metric").GetProperty("sqlserver_instance_name").GetString());

            var escaped = (await QueryAsync(api, "sqlserver_log_bytes_flushed_total"))[0];
            Assert.Equal("odd \"name\"\\x\ny", escaped.GetProperty("metric").GetProperty("sqlserver_database_name").GetString());

            var target = (await QueryAsync(api, "target_info"))[0].GetProperty("metric");
            Assert.Equal("logflushmonitor", target.GetProperty("service_name").GetString());
            Assert.Equal("test-1", target.GetProperty("service_instance_id").GetString());

            // Five flushes of 512 bytes and five of 1000: the median is exactly the 512 bound.
            var median = (await QueryAsync(api, "histogram_quantile(0.5, sum by (le) (sqlserver_log_flush_write_size_bytes_bucket))"))[0];
            Assert.Equal(512d, double.Parse(median.GetProperty("value")[1].GetString()!, CultureInfo.InvariantCulture));
        }
        finally
        {
            if (!prometheus.HasExited)
            {
                prometheus.Kill(entireProcessTree: true);
            }

            await prometheus.WaitForExitAsync(new CancellationTokenSource(TimeSpan.FromSeconds(10)).Token);
            work.Delete(recursive: true);
        }
    }

    [SkippableFact]
    public async Task Prometheus_asks_for_gzip_and_stores_every_series_of_a_text_many_buffers_long()
    {
        Skip.IfNot(File.Exists(ToolPaths.Prometheus), $"prometheus not found at {ToolPaths.Prometheus} (Debian package 'prometheus'; CI installs it)");

        using var large = new LargeTelemetry();
        var served = new ConcurrentQueue<(string? Asked, string? Sent)>();
        var builder = WebApplication.CreateEmptyBuilder(new WebApplicationOptions());
        builder.WebHost.UseKestrelCore().UseUrls("http://127.0.0.1:0");
        builder.Services.AddRoutingCore();
        await using var app = builder.Build();
        app.Use(async (context, next) =>
        {
            await next(context);
            served.Enqueue((context.Request.Headers.AcceptEncoding.ToString(), context.Response.Headers.ContentEncoding.ToString()));
        });
        app.MapPrometheusScrapingEndpoint(large.Handler);
        await app.StartAsync();
        var port = new Uri(app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses.First()).Port;

        await RunPrometheusAsync(port, async (api, prometheus, stderr) =>
        {
            // The last family of the text: only a scrape decoded to its end has it.
            var histogram = await WaitForAsync(api, "count(sqlserver_large_size_bytes_count)", r => r.GetArrayLength() == 1, prometheus, stderr);
            Assert.Equal("500", histogram[0].GetProperty("value")[1].GetString());
            var last = (await QueryAsync(api, "count(sqlserver_large_counter11_total)"))[0];
            Assert.Equal("1500", last.GetProperty("value")[1].GetString());
            var sum = (await QueryAsync(api, "sum(sqlserver_large_counter11_total)"))[0];
            Assert.Equal("1125750", sum.GetProperty("value")[1].GetString());
        });

        Assert.NotEmpty(served);
        Assert.All(served, s =>
        {
            Assert.Contains("gzip", s.Asked, StringComparison.Ordinal);
            Assert.Equal("gzip", s.Sent);
        });
    }

    /// <summary>Runs a Prometheus that scrapes 127.0.0.1:<paramref name="targetPort"/> every second while <paramref name="body"/> queries it.</summary>
    private static async Task RunPrometheusAsync(int targetPort, Func<HttpClient, Process, StringBuilder, Task> body)
    {
        var work = Directory.CreateTempSubdirectory("lfm-prometheus-");
        var apiPort = FreePort();
        var config = Path.Combine(work.FullName, "prometheus.yml");
        await File.WriteAllTextAsync(config, $"""
            global:
              scrape_interval: 1s
              scrape_timeout: 1s
            scrape_configs:
              - job_name: logflushmonitor
                static_configs:
                  - targets: ['127.0.0.1:{targetPort}']
            """);

        var stderr = new StringBuilder();
        using var prometheus = new Process
        {
            StartInfo = new ProcessStartInfo(ToolPaths.Prometheus,
            [
                "--config.file=" + config,
                "--storage.tsdb.path=" + Path.Combine(work.FullName, "data"),
                $"--web.listen-address=127.0.0.1:{apiPort}",
                "--log.level=warn",
            ])
            {
                RedirectStandardError = true,
                RedirectStandardOutput = true,
            },
        };
        prometheus.ErrorDataReceived += (_, e) => { lock (stderr) { stderr.AppendLine(e.Data); } };
        prometheus.OutputDataReceived += (_, _) => { };
        try
        {
            prometheus.Start();
            prometheus.BeginErrorReadLine();
            prometheus.BeginOutputReadLine();
            using var api = new HttpClient { BaseAddress = new Uri($"http://127.0.0.1:{apiPort}"), Timeout = TimeSpan.FromSeconds(5) };
            await body(api, prometheus, stderr);
        }
        finally
        {
            if (!prometheus.HasExited)
            {
                prometheus.Kill(entireProcessTree: true);
            }

            await prometheus.WaitForExitAsync(new CancellationTokenSource(TimeSpan.FromSeconds(10)).Token);
            work.Delete(recursive: true);
        }
    }

    private static async Task<JsonElement> WaitForAsync(HttpClient api, string query, Func<JsonElement, bool> done, Process prometheus, StringBuilder stderr)
    {
        var stopwatch = Stopwatch.StartNew();
        var last = "nothing yet";
        while (stopwatch.Elapsed < Deadline)
        {
            Assert.False(prometheus.HasExited, $"prometheus exited: {stderr}");
            try
            {
                var result = await QueryAsync(api, query);
                if (done(result))
                {
                    return result;
                }

                last = result.ToString();
            }
            catch (HttpRequestException ex)
            {
                last = ex.Message;
            }

            await Task.Delay(250);
        }

        Assert.Fail($"no result for {query} within {Deadline}: {last}\n{stderr}");
        return default;
    }

    private static async Task<JsonElement> QueryAsync(HttpClient api, string query)
    {
        var json = await api.GetStringAsync(new Uri("/api/v1/query?query=" + Uri.EscapeDataString(query), UriKind.Relative));
        using var document = JsonDocument.Parse(json);
        var root = document.RootElement;
        Assert.Equal("success", root.GetProperty("status").GetString());
        return root.GetProperty("data").GetProperty("result").Clone();
    }

    private static int FreePort()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }
}
