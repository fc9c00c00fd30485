using System.Diagnostics;
using System.Diagnostics.Metrics;
using System.Globalization;
using LogFlushMonitor.Benchmarks.Fleet;
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
/// <c>db-memory</c>: what one watched database costs in the managed heap, by component. Feeds the samples of
/// <c>make-fleet</c>'s recording (<see cref="FleetFileGenerator.Deliver"/>: the same flushes, waits, counters and file
/// stats per database) straight into an aggregation, one kind of sample at a time, and prints the heap growth after a
/// full collection per step, divided by the databases. Then the same with the metric stack of the host (the
/// OpenTelemetry SDK with the series limit of Exporters:CardinalityLimit and our Prometheus exposition) and a few
/// scrapes, so the SDK's share and what a collect keeps show too.
/// Run: dotnet run -c Release --project bench/LogFlushMonitor.Benchmarks -- db-memory [--databases 8000] [--limit 2000]
/// </summary>
public static class DatabaseMemoryProbe
{
    public static int Run(string[] args)
    {
        int databases = 8000, limit = 2000;
        for (var i = 0; i + 1 < args.Length; i += 2)
        {
            switch (args[i])
            {
                case "--databases": databases = int.Parse(args[i + 1], CultureInfo.InvariantCulture); break;
                case "--limit": limit = int.Parse(args[i + 1], CultureInfo.InvariantCulture); break;
                default:
                    Console.Error.WriteLine("db-memory [--databases 8000] [--limit 2000]");
                    return 2;
            }
        }

        Console.WriteLine($"1 instance x {databases:N0} databases (make-fleet's samples), bytes per database in the managed heap after a full collection");
        Console.WriteLine();
        Console.WriteLine("| step | bytes per database |");
        Console.WriteLine("| --- | ---: |");
        AggregationOnly(databases);
        Console.WriteLine();
        Console.WriteLine($"With the metric stack (series limit {limit:N0}, as Exporters:CardinalityLimit):");
        Console.WriteLine();
        Console.WriteLine("| step | bytes per database |");
        Console.WriteLine("| --- | ---: |");
        WithMetricStack(databases, limit);
        return 0;
    }

    private static void AggregationOnly(int databases)
    {
        var baseline = Heap();
        var aggregator = new LogFlushAggregator();
        var step = new Steps(databases, baseline);
        step.Deliver(aggregator, SampleKinds.Flushes, "log flush events (flushes and completions): each database's event state");
        step.Deliver(aggregator, SampleKinds.Waits, "WRITELOG wait events");
        step.Deliver(aggregator, SampleKinds.Counters, "performance counters, 2 polls (the 7 log counters kept of 47)");
        step.Deliver(aggregator, SampleKinds.FileStats, "log file stats, 2 polls");
        step.Deliver(aggregator, SampleKinds.WaitStats, "wait stats (per instance)");
        step.Total("aggregation alone, in all");
        var buffers = new MeasurementBuffers();
        aggregator.Read(buffers);
        step.Note("one read of every observable family, the measurements a collect hands the SDK");
        GC.KeepAlive(buffers);
        GC.KeepAlive(aggregator);
    }

    private static void WithMetricStack(int databases, int limit)
    {
        var baseline = Heap();
        var services = new ServiceCollection().AddMetrics()
            .AddSingleton(_ => new SourceHealth())
            .AddSingleton<LogFlushMetrics>()
            .AddSingleton(sp => new LogFlushAggregator(sp.GetRequiredService<LogFlushMetrics>()))
            .BuildServiceProvider();
        var aggregator = services.GetRequiredService<LogFlushAggregator>();
        services.GetRequiredService<LogFlushMetrics>().SeriesLimit = limit;
        using var provider = Sdk.CreateMeterProviderBuilder()
            .AddMeter(LogFlushMetrics.MeterName)
            .AddView(i => View(i, limit))
            .AddPrometheusPullExporter(out var handler, o => o.ScopeLabelsEnabled = true)
            .Build();
        var step = new Steps(databases, baseline);
        step.Note("the provider, its streams' tables at the limit (a fixed cost, shown per database)");
        step.Deliver(aggregator, SampleKinds.All, "every sample of the fleet, recorded into the SDK too");
        handler.ScrapeToAsync(Stream.Null).GetAwaiter().GetResult();
        step.Note("after the first scrape");
        for (var i = 0; i < 4; i++)
        {
            handler.ScrapeToAsync(Stream.Null).GetAwaiter().GetResult();
        }

        step.Note("after 5 scrapes");
        step.Total("aggregation and metric stack, in all");
        GC.KeepAlive(aggregator);
        handler.Dispose();
        services.Dispose();
    }

