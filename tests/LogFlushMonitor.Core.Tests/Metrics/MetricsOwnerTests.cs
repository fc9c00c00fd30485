using LogFlushMonitor.Core.Signals;
using System.Diagnostics.Metrics;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Core.Samples;
using Microsoft.Extensions.DependencyInjection;
using OpenTelemetry;
using OpenTelemetry.Metrics;

namespace LogFlushMonitor.Core.Tests.Metrics;

/// <summary>How the metrics read and record the aggregation: once per collect, outside its lock, without allocating per event.</summary>
[Collection("metrics")]
public sealed class MetricsOwnerTests
{
    private static readonly DateTime T0 = new(2026, 11, 22, 12, 0, 0, DateTimeKind.Utc);

    private static void Populate(LogFlushAggregator a, int databases)
    {
        for (var poll = 0; poll < 2; poll++)
        {
            var t = T0.AddSeconds(15 * poll);
            a.OnBatch(SignalRegistry.WaitStats.Row("sql1", t, new WaitStatsRow("WRITELOG", 10 * (poll + 1), 50 * (poll + 1), 4, 1)));
            for (var d = 0; d < databases; d++)
            {
                var db = "db" + d;
                a.OnBatch(SignalRegistry.Counters.Row("sql1", t, new CounterRow("Databases", "Log Flushes/sec", db, 100 * (poll + 1), PerfCounterType.BulkCount)));
                a.OnBatch(SignalRegistry.Counters.Row("sql1", t, new CounterRow("Databases", "Percent Log Used", db, 40, PerfCounterType.LargeRawCount)));
                a.OnBatch(SignalRegistry.FileStats.Row("sql1", t, new FileStatsRow(5 + d, db, 2, 10 * (poll + 1), 4096 * (poll + 1), 3 * (poll + 1))));
            }
        }
    }

    [Fact]
    public void Reading_the_aggregation_copies_no_tags_until_the_collector_reaches_each_measurement()
    {
        // A Measurement copies its tags: lists of Measurements kept a copy of every series' tags between collects.
        var a = new LogFlushAggregator();
        Populate(a, 200);
        var buffers = new MeasurementBuffers();
        a.Read(buffers); // the lists grown to this size
        var measurements = MetricCatalog.All.Where(f => f.Kind != MetricKind.Histogram)
            .Sum(f => f.IsInteger ? buffers.Long(f).Count : buffers.Double(f).Count);

        var allocated = long.MaxValue;
        for (var attempt = 0; attempt < 3; attempt++)
        {
            buffers.Clear();
            var before = GC.GetAllocatedBytesForCurrentThread();
            a.Read(buffers);
            allocated = Math.Min(allocated, GC.GetAllocatedBytesForCurrentThread() - before);
        }

        // 200 databases x 5 families: a copied tag array each (at least 56 bytes) would be over 56 KB.
        Assert.True(measurements >= 1000, $"{measurements} measurements");
        Assert.True(allocated < measurements * 8L, $"{allocated:N0} bytes allocated reading {measurements:N0} measurements");

        // What the collector reads is still each series' value with its tags.
        var flushes = buffers.Long(MetricCatalog.Get("sqlserver.log.flushes"));
        Assert.Equal(200, flushes.Count);
        Assert.All(flushes, m => Assert.Equal(100, m.Value));
        Assert.Equal(Enumerable.Range(0, 200).Select(d => "db" + d).Order(StringComparer.Ordinal),
            flushes.Select(m => (string)m.Tags.ToArray().Single(t => t.Key == MetricAttributes.Database).Value!).Order(StringComparer.Ordinal));
    }

    [Fact]
    public void A_collect_reads_the_aggregation_once_whatever_the_number_of_families()
    {
        using var h = new MetricsHarness();
        Populate(h.Aggregator, 20);
        var before = h.Aggregator.Reads;

        var points = h.Collect();

        // One read under one lock served every family: 1 lock a collect, where each family used to take its own.
        Assert.Equal(before + 1, h.Aggregator.Reads);
        Assert.Equal(20, points.Count(p => p.Name == "sqlserver.log.flushes"));
        Assert.Equal(20, points.Count(p => p.Name == "sqlserver.log.usage"));
        Assert.Equal(20, points.Count(p => p.Name == "sqlserver.log.file.writes"));
        Assert.Single(points, p => p.Name == "sqlserver.wait.tasks");
        h.Collect();
        Assert.Equal(before + 2, h.Aggregator.Reads);
    }

