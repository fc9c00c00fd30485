using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.XEvents;
using LogFlushMonitor.XEvent.Binary;
using LogFlushMonitor.XEvent.TestSupport;

namespace LogFlushMonitor.Core.Tests.XEvents;

/// <summary>Flush latency from the start/complete pair, and the unit of the duration field when there is no pair.</summary>
public class FlushLatencyTests
{
    private static readonly DateTime T0 = new(2026, 11, 25, 12, 0, 0, DateTimeKind.Utc);

    private static (LogFlushAggregator Aggregator, XEventSampleMapper Mapper) Read(Action<XelWriter> write, XelWriterOptions? options = null)
    {
        var ms = new MemoryStream();
        using (var w = new XelWriter(ms, T0, options))
        {
            write(w);
        }

        ms.Position = 0;
        var agg = new LogFlushAggregator();
        var mapper = new XEventSampleMapper("sql1", agg);
        using var reader = new XelReader(ms, "writer.xel");
        reader.ReadAll(ref mapper);
        return (agg, mapper);
    }

    [Fact]
    public void A_flush_whose_duration_field_is_0_at_millisecond_resolution_gets_the_150_microseconds_its_pair_shows()
    {
        var (agg, mapper) = Read(w =>
        {
            for (var i = 0; i < 10; i++)
            {
                var t = T0.AddMilliseconds(i);
                w.LogFlushStart(t, 5, "shop", 512, (ulong)i);
                w.LogFlushComplete(t.AddTicks(1500), 5, "shop", (ulong)i, duration: 0);
            }
        });

        var db = Assert.Single(agg.Snapshot());
        Assert.Equal(10, db.FlushDurations.Count);
        Assert.Equal(0.000150, db.FlushDurations.MaxSeconds, 9);
        Assert.Equal(0.000150, db.FlushDurations.MeanSeconds, 9);
        Assert.Equal(10, mapper.Latency.Paired);
        Assert.Equal(0, mapper.Latency.Pairs.Count);
    }

    [Fact]
    public void Pairs_with_a_duration_field_near_a_thousandth_of_their_time_settle_milliseconds_once_for_the_unpaired_completes()
    {
        var (agg, mapper) = Read(w =>
        {
            for (var i = 0; i < 300; i++)
            {
                var t = T0.AddMilliseconds(10 * i);
                w.LogFlushStart(t, 5, "shop", 512, (ulong)i);
                w.LogFlushComplete(t.AddMilliseconds(3), 5, "shop", (ulong)i, duration: 3);
            }

            w.LogFlushComplete(T0.AddSeconds(10), 5, "shop", 9999, duration: 40); // its start was lost
        }, new XelWriterOptions { FlushDurationDescription = XelWriter.NoUnitDescription });

        Assert.NotNull(mapper.Latency.Decision);
        Assert.Equal(DurationUnit.Milliseconds, mapper.Latency.Decision!.Unit);
        Assert.InRange(mapper.Latency.Decision.MedianRatio, 900, 1100);
        Assert.Equal(DurationUnitEvidence.PairsToSettle, mapper.Latency.Decision.Pairs);
        Assert.Equal(0.040, Assert.Single(agg.Snapshot()).FlushDurations.MaxSeconds, 9);
    }

    [Fact]
    public void A_field_that_counts_microseconds_is_recognised_by_its_pairs_even_when_its_description_names_no_unit()
    {
        var settled = new List<DurationUnitDecision>();
        var ms = new MemoryStream();
        using (var w = new XelWriter(ms, T0, new XelWriterOptions { FlushDurationDescription = XelWriter.NoUnitDescription }))
        {
            for (var i = 0; i < 250; i++)
            {
                var t = T0.AddMilliseconds(10 * i);
                w.LogFlushStart(t, 5, "shop", 512, (ulong)i);
                w.LogFlushComplete(t.AddTicks(4_000), 5, "shop", (ulong)i, duration: 400); // 400 µs both ways
            }

            w.LogFlushComplete(T0.AddSeconds(10), 5, "shop", 9999, duration: 700); // no start: 700 µs, not 0.7 s
        }

        ms.Position = 0;
        var agg = new LogFlushAggregator();
        var mapper = new XEventSampleMapper("sql1", agg);
        mapper.Latency.OnSettled = settled.Add;
        using (var reader = new XelReader(ms, "writer.xel"))
        {
            reader.ReadAll(ref mapper);
        }

        var decision = Assert.Single(settled); // logged once
        Assert.Equal(DurationUnit.Microseconds, decision.Unit);
        Assert.Equal(DurationUnit.Milliseconds, decision.Previous);
        Assert.Contains("microseconds", decision.ToString(), StringComparison.Ordinal);
        Assert.Contains("100 start/complete pairs", decision.ToString(), StringComparison.Ordinal);
        Assert.Equal(0.000700, Assert.Single(agg.Snapshot()).FlushDurations.MaxSeconds, 9);
    }

