// Results: see bench/README.md (written after each run).
// Run: dotnet run -c Release --project bench/LogFlushMonitor.Benchmarks -- --filter '*AggregationBenchmarks*'
//
// Latest (2026-11-22 13:39 UTC, --job short, shared 2-core VM, load average 5; per event or per flush):
// | Method             | Mean      | Allocated |
// |------------------- |----------:|----------:|
// | CoreOnly           |  4.394 ns |         - |
// | WithSdk            | 79.513 ns |         - |
// | FlushBucketWithSdk | 74.652 ns |         - |

using BenchmarkDotNet.Attributes;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;
using Microsoft.Extensions.DependencyInjection;
using OpenTelemetry;
using OpenTelemetry.Metrics;

namespace LogFlushMonitor.Benchmarks.Core;

/// <summary>
/// Events per second through the aggregation on one thread, and bytes allocated per event: a batch of 1,024
/// log_flush_start events over 10 databases of one instance (the consumer's shape). <c>CoreOnly</c> is the
/// aggregation alone (exact distribution, counts); <c>WithSdk</c> adds the write-size histogram recorded into a
/// real OpenTelemetry MeterProvider with a Prometheus reader, as in the service. Goal: >= 5 M events/s, 0 B/event.
/// <c>FlushBucketWithSdk</c> is histogram mode's weighted delivery: one bucket of 1,024 flushes of one size, per
/// flush (the SDK has no weighted Record, so the value is recorded 1,024 times; no channel, no per-event state).
/// </summary>
[MemoryDiagnoser]
public class AggregationBenchmarks
{
    private const int Batch = 1024;
    private readonly EventSample[] _events = new EventSample[Batch];
    private LogFlushAggregator _coreOnly = null!;
    private LogFlushAggregator _withSdk = null!;
    private ServiceProvider _services = null!;
    private MeterProvider _provider = null!;
    private SignalBatch _bucket = null!;

    [GlobalSetup]
    public void Setup()
    {
        var instance = "sql1";
        var names = Enumerable.Range(0, 10).Select(i => "db" + i).ToArray();
        var rng = new Random(1);
        for (var i = 0; i < Batch; i++)
        {
            var db = i % 10;
            var size = (uint)(rng.Next(10) < 9 ? 512 : 512 * rng.Next(1, 121));
            _events[i] = EventSample.Of(new LogFlushEvent(instance, 5 + db, names[db], size, (ulong)i, DateTime.UtcNow, null, i + 1));
        }

        _bucket = SignalRegistry.FlushBuckets.Row(instance, DateTime.UtcNow, new FlushBucketRow(5, names[0], 512, Batch));
        _coreOnly = new LogFlushAggregator();
        _services = new ServiceCollection().AddMetrics().AddSingleton(new SourceHealth()).AddSingleton<LogFlushMetrics>().BuildServiceProvider();
        _withSdk = new LogFlushAggregator(_services.GetRequiredService<LogFlushMetrics>());
        _provider = Sdk.CreateMeterProviderBuilder()
            .AddMeter(LogFlushMetrics.MeterName)
            .AddReader(new BaseExportingMetricReader(new NullExporter()) { TemporalityPreference = MetricReaderTemporalityPreference.Cumulative })
            .Build();

        // Warm: every database known, so the measured path is the steady state.
        _coreOnly.Apply(_events);
        _withSdk.Apply(_events);
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _provider.Dispose();
        _services.Dispose();
    }

    [Benchmark(OperationsPerInvoke = Batch)]
    public void CoreOnly() => _coreOnly.Apply(_events);

    [Benchmark(OperationsPerInvoke = Batch)]
    public void WithSdk() => _withSdk.Apply(_events);

    [Benchmark(OperationsPerInvoke = Batch)]
    public void FlushBucketWithSdk() => _withSdk.OnBatch(_bucket);

    private sealed class NullExporter : BaseExporter<Metric>
    {
        public override ExportResult Export(in Batch<Metric> batch) => ExportResult.Success;
    }
}
