using System.Collections.Concurrent;
using System.Globalization;
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
    [SkippableFact]
    public async Task Prometheus_scrapes_counter_and_histogram_series_with_their_labels_and_values()
    {
        Skip.IfNot(RealPrometheus.IsInstalled, RealPrometheus.NotInstalledReason);

        using var sample = new SampleTelemetry();
        await using var server = await ScrapeServer.StartAsync(sample.Handler);
        await using var prometheus = await RealPrometheus.StartAsync($"127.0.0.1:{server.Port}");

        // Wait until one scrape has stored the histogram.
        var buckets = await prometheus.WaitForAsync("sqlserver_log_flush_write_size_bytes_bucket", r => r.GetArrayLength() == 10, "the ten write-size buckets");

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

        var counter = (await prometheus.QueryAsync("sqlserver_log_flushes_total"))[0];
        Assert.Equal("10", counter.GetProperty("value")[1].GetString());
        Assert.Equal("SQL01", counter.GetProperty("metric").GetProperty("sqlserver_instance_name").GetString());

        var escaped = (await prometheus.QueryAsync("sqlserver_log_bytes_flushed_total"))[0];
        Assert.Equal("odd \"name\"\\x\ny", escaped.GetProperty("metric").GetProperty("sqlserver_database_name").GetString());

        var target = (await prometheus.QueryAsync("target_info"))[0].GetProperty("metric");
        Assert.Equal("logflushmonitor", target.GetProperty("service_name").GetString());
        Assert.Equal("test-1", target.GetProperty("service_instance_id").GetString());

        // Five flushes of 512 bytes and five of 1000: the median is exactly the 512 bound.
        var median = (await prometheus.QueryAsync("histogram_quantile(0.5, sum by (le) (sqlserver_log_flush_write_size_bytes_bucket))"))[0];
        Assert.Equal(512d, double.Parse(median.GetProperty("value")[1].GetString()!, CultureInfo.InvariantCulture));
    }

    [SkippableFact]
    public async Task Prometheus_asks_for_gzip_and_stores_every_series_of_a_text_many_buffers_long()
    {
        Skip.IfNot(RealPrometheus.IsInstalled, RealPrometheus.NotInstalledReason);

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

        await using (var prometheus = await RealPrometheus.StartAsync($"127.0.0.1:{port}"))
        {
            // The last family of the text: only a scrape decoded to its end has it.
            var histogram = await prometheus.WaitForAsync("count(sqlserver_large_size_bytes_count)", r => r.GetArrayLength() == 1, "the last histogram family");
            Assert.Equal("500", histogram[0].GetProperty("value")[1].GetString());
            var last = (await prometheus.QueryAsync("count(sqlserver_large_counter11_total)"))[0];
            Assert.Equal("1500", last.GetProperty("value")[1].GetString());
            var sum = (await prometheus.QueryAsync("sum(sqlserver_large_counter11_total)"))[0];
            Assert.Equal("1125750", sum.GetProperty("value")[1].GetString());
        }

        Assert.NotEmpty(served);
        Assert.All(served, s =>
        {
            Assert.Contains("gzip", s.Asked, StringComparison.Ordinal);
            Assert.Equal("gzip", s.Sent);
        });
    }
}