    [Fact]
    public void Without_pairs_the_unit_named_by_the_files_own_field_description_is_used_else_milliseconds()
    {
        void Write(XelWriter w) => w.LogFlushComplete(T0, 5, "shop", 1, duration: 250);

        var (micro, _) = Read(Write, new XelWriterOptions { FlushDurationDescription = XelWriter.MicrosecondsDescription });
        var (none, _) = Read(Write, new XelWriterOptions { FlushDurationDescription = XelWriter.NoUnitDescription });
        var (milli, _) = Read(Write, new XelWriterOptions { FlushDurationDescription = XelWriter.MillisecondsDescription });

        Assert.Equal(0.000250, Assert.Single(micro.Snapshot()).FlushDurations.MaxSeconds, 9);
        Assert.Equal(0.250, Assert.Single(none.Snapshot()).FlushDurations.MaxSeconds, 9);
        Assert.Equal(0.250, Assert.Single(milli.Snapshot()).FlushDurations.MaxSeconds, 9);
    }

    [Fact]
    public void Wait_durations_are_milliseconds_unless_the_files_description_names_another_unit()
    {
        void Write(XelWriter w)
        {
            w.WaitCompleted(T0, XelWriter.WriteLogKey, duration: 12, databaseId: 5, databaseName: "shop");
            w.WaitInfo(T0, XelWriter.WriteLogKey, opcode: 1, duration: 30, databaseId: 5);
        }

        var (none, _) = Read(Write, new XelWriterOptions { WaitDurationDescription = XelWriter.NoUnitDescription });
        var (micro, _) = Read(Write, new XelWriterOptions { WaitDurationDescription = XelWriter.MicrosecondsDescription });

        Assert.Equal(0.030, Assert.Single(Assert.Single(none.Snapshot()).Waits).MaxSeconds, 9);
        Assert.Equal(0.000030, Assert.Single(Assert.Single(micro.Snapshot()).Waits).MaxSeconds, 9);
    }

    [Fact]
    public void Mapping_starts_completes_and_waits_with_their_pairing_allocates_nothing_per_event()
    {
        static byte[] Make(int flushes)
        {
            var ms = new MemoryStream();
            using (var w = new XelWriter(ms, T0, new XelWriterOptions { BufferSize = 64 * 1024 }))
            {
                for (var i = 0; i < flushes; i++)
                {
                    var t = T0.AddTicks(i * 100L);
                    var db = (uint)(5 + (i % 3));
                    w.LogFlushStart(t, db, "db" + db, 512, (ulong)i, (ulong)(3 * i) + 1);
                    w.LogFlushComplete(t.AddTicks(40), db, "db" + db, (ulong)i, 0, (ulong)(3 * i) + 2);
                    w.WaitCompleted(t.AddTicks(50), XelWriter.WriteLogKey, 1, db, (ulong)(3 * i) + 3, databaseName: "db" + db);
                }
            }

            return ms.ToArray();
        }

        static long Allocated(byte[] file)
        {
            var sink = new CountingSink();
            var before = GC.GetAllocatedBytesForCurrentThread();
            var mapper = new XEventSampleMapper("sql1", sink);
            using (var reader = new XelReader(new MemoryStream(file), "f.xel"))
            {
                reader.ReadAll(ref mapper);
            }

            var bytes = GC.GetAllocatedBytesForCurrentThread() - before;
            Assert.Equal(mapper.FlushCompletes, mapper.Latency.Paired);
            return bytes;
        }

        var small = Make(10_000);
        var large = Make(40_000);
        Allocated(small); // warm up: JIT, first-seen names

        var smallBytes = Allocated(small);
        var largeBytes = Allocated(large);

        // 90,000 more events: one byte per event would show as 90 KB.
        Assert.True(largeBytes - smallBytes < 16 * 1024, $"small run {smallBytes:N0} B, large run {largeBytes:N0} B");
    }

    private sealed class CountingSink : LogFlushMonitor.Core.Samples.IEventSink
    {
        public long Events { get; private set; }

        public void OnLogFlush(in LogFlushMonitor.Core.Samples.LogFlushEvent flush) => Events++;

        public void OnWait(in LogFlushMonitor.Core.Samples.WaitEvent wait) => Events++;

        public void OnSourceLoss(string instance, LogFlushMonitor.Core.Samples.LossKind kind, long count)
        {
        }
    }

    [Theory]
    [InlineData("Duration in microseconds", DurationUnit.Microseconds)]
    [InlineData("The time (us) the flush took", DurationUnit.Microseconds)]
    [InlineData("Duration of the flush in milliseconds", DurationUnit.Milliseconds)]
    [InlineData("Wait time (ms)", DurationUnit.Milliseconds)]
    [InlineData("The status of the flush", null)]
    [InlineData("", null)]
    [InlineData(null, null)]
    public void A_description_names_a_unit_or_none(string? description, DurationUnit? unit) =>
        Assert.Equal(unit, DurationUnits.Named(description));
}
