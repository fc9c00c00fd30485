using System.Diagnostics.Metrics;
using System.Globalization;
using System.Net;
using System.Net.Http.Headers;
using Microsoft.AspNetCore.Http;
using OpenTelemetry;
using OpenTelemetry.Metrics;
using OpenTelemetry.Resources;
using static LogFlushMonitor.Testing.MetricFamilyDecoder;

namespace LogFlushMonitor.Prometheus.Tests;

/// <summary>The protobuf exposition (issue 23 item 4), read back with the test's own decoder.</summary>
public sealed class ProtobufExpositionTests
{
    /// <summary>The Accept header Prometheus 2.42 sends with --enable-feature=native-histograms (scrape/scrape.go).</summary>
    internal const string PrometheusNativeAccept = "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited,application/openmetrics-text;version=1.0.0;q=0.8,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";

    /// <summary>And without it.</summary>
    internal const string PrometheusClassicAccept = "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";

    private static readonly double[] WriteSizeBounds = [512, 1024, 2048, 4096, 8192, 16384, 32768, 49152, 61440];

    private static MeterProvider Build(Meter meter, out PrometheusScrapeHandler handler, int? nativeScale = 4, int maxBuckets = 160) =>
        Sdk.CreateMeterProviderBuilder()
            .SetResourceBuilder(ResourceBuilder.CreateEmpty().AddService("logflushmonitor", serviceInstanceId: "host-1", autoGenerateServiceInstanceId: false))
            .AddMeter(meter.Name)
            .AddPrometheusNativeHistogramView(_ => nativeScale is { } scale ? new Base2ExponentialBucketHistogramConfiguration { MaxScale = scale, MaxSize = maxBuckets } : null)
            .AddPrometheusPullExporter(out handler)
            .Build();

    private static async Task<List<Family>> ScrapeProtobufAsync(PrometheusScrapeHandler handler)
    {
        using var bytes = new MemoryStream();
        await handler.ScrapeToAsync(bytes, PrometheusFormat.Protobuf);
        return Decode(bytes.ToArray());
    }

    [Fact]
    public async Task Protobuf_carries_the_same_families_labels_and_values_as_the_text()
    {
        using var sample = new SampleTelemetry();
        var families = await ScrapeProtobufAsync(sample.Handler);
        var text = await sample.Handler.ScrapeTextAsync();

        var byName = families.ToDictionary(f => f.Name);
        Assert.Equal(families.Count, byName.Count); // one message per family

        var target = byName["target_info"];
        Assert.Equal(1, target.Type); // GAUGE
        Assert.Equal("test-1", target.Metrics[0].Labels["service_instance_id"]);
        Assert.Equal(1, target.Metrics[0].Gauge);

        var flushes = byName["sqlserver_log_flushes_total"];
        Assert.Equal(0, flushes.Type); // COUNTER
        Assert.Equal("Log flushes seen.", flushes.Help);
        var series = Assert.Single(flushes.Metrics);
        Assert.Equal(10, series.Counter);
        Assert.Equal("sales", series.Labels["sqlserver_database_name"]);
        Assert.Equal("SQL01", series.Labels["sqlserver_instance_name"]);
        Assert.Equal(sample.MeterName, series.Labels["otel_scope_name"]);
        Assert.Equal("0.1.0", series.Labels["otel_scope_version"]);

        // Label values travel as they are: no text escaping.
        var odd = Assert.Single(byName["sqlserver_log_bytes_flushed_total"].Metrics);
        Assert.Equal("odd \"name\"\\x\ny", odd.Labels["sqlserver_database_name"]);
        Assert.Equal(7680, odd.Counter);

        Assert.Equal(1, byName["sqlserver_sessions_active"].Type);
        Assert.Equal(3, Assert.Single(byName["sqlserver_sessions_active"].Metrics).Gauge);
        Assert.Equal(0.25, Assert.Single(byName["sqlserver_log_space_used_ratio"].Metrics).Gauge);

        // No twin view here: a classic histogram, as Prometheus 2.42 reads one (no native field set).
        var writeSize = byName["sqlserver_log_flush_write_size_bytes"];
        Assert.Equal(4, writeSize.Type); // HISTOGRAM
        var h = Assert.Single(writeSize.Metrics).Histogram!;
        Assert.False(h.IsNative);
        Assert.Equal(10UL, h.SampleCount);
        Assert.Equal((5 * 512) + (5 * 1000), h.SampleSum);
        Assert.Equal(WriteSizeBounds, h.Buckets.Select(b => b.UpperBound));
        Assert.Equal([5UL, 10, 10, 10, 10, 10, 10, 10, 10], h.Buckets.Select(b => b.Cumulative));

        // Every family of the text is in the protobuf, and nothing else.
        var textFamilies = text.Split('\n').Where(l => l.StartsWith("# TYPE ", StringComparison.Ordinal)).Select(l => l.Split(' ')[2]);
        Assert.Equal(textFamilies.Order(StringComparer.Ordinal), byName.Keys.Order(StringComparer.Ordinal));
    }