    [Fact]
    public void Per_event_histograms_are_recorded_outside_the_aggregation_lock()
    {
        using var services = new ServiceCollection().AddMetrics().BuildServiceProvider();
        var factory = services.GetRequiredService<IMeterFactory>();
        var aggregator = new LogFlushAggregator(new LogFlushMetrics(factory, new SourceHealth()));
        var recorded = 0;
        var underLock = 0;
        using var listener = new MeterListener
        {
            InstrumentPublished = (i, l) =>
            {
                if (ReferenceEquals(i.Meter.Scope, factory) && i is Histogram<long> or Histogram<double>)
                {
                    l.EnableMeasurementEvents(i);
                }
            },
        };
        void Seen()
        {
            recorded++;
            if (aggregator.HoldsLock)
            {
                underLock++;
            }
        }

        listener.SetMeasurementEventCallback<long>((_, _, _, _) => Seen());
        listener.SetMeasurementEventCallback<double>((_, _, _, _) => Seen());
        listener.Start();

        aggregator.OnLogFlush(new LogFlushEvent("sql1", 5, "shop", 512, 1, T0));
        aggregator.OnWait(new WaitEvent("sql1", "WRITELOG", TimeSpan.FromMilliseconds(2), 5, "shop", T0));
        aggregator.Apply([
            EventSample.Of(new LogFlushEvent("sql1", 5, "shop", 1024, 2, T0)),
            EventSample.Of(new LogFlushEvent("sql1", 5, "shop", 0, 2, T0, TimeSpan.FromMilliseconds(1))),
            EventSample.Of(new WaitEvent("sql1", "WRITELOG", TimeSpan.FromMilliseconds(3), 5, "shop", T0)),
        ]);
        aggregator.OnBatch(SignalRegistry.FlushBuckets.Row("sql1", T0, new FlushBucketRow(5, "shop", 512, 3)));

        Assert.Equal(8, recorded);
        Assert.Equal(0, underLock);
    }

    [Fact]
    public void Applying_events_with_the_sdk_listening_allocates_nothing_per_event()
    {
        using var h = new MetricsHarness();
        var batch = new EventSample[1024];
        for (var i = 0; i < batch.Length; i++)
        {
            var db = i % 10;
            batch[i] = (i % 3) switch
            {
                0 => EventSample.Of(new LogFlushEvent("sql1", 5 + db, "db" + db, (uint)(512 << (i % 7)), (ulong)i, T0)),
                1 => EventSample.Of(new LogFlushEvent("sql1", 5 + db, "db" + db, 0, (ulong)i, T0, TimeSpan.FromTicks(1000 + i))),
                _ => EventSample.Of(new WaitEvent("sql1", "WRITELOG", TimeSpan.FromTicks(5000 + i), 5 + db, "db" + db, T0)),
            };
        }

        h.Aggregator.Apply(batch); // every database and wait type known, the thread's buffer grown

        // Five windows of 10 batches: an allocation per event shows in every window (one byte per event is 10 KB), a
        // one-off of the runtime's (a full run of the suite once showed 6 KB in one window of 20 batches) in one only.
        var windows = new long[5];
        for (var w = 0; w < windows.Length; w++)
        {
            var before = GC.GetAllocatedBytesForCurrentThread();
            for (var round = 0; round < 10; round++)
            {
                h.Aggregator.Apply(batch);
            }

            windows[w] = GC.GetAllocatedBytesForCurrentThread() - before;
        }

        Assert.Equal(51 * 1024, Assert.Single(h.Collect(), p => p.Name == "sqlserver.monitor.events").Value);
        Assert.True(windows.Min() < 1024, $"bytes per window of 10,240 events recorded into the real SDK: {string.Join(", ", windows)}");
    }

    [Fact]
    public async Task Two_providers_collecting_at_once_each_read_every_series()
    {
        using var h = new MetricsHarness();
        Populate(h.Aggregator, 50);
        var exporter = new CapturingExporter();
        using var second = Sdk.CreateMeterProviderBuilder()
            .AddMeter(LogFlushMetrics.MeterName)
            .AddReader(new BaseExportingMetricReader(exporter) { TemporalityPreference = MetricReaderTemporalityPreference.Cumulative })
            .Build()!;
        var failures = new List<string>();
        var first = Task.Run(() =>
        {
            for (var i = 0; i < 100; i++)
            {
                var n = h.Collect().Count(p => p.Name == "sqlserver.log.flushes");
                if (n != 50)
                {
                    lock (failures)
                    {
                        failures.Add($"first provider, collect {i}: {n} series");
                    }
                }
            }
        });
        var other = Task.Run(() =>
        {
            for (var i = 0; i < 100; i++)
            {
                exporter.Clear();
                Assert.True(second.ForceFlush(5000));
                var n = exporter.Points.Count(p => p.Name == "sqlserver.log.flushes");
                if (n != 50)
                {
                    lock (failures)
                    {
                        failures.Add($"second provider, collect {i}: {n} series");
                    }
                }
            }
        });
        await Task.WhenAll(first, other);
        Assert.Empty(failures);
    }
}
