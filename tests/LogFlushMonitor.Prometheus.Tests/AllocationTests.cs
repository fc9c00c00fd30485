using System.Diagnostics.Metrics;
using OpenTelemetry;
using OpenTelemetry.Metrics;
using OpenTelemetry.Resources;
using Xunit.Abstractions;

namespace LogFlushMonitor.Prometheus.Tests;

[CollectionDefinition(nameof(AllocationTests), DisableParallelization = true)]
public sealed class AllocationCollection;

/// <summary>Runs alone: it counts process-wide allocations, which parallel tests would inflate.</summary>
[Collection(nameof(AllocationTests))]
public sealed class AllocationTests(ITestOutputHelper output)
{
    [Fact]
    public async Task Allocation_per_scrape_is_small_and_independent_of_text_size_and_scrape_count()
    {
        using var meter = new Meter("Alloc");
        using var provider = Sdk.CreateMeterProviderBuilder()
            .SetResourceBuilder(ResourceBuilder.CreateEmpty().AddService("alloc", autoGenerateServiceInstanceId: false))
            .AddMeter(meter.Name)
            .AddPrometheusPullExporter(out var handler)
            .Build();
        var counter = meter.CreateCounter<long>("flushes", "{flush}");
        var histogram = meter.CreateHistogram<double>("write.size", "By", null, null,
            new InstrumentAdvice<double> { HistogramBucketBoundaries = [512, 1024, 2048, 4096, 8192, 16384, 32768, 49152, 61440] });
        for (var db = 0; db < 200; db++)
        {
            var tag = new KeyValuePair<string, object?>("sqlserver.database.name", "database_" + db);
            counter.Add(db, tag);
            histogram.Record(db * 300, tag);
        }

        long textLength = 0;
        for (var i = 0; i < 10; i++)
        {
            textLength = await handler.ScrapeToAsync(Stream.Null);
        }

        // The counter is process-wide, and the test host allocates on its own threads now and then (up to ~0.8 MB at
        // once): the smallest of a few windows is the scrape's own figure, which a real per-scrape cost raises in all.
        const int Scrapes = 50;
        var blocks = handler.BlocksCreated;
        var windows = new List<long>();
        for (var window = 0; window < 4; window++)
        {
            var before = GC.GetTotalAllocatedBytes(precise: true);
            for (var i = 0; i < Scrapes; i++)
            {
                await handler.ScrapeToAsync(Stream.Null);
            }

            windows.Add((GC.GetTotalAllocatedBytes(precise: true) - before) / Scrapes);
        }

        var perScrape = windows.Min();
        output.WriteLine($"{string.Join(", ", windows)} bytes allocated per scrape of {textLength} bytes of text in 4 windows of {Scrapes}; {handler.BlocksCreated - blocks} pipe blocks created");
        Assert.Equal(blocks, handler.BlocksCreated);
        Assert.True(textLength > 200_000, $"text is only {textLength} bytes");
        Assert.True(perScrape < 2048, $"{perScrape} bytes allocated per scrape of {textLength} bytes of text");
    }

    [Fact]
    public async Task A_protobuf_scrape_with_native_histograms_allocates_as_little_as_a_text_one()
    {
        using var meter = new Meter("AllocProtobuf");
        using var provider = Sdk.CreateMeterProviderBuilder()
            .SetResourceBuilder(ResourceBuilder.CreateEmpty().AddService("alloc", autoGenerateServiceInstanceId: false))
            .AddMeter(meter.Name)
            .AddPrometheusNativeHistogramView(_ => new Base2ExponentialBucketHistogramConfiguration { MaxScale = 4 })
            .AddPrometheusPullExporter(out var handler)
            .Build();
        var counter = meter.CreateCounter<long>("flushes", "{flush}");
        var histogram = meter.CreateHistogram<double>("write.size", "By", null, null,
            new InstrumentAdvice<double> { HistogramBucketBoundaries = [512, 1024, 2048, 4096, 8192, 16384, 32768, 49152, 61440] });
        for (var db = 0; db < 200; db++)
        {
            var tag = new KeyValuePair<string, object?>("sqlserver.database.name", "database_" + db);
            counter.Add(db, tag);
            for (var v = 1; v <= 20; v++)
            {
                histogram.Record(512 * v * (1 + (db % 5)), tag);
            }
        }

        long length = 0;
        for (var i = 0; i < 10; i++)
        {
            length = await handler.ScrapeToAsync(Stream.Null, PrometheusFormat.Protobuf);
        }

        const int Scrapes = 50;
        var windows = new List<long>();
        for (var window = 0; window < 4; window++)
        {
            var before = GC.GetTotalAllocatedBytes(precise: true);
            for (var i = 0; i < Scrapes; i++)
            {
                await handler.ScrapeToAsync(Stream.Null, PrometheusFormat.Protobuf);
            }

            windows.Add((GC.GetTotalAllocatedBytes(precise: true) - before) / Scrapes);
        }

        var perScrape = windows.Min();
        output.WriteLine($"{string.Join(", ", windows)} bytes allocated per protobuf scrape of {length} bytes in 4 windows of {Scrapes}");
        Assert.True(length > 50_000, $"the scrape is only {length} bytes");
        Assert.True(perScrape < 2048, $"{perScrape} bytes allocated per protobuf scrape of {length} bytes");
    }
}
