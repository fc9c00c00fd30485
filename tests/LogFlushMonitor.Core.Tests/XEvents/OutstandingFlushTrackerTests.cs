using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;
using LogFlushMonitor.Core.XEvents;

namespace LogFlushMonitor.Core.Tests.XEvents;

public class OutstandingFlushTrackerTests
{
    private static readonly DateTime T0 = new(2026, 11, 25, 12, 0, 0, DateTimeKind.Utc);

    private static LogFlushEvent Start(int db, ulong block, DateTime t) => new("sql1", db, "shop", 512, block, t);

    private static LogFlushEvent Complete(int db, ulong block, DateTime t) => new("sql1", db, "shop", 0, block, t, TimeSpan.FromTicks(1));

    private static OutstandingFlushReading Read(OutstandingFlushSource source, int db)
    {
        var list = new List<OutstandingFlushReading>();
        source.Read(list);
        return list.SingleOrDefault(o => o.DatabaseId == db);
    }

    [Fact]
    public void Starts_without_their_complete_are_outstanding_and_age_on_the_newest_sample_time_of_the_instance()
    {
        var sink = new RecordingSink();
        var tracker = new OutstandingFlushTracker(sink);
        tracker.OnLogFlush(Start(5, 1, T0));
        tracker.OnLogFlush(Complete(5, 1, T0.AddMilliseconds(1))); // shop's completes are collected
        tracker.OnLogFlush(Start(5, 2, T0.AddSeconds(1)));
        tracker.OnLogFlush(Start(5, 3, T0.AddSeconds(2)));
        var source = Assert.Single(sink.OutstandingSources);
        Assert.Equal("sql1", source.Instance);

        // Only polls arrive while nothing completes: their times move the clock.
        tracker.OnBatch(SignalRegistry.Counters.Row("sql1", T0.AddSeconds(41), new CounterRow("Databases", "Log Flushes/sec", "shop", 10, PerfCounterType.BulkCount)));
        Assert.Equal(new OutstandingFlushReading(5, 2, 40), Read(source, 5));
        Assert.Equal(3, sink.FlushStarts.Count); // everything passed on
    }

    [Fact]
    public void A_database_whose_completes_are_not_collected_has_no_outstanding_flushes()
    {
        var sink = new RecordingSink();
        var tracker = new OutstandingFlushTracker(sink);
        for (var i = 1; i <= 100; i++)
        {
            tracker.OnLogFlush(Start(7, (ulong)i, T0.AddMilliseconds(i)));
        }

        tracker.OnBatch(SignalRegistry.Counters.Row("sql1", T0.AddSeconds(60), new CounterRow("Databases", "Log Flushes/sec", "audit", 100, PerfCounterType.BulkCount)));
        Assert.Equal(0, Read(Assert.Single(sink.OutstandingSources), 7).Count);
        Assert.Equal(0, tracker.Table("sql1")!.Count);
    }

    [Fact]
    public void A_restart_retires_what_was_outstanding()
    {
        var sink = new RecordingSink();
        var tracker = new OutstandingFlushTracker(sink);
        tracker.OnBatch(SignalRegistry.ServerStart.Row("sql1", T0, new ServerStartRow(T0.AddDays(-3))));
        tracker.OnLogFlush(Complete(5, 1, T0));
        tracker.OnLogFlush(Start(5, 2, T0.AddSeconds(1)));
        tracker.OnBatch(SignalRegistry.ServerStart.Row("sql1", T0.AddSeconds(5), new ServerStartRow(T0.AddDays(-3)))); // same start: nothing happens
        Assert.Equal(1, tracker.Table("sql1")!.Count);

        tracker.OnBatch(SignalRegistry.ServerStart.Row("sql1", T0.AddSeconds(40), new ServerStartRow(T0.AddSeconds(38))));
        Assert.Equal(0, tracker.Table("sql1")!.Count);
        Assert.Equal(1, tracker.Table("sql1")!.Retired);
    }

    [Fact]
    public void Pairing_on_the_way_allocates_nothing_per_event_once_the_instance_is_known()
    {
        var tracker = new OutstandingFlushTracker(new RecordingSink { Keep = false });
        tracker.OnLogFlush(Complete(5, 1, T0));

        long Allocated(int pairs)
        {
            var before = GC.GetAllocatedBytesForCurrentThread();
            for (var i = 0; i < pairs; i++)
            {
                var block = (ulong)(i + 2);
                tracker.OnLogFlush(Start(5, block, T0));
                tracker.OnLogFlush(Complete(5, block, T0));
            }

            return GC.GetAllocatedBytesForCurrentThread() - before;
        }

        Allocated(10_000); // warm up: JIT
        var small = Allocated(10_000);
        var large = Allocated(50_000);

        // 80,000 more events: one byte per event would show as 80 KB.
        Assert.True(large - small < 8 * 1024, $"small run {small:N0} B, large run {large:N0} B");
    }
}
