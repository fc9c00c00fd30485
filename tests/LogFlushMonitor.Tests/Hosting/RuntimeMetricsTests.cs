using System.Text.RegularExpressions;
using LogFlushMonitor.Hosting;
using LogFlushMonitor.Tests.Deploy;

namespace LogFlushMonitor.Tests.Hosting;

/// <summary>The monitor's own runtime series (issue 8 item 7): exported, correctly typed and documented.</summary>
public partial class RuntimeMetricsTests
{
    /// <summary>Families every scrape must carry, with their Prometheus type.</summary>
    private static readonly (string Family, string Type)[] Required =
    [
        ("dotnet_gc_collections_total", "counter"),
        ("dotnet_gc_heap_total_allocated_bytes_total", "counter"),
        ("dotnet_gc_last_collection_heap_size_bytes", "gauge"),
        ("dotnet_gc_last_collection_memory_committed_size_bytes", "gauge"),
        ("dotnet_gc_pause_time_seconds_total", "counter"),
        ("dotnet_process_memory_working_set_bytes", "gauge"),
        ("dotnet_process_cpu_time_seconds_total", "counter"),
        ("dotnet_thread_pool_threads", "gauge"),
        ("dotnet_thread_pool_queue_length", "gauge"),
        ("dotnet_thread_pool_work_item_count_total", "counter"),
    ];

    [Fact]
    public async Task Gc_memory_and_thread_pool_series_are_exported_typed_and_documented()
    {
        await using var host = await RunningHost.StartAsync(new() { ["Sources:Simulate:Scenario"] = "autocommit" });
        var text = await host.ScrapeUntilAsync(t => Required.All(r => t.Contains($"\n{r.Family}{{", StringComparison.Ordinal)), TimeSpan.FromSeconds(30));
        var types = TypeLine().Matches(text).ToDictionary(m => m.Groups[1].Value, m => m.Groups[2].Value, StringComparer.Ordinal);
        foreach (var (family, type) in Required)
        {
            Assert.True(types.TryGetValue(family, out var actual), $"{family} is not on /metrics");
            Assert.Equal(type, actual);
        }

        // The runtime's mistyped thread pool counters are replaced, not exported twice; no gauge ends in _count
        // (Prometheus tools read that as a histogram's count).
        Assert.DoesNotContain("dotnet_thread_pool_thread_count", text, StringComparison.Ordinal);
        Assert.DoesNotContain("dotnet_thread_pool_queue_length_total", text, StringComparison.Ordinal);
        Assert.DoesNotContain(types, t => t.Key.EndsWith("_count", StringComparison.Ordinal) && t.Value != "histogram");
        Assert.True(Sample(text, "dotnet_process_memory_working_set_bytes") > 10_000_000);
        Assert.True(Sample(text, "dotnet_thread_pool_threads") >= 1);

        // Every runtime family the endpoint serves is in docs/metrics.md under its Prometheus name.
        var doc = File.ReadAllText(DeployFiles.Path("docs", "metrics.md"));
        foreach (var family in types.Keys.Where(f => f.StartsWith("dotnet_", StringComparison.Ordinal)))
        {
            Assert.True(doc.Contains($"`{family}`", StringComparison.Ordinal), $"{family} is exported but not documented in docs/metrics.md");
        }
    }

    [Fact]
    public void Runtime_instruments_keep_a_small_series_table_and_ours_the_configured_one()
    {
        using var runtime = new System.Diagnostics.Metrics.Meter("System.Runtime");
        using var ours = new System.Diagnostics.Metrics.Meter(LogFlushMonitor.Core.Metrics.LogFlushMetrics.MeterName);
        using var other = new System.Diagnostics.Metrics.Meter("SomeLibrary");

        var gc = TelemetryService.StreamConfiguration(runtime.CreateCounter<long>("dotnet.gc.collections"), 5000);
        var threads = TelemetryService.StreamConfiguration(runtime.CreateObservableCounter("dotnet.thread_pool.thread.count", () => 1L), 5000);
        var flushes = TelemetryService.StreamConfiguration(ours.CreateCounter<long>("sqlserver.log.flushes"), 5000);
        var sizes = TelemetryService.StreamConfiguration(
            ours.CreateHistogram<long>("sqlserver.log.flush.write.size", advice: new() { HistogramBucketBoundaries = [512, 1024] }), 5000);

        Assert.Equal(TelemetryService.RuntimeCardinalityLimit, gc!.CardinalityLimit);
        Assert.Same(OpenTelemetry.Metrics.MetricStreamConfiguration.Drop, threads);
        Assert.Equal(5000, flushes!.CardinalityLimit);
        var histogram = Assert.IsType<OpenTelemetry.Metrics.ExplicitBucketHistogramConfiguration>(sizes);
        Assert.Equal(5000, histogram.CardinalityLimit);
        Assert.Equal([512.0, 1024.0], histogram.Boundaries!);
        Assert.Null(TelemetryService.StreamConfiguration(other.CreateCounter<long>("x"), 5000)); // the SDK's defaults
    }

    private static double Sample(string text, string family) =>
        double.Parse(SampleLine(family).Match(text).Groups[1].Value, System.Globalization.CultureInfo.InvariantCulture);

    private static Regex SampleLine(string family) => new($"^{family}\\{{[^}}]*\\}} (\\S+)$", RegexOptions.Multiline);

    [GeneratedRegex(@"^# TYPE (\S+) (\S+)$", RegexOptions.Multiline)]
    private static partial Regex TypeLine();
}