    /// <summary>The host's view (TelemetryService.StreamConfiguration): our instruments at the limit, histograms keeping their advised bounds.</summary>
    private static MetricStreamConfiguration? View(Instrument instrument, int limit)
    {
        double[]? bounds = instrument switch
        {
            Histogram<long> h => h.Advice?.HistogramBucketBoundaries?.Select(b => (double)b).ToArray(),
            Histogram<double> h => h.Advice?.HistogramBucketBoundaries?.ToArray(),
            _ => null,
        };
        return bounds is null
            ? new MetricStreamConfiguration { CardinalityLimit = limit }
            : new ExplicitBucketHistogramConfiguration { Boundaries = bounds, CardinalityLimit = limit };
    }

    private static long Heap()
    {
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        return GC.GetTotalMemory(true);
    }

    /// <summary>Prints the heap's growth per database since the last step.</summary>
    private sealed class Steps(int databases, long baseline)
    {
        private long _last = -1;

        public void Deliver(ISampleSink sink, SampleKinds kinds, string what)
        {
            var watch = Stopwatch.StartNew();
            FleetFileGenerator.Deliver(new KindFilter(sink, kinds), 1, databases);
            Note($"{what} ({watch.Elapsed.TotalSeconds:0.0} s)");
        }

        public void Note(string what)
        {
            var now = Heap();
            Console.WriteLine($"| {what} | {(now - (_last < 0 ? baseline : _last)) / (double)databases:N0} |");
            _last = now;
        }

        public void Total(string what)
        {
            Console.WriteLine($"| **{what}** | **{(Heap() - baseline) / (double)databases:N0}** |");
        }
    }

    [Flags]
    private enum SampleKinds
    {
        Flushes = 1,
        Waits = 2,
        Counters = 4,
        FileStats = 8,
        WaitStats = 16,
        All = 31,
    }

    /// <summary>Passes on the samples of the chosen kinds (and every server start), so each kind's state is measured alone.</summary>
    private sealed class KindFilter(ISampleSink inner, SampleKinds kinds) : ISampleSink
    {
        private bool Has(SampleKinds k) => (kinds & k) != 0;

        public void OnLogFlush(in LogFlushEvent flush)
        {
            if (Has(SampleKinds.Flushes))
            {
                inner.OnLogFlush(flush);
            }
        }

        public void OnWait(in WaitEvent wait)
        {
            if (Has(SampleKinds.Waits))
            {
                inner.OnWait(wait);
            }
        }

        public void OnSourceLoss(string instance, LossKind kind, long count)
        {
            if (Has(SampleKinds.Flushes))
            {
                inner.OnSourceLoss(instance, kind, count);
            }
        }

        public void OnBatch(SignalBatch batch)
        {
            var kind = batch.Signal == SignalRegistry.Counters ? SampleKinds.Counters
                : batch.Signal == SignalRegistry.FileStats ? SampleKinds.FileStats
                : batch.Signal == SignalRegistry.WaitStats ? SampleKinds.WaitStats
                : SampleKinds.All; // the server start and the rest pass
            if (Has(kind))
            {
                inner.OnBatch(batch);
            }
        }
    }
}