    [Fact]
    public async Task Native_buckets_are_the_exact_counts_recorded_and_the_classic_ones_stay()
    {
        using var meter = new Meter("Native", "1.0");
        using var provider = Build(meter, out var handler);
        var writeSize = meter.CreateHistogram<long>("sqlserver.log.flush.write_size", "By", "Size of each log flush.",
            advice: new InstrumentAdvice<long> { HistogramBucketBoundaries = WriteSizeBounds.Select(b => (long)b).ToArray() });
        KeyValuePair<string, object?> sales = new("sqlserver.database.name", "sales");
        foreach (var (value, times) in new[] { (0L, 2), (512L, 5), (1000L, 4), (61440L, 3) })
        {
            for (var i = 0; i < times; i++)
            {
                writeSize.Record(value, sales);
            }
        }

        var families = await ScrapeProtobufAsync(handler);

        // The twin is no family of its own.
        Assert.DoesNotContain(families, f => f.Name.Contains("native", StringComparison.Ordinal));
        var h = Assert.Single(Assert.Single(families, f => f.Name == "sqlserver_log_flush_write_size_bytes").Metrics).Histogram!;
        Assert.True(h.IsNative);
        Assert.Equal(4, h.Schema);
        Assert.Equal(Math.ScaleB(1, -128), h.ZeroThreshold);
        Assert.Equal(2UL, h.ZeroCount);
        Assert.Equal(14UL, h.SampleCount);
        Assert.Equal((5 * 512) + (4 * 1000) + (3 * 61440), h.SampleSum);

        // Each value lands in the one bucket whose bounds hold it: 512 = 2^9 is a bound (its bucket's upper one), and
        // 61,440 falls in (60,097, 62,757], 4.4 % wide.
        var buckets = h.NativeBuckets();
        Assert.Equal(3, buckets.Count);
        Assert.Equal(512, h.UpperBound(buckets[0].Index));
        Assert.Equal(5, buckets[0].Count);
        Assert.InRange(1000, h.UpperBound(buckets[1].Index - 1), h.UpperBound(buckets[1].Index));
        Assert.Equal(4, buckets[1].Count);
        Assert.InRange(61440, h.UpperBound(buckets[2].Index - 1), h.UpperBound(buckets[2].Index));
        Assert.Equal(60097, Math.Round(h.UpperBound(buckets[2].Index - 1)));
        Assert.Equal(62757, Math.Round(h.UpperBound(buckets[2].Index)));
        Assert.Equal(3, buckets[2].Count);
        Assert.True(h.PositiveSpans.Count >= 2, "buckets far apart are in separate spans");

        // The classic buckets are there too (a Prometheus reading classic histograms keeps working); +Inf is left to
        // sample_count.
        Assert.Equal(WriteSizeBounds, h.Buckets.Select(b => b.UpperBound));
        Assert.Equal([7UL, 11, 11, 11, 11, 11, 11, 11, 14], h.Buckets.Select(b => b.Cumulative));

        // The text is unchanged by the twin: classic only, no twin family.
        var text = await handler.ScrapeTextAsync();
        Assert.DoesNotContain("native", text, StringComparison.Ordinal);
        Assert.Contains("sqlserver_log_flush_write_size_bytes_bucket{sqlserver_database_name=\"sales\",otel_scope_name=\"Native\",otel_scope_version=\"1.0\",le=\"+Inf\"} 14", text, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Each_series_gets_the_native_buckets_of_its_own_attributes()
    {
        using var meter = new Meter("Pairs");
        using var provider = Build(meter, out var handler, nativeScale: 3);
        var duration = meter.CreateHistogram<double>("sqlserver.log.flush.duration", "s", advice: new InstrumentAdvice<double> { HistogramBucketBoundaries = [0.001, 0.01, 0.1] });
        for (var db = 0; db < 300; db++)
        {
            // Databases appear in a different order in the second round; each has its own count and value.
            for (var i = 0; i <= db % 7; i++)
            {
                duration.Record((db + 1) / 10_000.0, new("sqlserver.database.name", "db" + db), new("wait.type", db % 2 == 0 ? "WRITELOG" : "LOGBUFFER"));
            }
        }

        var h = Assert.Single(await ScrapeProtobufAsync(handler), f => f.Name == "sqlserver_log_flush_duration_seconds");
        Assert.Equal(300, h.Metrics.Count);
        foreach (var series in h.Metrics)
        {
            var db = int.Parse(series.Labels["sqlserver_database_name"][2..], CultureInfo.InvariantCulture);
            Assert.Equal(db % 2 == 0 ? "WRITELOG" : "LOGBUFFER", series.Labels["wait_type"]);
            var bucket = Assert.Single(series.Histogram!.NativeBuckets());
            Assert.Equal((long)(db % 7) + 1, bucket.Count);
            Assert.Equal((ulong)bucket.Count, series.Histogram.SampleCount);
            var value = (db + 1) / 10_000.0;
            Assert.InRange(value, series.Histogram.UpperBound(bucket.Index - 1), series.Histogram.UpperBound(bucket.Index));
        }
    }

    [Fact]
    public async Task A_scale_above_prometheus_schema_8_is_merged_down_exactly()
    {
        using var meter = new Meter("Fine");
        // One doubling at scale 10 is 1,024 buckets: room for 2,000 keeps the SDK at scale 10.
        using var provider = Build(meter, out var handler, nativeScale: 10, maxBuckets: 2000);
        var h = meter.CreateHistogram<double>("h", "By");
        double[] values = [512, 512.5, 513, 514, 600, 1000, 1001];
        foreach (var v in values)
        {
            h.Record(v);
        }

        var histogram = Assert.Single(Assert.Single(await ScrapeProtobufAsync(handler), f => f.Name == "h_bytes").Metrics).Histogram!;
        Assert.Equal(8, histogram.Schema);
        var buckets = histogram.NativeBuckets();
        Assert.Equal(values.Length, buckets.Sum(b => b.Count));

        // At schema 8, 2^(1/256): each value is in the bucket the schema puts it in, with the count of values there.
        foreach (var group in values.GroupBy(v => (int)Math.Ceiling(Math.Log2(v) * 256)))
        {
            Assert.Contains((group.Key, (long)group.Count()), buckets);
        }
    }

    [Fact]
    public async Task An_exponential_stream_of_its_own_is_a_native_only_histogram_in_protobuf_and_absent_from_the_text()
    {
        using var meter = new Meter("OnlyNative");
        using var provider = Sdk.CreateMeterProviderBuilder()
            .AddMeter(meter.Name)
            .AddView("h", new Base2ExponentialBucketHistogramConfiguration { MaxScale = 2 })
            .AddPrometheusPullExporter(out var handler, o => o.TargetInfoEnabled = false)
            .Build();
        meter.CreateHistogram<double>("h", "s").Record(0.5);

        var family = Assert.Single(await ScrapeProtobufAsync(handler));
        var h = Assert.Single(family.Metrics).Histogram!;
        Assert.Empty(h.Buckets);
        Assert.Equal(2, h.Schema);
        var bucket = Assert.Single(h.NativeBuckets());
        Assert.Equal(0.5, h.UpperBound(bucket.Index)); // 2^-1: a bound at every schema
        Assert.Equal(1, bucket.Count);
        Assert.DoesNotContain("h_seconds", await handler.ScrapeTextAsync(), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(PrometheusNativeAccept, PrometheusFormat.Protobuf)]
    [InlineData(PrometheusClassicAccept, PrometheusFormat.Text)]
    [InlineData(null, PrometheusFormat.Text)]
    [InlineData("*/*", PrometheusFormat.Text)]
    [InlineData("application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.5,text/plain;version=0.0.4", PrometheusFormat.Text)]
    [InlineData("application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=text", PrometheusFormat.Text)]
    [InlineData("application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0", PrometheusFormat.Text)]
    [InlineData("application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited", PrometheusFormat.Protobuf)]
    public void The_accept_header_chooses_the_format(string? accept, PrometheusFormat expected)
    {
        var context = new DefaultHttpContext();
        if (accept is not null)
        {
            context.Request.Headers.Accept = accept;
        }

        Assert.Equal(expected, PrometheusEndpointRouteBuilderExtensions.Negotiate(context.Request));
    }

    [Fact]
    public async Task The_endpoint_answers_a_protobuf_accept_in_protobuf_and_says_it_varies_by_accept()
    {
        using var sample = new SampleTelemetry();
        await using var server = await ScrapeServer.StartAsync(sample.Handler);
        using var client = new HttpClient { BaseAddress = new Uri($"http://127.0.0.1:{server.Port}") };
        using var request = new HttpRequestMessage(HttpMethod.Get, new Uri("/metrics", UriKind.Relative));
        request.Headers.TryAddWithoutValidation("Accept", PrometheusNativeAccept);
        request.Headers.AcceptEncoding.Add(new StringWithQualityHeaderValue("gzip"));

        using var response = await client.SendAsync(request);
        var body = await response.Content.ReadAsByteArrayAsync();

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal("application/vnd.google.protobuf", response.Content.Headers.ContentType?.MediaType);
        Assert.Contains(response.Content.Headers.ContentType!.Parameters, p => p.Name == "proto" && p.Value == "io.prometheus.client.MetricFamily");
        Assert.Contains(response.Content.Headers.ContentType!.Parameters, p => p.Name == "encoding" && p.Value == "delimited");
        Assert.Contains("Accept", response.Headers.Vary);
        Assert.Equal("gzip", Assert.Single(response.Content.Headers.ContentEncoding));
        using var unzipped = new MemoryStream();
        await using (var gzip = new System.IO.Compression.GZipStream(new MemoryStream(body), System.IO.Compression.CompressionMode.Decompress))
        {
            await gzip.CopyToAsync(unzipped);
        }

        Assert.Contains(Decode(unzipped.ToArray()), f => f.Name == "sqlserver_log_flushes_total");

        // The text scrape beside it is unchanged.
        using var text = await client.GetAsync(new Uri("/metrics", UriKind.Relative));
        Assert.Equal(PrometheusScrapeHandler.ContentType, text.Content.Headers.ContentType?.ToString());
    }

    [Fact]
    public async Task Text_and_protobuf_scrapes_at_once_each_get_their_own_whole_format()
    {
        using var large = new LargeTelemetry(counters: 4, seriesEach: 500);
        var scrapes = Enumerable.Range(0, 8).Select(async i =>
        {
            using var bytes = new MemoryStream();
            var format = i % 2 == 0 ? PrometheusFormat.Text : PrometheusFormat.Protobuf;
            await large.Handler.ScrapeToAsync(bytes, format);
            return (format, bytes.ToArray());
        }).ToList();

        foreach (var (format, bytes) in await Task.WhenAll(scrapes))
        {
            if (format == PrometheusFormat.Protobuf)
            {
                Assert.Equal(500, Decode(bytes).Single(f => f.Name == "sqlserver_large_counter3_total").Metrics.Count);
            }
            else
            {
                Assert.Contains("# TYPE sqlserver_large_counter3_total counter", System.Text.Encoding.UTF8.GetString(bytes), StringComparison.Ordinal);
            }
        }
    }
}
