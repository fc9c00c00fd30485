using LogFlushMonitor.Hosting;
using LogFlushMonitor.Simulation;
using static LogFlushMonitor.Testing.MetricFamilyDecoder;

namespace LogFlushMonitor.Tests.Hosting;

/// <summary>Issue 23 item 4, the Prometheus half: Exporters:Prometheus:NativeHistograms in the running service.</summary>
[Collection("host")]
public sealed class NativeHistogramHostTests
{
    private const string ProtobufAccept = "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited,text/plain;version=0.0.4;q=0.5";

    private static readonly MonitorOptionsValidator Validator = new(SimulationScenarios.Names);

    private static async Task<List<Family>> ScrapeProtobufAsync(RunningHost host)
    {
        using var request = new HttpRequestMessage(HttpMethod.Get, "/metrics");
        request.Headers.TryAddWithoutValidation("Accept", ProtobufAccept);
        using var response = await host.Http.SendAsync(request);
        response.EnsureSuccessStatusCode();
        Assert.Equal("application/vnd.google.protobuf", response.Content.Headers.ContentType?.MediaType);
        return Decode(await response.Content.ReadAsByteArrayAsync());
    }

    private static async Task<Family> WaitForFamilyAsync(RunningHost host, string name, Func<Family, bool> done)
    {
        Family? last = null;
        try
        {
            await Eventually.Until(
                async () =>
                {
                    last = (await ScrapeProtobufAsync(host)).FirstOrDefault(f => f.Name == name);
                    return last is not null && done(last);
                },
                "a protobuf scrape with " + name,
                TimeSpan.FromSeconds(30));
        }
        catch (TimeoutException)
        {
            // Asserted below on the last scrape.
        }

        Assert.NotNull(last);
        return last;
    }

    [Fact]
    public async Task With_native_histograms_on_the_three_histograms_carry_native_and_classic_buckets_at_their_catalog_schema()
    {
        await using var host = await RunningHost.StartAsync(new()
        {
            ["Sources:Simulate:Scenario"] = "autocommit",
            ["Sources:Simulate:Speed"] = "10",
            ["Exporters:Prometheus:NativeHistograms"] = "true",
        });

        var sizes = await WaitForFamilyAsync(host, "sqlserver_log_flush_write_size_bytes", f => f.Metrics.Any(m => m.Histogram!.PositiveDeltas.Count > 0));
        var durations = await WaitForFamilyAsync(host, "sqlserver_log_flush_duration_seconds", f => f.Metrics.Any(m => m.Histogram!.PositiveDeltas.Count > 0));

        Assert.All(sizes.Metrics, m =>
        {
            Assert.True(m.Histogram!.IsNative);
            Assert.Equal(4, m.Histogram.Schema);
            Assert.Equal(9, m.Histogram.Buckets.Count); // the classic bounds, +Inf left to the count
            Assert.Equal((long)m.Histogram.SampleCount!, m.Histogram.NativeBuckets().Sum(b => b.Count) + (long)m.Histogram.ZeroCount!);
        });
        Assert.All(durations.Metrics, m => Assert.Equal(3, m.Histogram!.Schema));

        // The twins are no families of their own, in either format.
        var families = await ScrapeProtobufAsync(host);
        Assert.DoesNotContain(families, f => f.Name.Contains("prometheus_native", StringComparison.Ordinal));
        var text = await host.Http.GetStringAsync("/metrics");
        Assert.DoesNotContain("prometheus_native", text, StringComparison.Ordinal);
        Assert.Contains("sqlserver_log_flush_write_size_bytes_bucket{", text, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Without_the_setting_protobuf_histograms_are_classic_only()
    {
        await using var host = await RunningHost.StartAsync(new()
        {
            ["Sources:Simulate:Scenario"] = "autocommit",
            ["Sources:Simulate:Speed"] = "10",
        });

        var sizes = await WaitForFamilyAsync(host, "sqlserver_log_flush_write_size_bytes", f => f.Metrics.Any(m => m.Histogram!.SampleCount > 0));

        Assert.All(sizes.Metrics, m => Assert.False(m.Histogram!.IsNative));
    }

    [Theory]
    [InlineData("NativeHistogramMaxScale", 9)]
    [InlineData("NativeHistogramMaxScale", -5)]
    [InlineData("NativeHistogramMaxBuckets", 1)]
    public void A_native_setting_out_of_range_is_named(string key, int value)
    {
        var o = new MonitorOptions { Sources = { Simulate = { Scenario = "mixed" } } };
        o.Exporters.Prometheus.NativeHistograms = true;
        if (key == "NativeHistogramMaxScale")
        {
            o.Exporters.Prometheus.NativeHistogramMaxScale = value;
        }
        else
        {
            o.Exporters.Prometheus.NativeHistogramMaxBuckets = value;
        }

        var result = Validator.Validate(null, o);

        Assert.True(result.Failed);
        Assert.Contains("Exporters:Prometheus:" + key, result.FailureMessage, StringComparison.Ordinal);
    }

    [Fact]
    public void The_twin_takes_the_catalog_scale_unless_one_is_set_and_only_our_histograms_get_one()
    {
        using var meter = new System.Diagnostics.Metrics.Meter(Core.Metrics.LogFlushMetrics.MeterName);
        using var other = new System.Diagnostics.Metrics.Meter("Other");
        var exporters = new ExportersOptions { CardinalityLimit = 3000 };

        var sizes = TelemetryService.NativeTwin(meter.CreateHistogram<long>("sqlserver.log.flush.write_size", "By"), exporters);
        var waits = TelemetryService.NativeTwin(meter.CreateHistogram<double>("sqlserver.database.wait.duration", "s"), exporters);
        exporters.Prometheus.NativeHistogramMaxScale = 6;
        exporters.Prometheus.NativeHistogramMaxBuckets = 320;
        var finer = TelemetryService.NativeTwin(meter.CreateHistogram<long>("sqlserver.log.flush.write_size", "By"), exporters);

        Assert.Equal(Core.Metrics.MetricCatalog.WriteSizeScale, sizes!.MaxScale);
        Assert.Equal(160, sizes.MaxSize);
        Assert.Equal(3000, sizes.CardinalityLimit);
        Assert.Equal(Core.Metrics.MetricCatalog.DurationScale, waits!.MaxScale);
        Assert.Equal((6, 320), (finer!.MaxScale, finer.MaxSize));
        Assert.Null(TelemetryService.NativeTwin(meter.CreateCounter<long>("sqlserver.log.flushes"), exporters));
        Assert.Null(TelemetryService.NativeTwin(other.CreateHistogram<long>("sqlserver.log.flush.write_size"), exporters));
    }
}
