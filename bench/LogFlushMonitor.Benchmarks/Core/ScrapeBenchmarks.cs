// Latest results (2026-11-23, shared 2-core AMD EPYC VM, .NET 10.0.12, BenchmarkDotNet 0.14.0, Release). Quiet run,
// before and after back to back at 14:05-14:13 UTC, load average 1-4. 9,387,720 bytes of text.
//
// | Method     | before (main aaa3418) | after (streamed) | allocated |
// |----------- |----------------------:|-----------------:|----------:|
// | Scrape     | 5.87 ms ± 0.40        | 5.54 ms ± 0.10   | 1.52 MB   |
// | ScrapeGzip | -                     | 7.08 ms ± 0.33   | 1.52 MB   |
//
// The 1.52 MB allocated per scrape are the SDK's collect and the observable callbacks of LogFlushMetrics (15,000
// measurements with their tags); the exporter's share is about 1.6 KB (AllocationTests). More in bench/README.md.
//
// 2026-11-26 (issue 21 item 2, one read of the aggregation per collect), load average 8-13, --inProcess, 15 iterations,
// interleaved: before (main 8b76816) 19.37 / 19.47 ms, after 16.72 / 17.26 ms; 507 KB / 506 KB allocated per scrape.
// Run: dotnet run -c Release --project bench/LogFlushMonitor.Benchmarks -- --filter '*ScrapeBenchmarks*'
// Process memory: dotnet run -c Release --project bench/LogFlushMonitor.Benchmarks -- memory

using System.IO.Compression;
using BenchmarkDotNet.Attributes;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;
using LogFlushMonitor.Prometheus;
using Microsoft.Extensions.DependencyInjection;
using OpenTelemetry;
using OpenTelemetry.Metrics;

namespace LogFlushMonitor.Benchmarks.Core;

/// <summary>
/// A full /metrics scrape (SDK collect + text rendering, no HTTP) of the service's real instruments with
/// 10 instances x 100 databases and every metric populated: write-size, flush-duration and WRITELOG histograms,
/// the seven log counters plus a fraction counter, wait stats and log-file stats. Goal: under 50 ms.
/// </summary>
[MemoryDiagnoser]
public class ScrapeBenchmarks
{
    private Fleet _fleet = null!;

    [GlobalSetup]
    public void Setup() => _fleet = Fleet.Create(instances: 10, databases: 100);

    [GlobalCleanup]
    public void Cleanup() => _fleet.Dispose();

    /// <summary>Collect and render, the text streamed to a sink that discards it.</summary>
    [Benchmark(Baseline = true)]
    public Task<long> Scrape() => _fleet.Handler.ScrapeToAsync(Stream.Null);

    /// <summary>The same, gzip-compressed as for Prometheus (which sends Accept-Encoding: gzip).</summary>
    [Benchmark]
    public async Task<long> ScrapeGzip()
    {
        var gzip = new GZipStream(Stream.Null, CompressionLevel.Fastest);
        await using (gzip.ConfigureAwait(false))
        {
            return await _fleet.Handler.ScrapeToAsync(gzip);
        }
    }
}

/// <summary>The service's metric stack populated as a fleet of instances and databases.</summary>
public sealed class Fleet : IDisposable
{
    private Fleet(ServiceProvider services, LogFlushAggregator aggregator, MeterProvider provider, PrometheusScrapeHandler handler)
    {
        Services = services;
        Aggregator = aggregator;
        Provider = provider;
        Handler = handler;
    }

    /// <summary>The container that owns the Meter (IMeterFactory) and the metric stack, as in the host.</summary>
    public ServiceProvider Services { get; }

    public LogFlushAggregator Aggregator { get; }

    public MeterProvider Provider { get; }

    public PrometheusScrapeHandler Handler { get; }

    public static Fleet Create(int instances, int databases, bool scopeLabels = true)
    {
        var services = new ServiceCollection().AddMetrics()
            .AddSingleton(_ => new SourceHealth())
            .AddSingleton<LogFlushMetrics>()
            .AddSingleton(sp => new LogFlushAggregator(sp.GetRequiredService<LogFlushMetrics>()))
            .BuildServiceProvider();
        var aggregator = services.GetRequiredService<LogFlushAggregator>();
        var provider = Sdk.CreateMeterProviderBuilder()
            .AddMeter(LogFlushMetrics.MeterName)
            .AddPrometheusPullExporter(out var handler, o => o.ScopeLabelsEnabled = scopeLabels)
            .Build();
        var t0 = new DateTime(2026, 11, 22, 12, 0, 0, DateTimeKind.Utc);
        for (var i = 0; i < instances; i++)
        {
            var inst = "sql" + i;
            aggregator.OnBatch(SignalRegistry.ServerStart.Row(inst, t0, new ServerStartRow(t0.AddDays(-1))));
            for (var poll = 0; poll < 2; poll++)
            {
                var t = t0.AddSeconds(15 * poll);
                aggregator.OnBatch(SignalRegistry.WaitStats.Row(inst, t, new WaitStatsRow("WRITELOG", 1000 * (poll + 1), 5000 * (poll + 1), 40, 100)));
                aggregator.OnBatch(SignalRegistry.WaitStats.Row(inst, t, new WaitStatsRow("LOGBUFFER", 10 * (poll + 1), 50 * (poll + 1), 4, 1)));
                for (var d = 0; d < databases; d++)
                {
                    var db = "database_" + d;
                    foreach (var (name, type) in Counters)
                    {
                        aggregator.OnBatch(SignalRegistry.Counters.Row(inst, t, new CounterRow("Databases", name, db, 1000L * (poll + 1) * (d + 1), type, type == PerfCounterType.LargeRawFraction ? 2000L * (d + 1) : 0)));
                    }

                    aggregator.OnBatch(SignalRegistry.FileStats.Row(inst, t, new FileStatsRow(5 + d, db, 2, 100 * (poll + 1), 51200 * (poll + 1), 30 * (poll + 1))));
                }
            }

            for (var d = 0; d < databases; d++)
            {
                var db = "database_" + d;
                for (var k = 0; k < 12; k++)
                {
                    aggregator.OnLogFlush(new LogFlushEvent(inst, 5 + d, db, (uint)(512 << (k % 8)), (ulong)k, t0));
                    aggregator.OnLogFlush(new LogFlushEvent(inst, 5 + d, db, 0, (ulong)k, t0, TimeSpan.FromMilliseconds(0.1 * (k + 1))));
                    aggregator.OnWait(new WaitEvent(inst, "WRITELOG", TimeSpan.FromMilliseconds(k + 1), 5 + d, db, t0));
                }
            }
        }

        return new Fleet(services, aggregator, provider!, handler);
    }

    private static readonly (string Name, int Type)[] Counters =
    [
        ("Log Flushes/sec", PerfCounterType.BulkCount),
        ("Log Bytes Flushed/sec", PerfCounterType.BulkCount),
        ("Log Flush Waits/sec", PerfCounterType.BulkCount),
        ("Log Flush Wait Time", PerfCounterType.BulkCount),
        ("Percent Log Used", PerfCounterType.LargeRawCount),
        ("Log File(s) Used Size (KB)", PerfCounterType.LargeRawCount),
        ("Log File(s) Size (KB)", PerfCounterType.LargeRawCount),
        ("Log Cache Hit Ratio", PerfCounterType.LargeRawFraction),
    ];

    public void Dispose()
    {
        Handler.Dispose();
        Provider.Dispose();
        Services.Dispose();
    }
}
