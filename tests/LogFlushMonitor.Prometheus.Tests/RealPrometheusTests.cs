using OpenTelemetry;
using OpenTelemetry.Metrics;
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
public sealed class RealPrometheusTests(Xunit.Abstractions.ITestOutputHelper output)
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
            // A scrape Prometheus abandoned as it stopped (at the end of the test) was never answered: only answers count.
            if (!context.RequestAborted.IsCancellationRequested)
            {
                served.Enqueue((context.Request.Headers.AcceptEncoding.ToString(), context.Response.Headers.ContentEncoding.ToString()));
            }
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

    /// <summary>
    /// Issue 23 item 4 against the real thing: one Prometheus with native histograms (it asks for protobuf) and one
    /// without (text), scraping the same endpoint. Prometheus 2.42 keeps only the native histogram of a family that has
    /// one (scrape_classic_histograms came in 2.45), so the classic series come from the second server.
    /// </summary>
    [SkippableFact]
    public async Task A_native_histogram_scraped_over_protobuf_gives_the_classic_quantiles_within_a_bucket_width()
    {
        Skip.IfNot(RealPrometheus.IsInstalled, RealPrometheus.NotInstalledReason);

        using var meter = new System.Diagnostics.Metrics.Meter("LogFlushMonitor.Native." + Guid.NewGuid().ToString("N"));
        using var provider = Sdk.CreateMeterProviderBuilder()
            .AddMeter(meter.Name)
            .AddPrometheusNativeHistogramView(_ => new Base2ExponentialBucketHistogramConfiguration { MaxScale = 4 })
            .AddPrometheusPullExporter(out var handler)
            .Build();
        using var _ = handler;
        var writeSize = meter.CreateHistogram<long>("sqlserver.log.flush.write_size", "By", "Size of each log flush.",
            advice: new System.Diagnostics.Metrics.InstrumentAdvice<long> { HistogramBucketBoundaries = SampleTelemetry.WriteSizeBounds.Select(b => (long)b).ToArray() });
        var flushes = meter.CreateCounter<long>("sqlserver.log.flushes", "{flush}");
        KeyValuePair<string, object?> sales = new("sqlserver.database.name", "sales");

        await using var server = await ScrapeServer.StartAsync(handler);
        await using var native = await RealPrometheus.StartAsync($"127.0.0.1:{server.Port}", features: ["native-histograms"]);
        await using var classic = await RealPrometheus.StartAsync($"127.0.0.1:{server.Port}");
        await native.WaitForScrapeAsync();
        await classic.WaitForScrapeAsync();

        // Flushes for about six scrapes: per round five of 512 B, three of 3,000 B, two of 60 KB.
        var total = 0;
        for (var round = 0; round < 24; round++)
        {
            foreach (var (value, times) in new[] { (512L, 5), (3000L, 3), (61440L, 2) })
            {
                for (var i = 0; i < times; i++)
                {
                    writeSize.Record(value, sales);
                    flushes.Add(1, sales);
                    total++;
                }
            }

            await Task.Delay(250);
        }

        var expected = total.ToString(CultureInfo.InvariantCulture);
        var count = await native.WaitForAsync("histogram_count(sqlserver_log_flush_write_size_bytes)", r => r.GetArrayLength() == 1 && r[0].GetProperty("value")[1].GetString() == expected, "the native histogram with every flush");
        Assert.Equal("sales", count[0].GetProperty("metric").GetProperty("sqlserver_database_name").GetString());
        await classic.WaitForAsync("sqlserver_log_flush_write_size_bytes_count", r => r.GetArrayLength() == 1 && r[0].GetProperty("value")[1].GetString() == expected, "the classic histogram with every flush");
        Assert.Equal(expected, (await native.QueryAsync("sqlserver_log_flushes_total"))[0].GetProperty("value")[1].GetString());
        Assert.Equal((total * ((5 * 512) + (3 * 3000) + (2 * 61440)) / 10).ToString(CultureInfo.InvariantCulture), (await native.QueryAsync("histogram_sum(sqlserver_log_flush_write_size_bytes)"))[0].GetProperty("value")[1].GetString());

        // What 2.42 does with a family that has native buckets: the native histogram only, no _bucket series.
        Assert.Equal(0, (await native.QueryAsync("sqlserver_log_flush_write_size_bytes_bucket")).GetArrayLength());

        foreach (var q in new[] { 0.5, 0.7, 0.9 })
        {
            var fromNative = await QuantileAsync(native, $"histogram_quantile({q}, rate(sqlserver_log_flush_write_size_bytes[1m]))");
            var fromClassic = await QuantileAsync(classic, $"histogram_quantile({q}, rate(sqlserver_log_flush_write_size_bytes_bucket[1m]))");
            var upper = SampleTelemetry.WriteSizeBounds.First(b => b >= fromClassic - 1e-6);
            var lower = SampleTelemetry.WriteSizeBounds.LastOrDefault(b => b < upper);
            output.WriteLine($"q={q}: native {fromNative}, classic {fromClassic}");
            Assert.True(Math.Abs(fromNative - fromClassic) <= upper - lower, $"q={q}: native {fromNative}, classic {fromClassic}, classic bucket ({lower}, {upper}]");
        }

        // The native forms docs/metrics.md gives for the classic queries: flushes per second, share of 512 B flushes.
        // (Rates only roughly agree: the window's extrapolation at its edges differs between the two series' samples.)
        var perSecond = await QuantileAsync(native, "histogram_count(rate(sqlserver_log_flush_write_size_bytes[1m]))");
        var counterRate = await QuantileAsync(native, "rate(sqlserver_log_flushes_total[1m])");
        output.WriteLine($"flushes/s: native histogram_count(rate) {perSecond}, counter rate {counterRate}");
        Assert.InRange(perSecond, 0.75 * counterRate, 1.25 * counterRate);
        Assert.Equal(0.5, await QuantileAsync(native, "histogram_fraction(0, 512, rate(sqlserver_log_flush_write_size_bytes[1m]))"), 6);
        Assert.Equal(0.5, await QuantileAsync(classic, "sum(rate(sqlserver_log_flush_write_size_bytes_bucket{le=\"512\"}[1m])) / sum(rate(sqlserver_log_flush_write_size_bytes_count[1m]))"), 6);

        // The median is the 512 B bound in both; the 90th percentile is in the 60 KB flushes, where the native bucket
        // (60,097, 62,757] is much narrower than the classic (49,152, 61,440].
        Assert.Equal(512, await QuantileAsync(native, "histogram_quantile(0.5, rate(sqlserver_log_flush_write_size_bytes[1m]))"), 3);
        Assert.InRange(await QuantileAsync(native, "histogram_quantile(0.9, rate(sqlserver_log_flush_write_size_bytes[1m]))"), 60097, 62757);
    }

    private static async Task<double> QuantileAsync(RealPrometheus prometheus, string promql)
    {
        var result = await prometheus.WaitForAsync(promql, r => r.GetArrayLength() == 1, promql);
        return double.Parse(result[0].GetProperty("value")[1].GetString()!, CultureInfo.InvariantCulture);
    }
}
