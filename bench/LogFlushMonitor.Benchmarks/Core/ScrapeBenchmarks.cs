// Results: see bench/README.md (written after each run).
// Run: dotnet run -c Release --project bench/LogFlushMonitor.Benchmarks -- --filter '*ScrapeBenchmarks*'
// Process memory: dotnet run -c Release --project bench/LogFlushMonitor.Benchmarks -- memory

using BenchmarkDotNet.Attributes;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Core.Samples;
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

    [Benchmark]
    public async Task<int> Scrape()
    {
        using var lease = await _fleet.Handler.ScrapeAsync();
        return lease.Content.Length;
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
            .AddSingleton<EventHistograms>()
            .AddSingleton(sp => new LogFlushAggregator(sp.GetRequiredService<EventHistograms>()))
            .AddSingleton<IAggregationReadings>(sp => sp.GetRequiredService<LogFlushAggregator>())
            .AddSingleton(_ => new SourceHealth())
            .AddSingleton<LogFlushMetrics>()
            .BuildServiceProvider();
        _ = services.GetRequiredService<LogFlushMetrics>();
        var aggregator = services.GetRequiredService<LogFlushAggregator>();
        var provider = Sdk.CreateMeterProviderBuilder()
            .AddMeter(LogFlushMetrics.MeterName)
            .AddPrometheusPullExporter(out var handler, o =>
            {
                o.ScrapeResponseCacheDuration = TimeSpan.Zero;
                o.ScopeLabelsEnabled = scopeLabels;
            })
            .Build();
        var t0 = new DateTime(2026, 11, 22, 12, 0, 0, DateTimeKind.Utc);
        for (var i = 0; i < instances; i++)
        {
            var inst = "sql" + i;
            aggregator.OnServerStart(new ServerStartSample(inst, t0, t0.AddDays(-1)));
            for (var poll = 0; poll < 2; poll++)
            {
                var t = t0.AddSeconds(15 * poll);
                aggregator.OnWaitStats(new WaitStatsSample(inst, t, "WRITELOG", 1000 * (poll + 1), 5000 * (poll + 1), 40, 100));
                aggregator.OnWaitStats(new WaitStatsSample(inst, t, "LOGBUFFER", 10 * (poll + 1), 50 * (poll + 1), 4, 1));
                for (var d = 0; d < databases; d++)
                {
                    var db = "database_" + d;
                    foreach (var (name, type) in Counters)
                    {
                        aggregator.OnCounter(new CounterSample(inst, t, "Databases", name, db, 1000L * (poll + 1) * (d + 1), type, type == PerfCounterType.LargeRawFraction ? 2000L * (d + 1) : 0));
                    }

                    aggregator.OnFileStats(new FileStatsSample(inst, t, 5 + d, db, 2, 100 * (poll + 1), 51200 * (poll + 1), 30 * (poll + 1)));
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
