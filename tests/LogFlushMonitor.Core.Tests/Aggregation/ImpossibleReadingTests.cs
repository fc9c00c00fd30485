using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;

namespace LogFlushMonitor.Core.Tests.Aggregation;

/// <summary>Issue 20 item 1: values no counter can take never reach an exported series; each is counted and reported.</summary>
public class ImpossibleReadingTests
{
    private static readonly DateTime T0 = new(2026, 11, 22, 12, 0, 0, DateTimeKind.Utc);

    private static long Long(LogFlushAggregator a, string reading)
    {
        return Assert.Single(a.ReadLong(reading)).Value;
    }

    private static List<double> Doubles(LogFlushAggregator a, string reading)
    {
        return [.. a.ReadDouble(reading).Select(m => m.Value)];
    }

    private static long Malformed(LogFlushAggregator a) => a.SnapshotInstances().Single().LostMalformed;

    [Fact]
    public void Minus_one_then_two_to_the_63_leaves_every_exported_counter_and_gauge_possible()
    {
        var rejected = new List<RejectedReading>();
        var a = new LogFlushAggregator(rejected: rejected.Add);
        void Poll(int i, long flushes, long bytes, long percent)
        {
            var t = T0.AddSeconds(15 * i);
            a.OnBatch(SignalRegistry.Counters.Row("sql1", t, new CounterRow("Databases", "Log Flushes/sec", "shop", flushes, PerfCounterType.BulkCount)));
            a.OnBatch(SignalRegistry.Counters.Row("sql1", t, new CounterRow("Databases", "Log Bytes Flushed/sec", "shop", bytes, PerfCounterType.BulkCount)));
            a.OnBatch(SignalRegistry.Counters.Row("sql1", t, new CounterRow("Databases", "Percent Log Used", "shop", percent, PerfCounterType.LargeRawCount)));
        }

        Poll(0, 1_000, 4_096_000, 40);
        Poll(1, 2_000, 8_192_000, 41);
        var flushes = new List<long> { Long(a, "sqlserver.log.flushes") };
        var bytes = new List<long> { Long(a, "sqlserver.log.flushed.bytes") };
        Poll(2, -1, -2, -50);
        flushes.Add(Long(a, "sqlserver.log.flushes"));
        bytes.Add(Long(a, "sqlserver.log.flushed.bytes"));
        Poll(3, long.MaxValue, long.MaxValue - 1, long.MaxValue);
        flushes.Add(Long(a, "sqlserver.log.flushes"));
        bytes.Add(Long(a, "sqlserver.log.flushed.bytes"));
        Poll(4, 2_500, 10_240_000, 42);
        flushes.Add(Long(a, "sqlserver.log.flushes"));
        bytes.Add(Long(a, "sqlserver.log.flushed.bytes"));

        Assert.Equal([1_000L, 1_000, 1_000, 1_500], flushes);
        Assert.Equal([4_096_000L, 4_096_000, 4_096_000, 6_144_000], bytes);
        Assert.Equal([0.42], Doubles(a, "sqlserver.log.usage"));
        Assert.Equal(6, Malformed(a));
        Assert.Equal(6, rejected.Count);
        var r = rejected.First(x => x.Name == "Percent Log Used" && x.Value == long.MaxValue);
        Assert.Equal(("sql1", "shop", ReadingVerdict.OutOfRange), (r.Instance, r.Subject, r.Verdict));
        Assert.Contains(rejected, x => x is { Name: "Log Flushes/sec", Value: -1, Verdict: ReadingVerdict.Negative });
        Assert.Contains(rejected, x => x is { Name: "Log Flushes/sec", Value: long.MaxValue, Verdict: ReadingVerdict.TooFast });
    }

    [Fact]
    public void A_fraction_past_its_base_and_a_size_no_log_can_have_are_refused_and_not_exported()
    {
        var a = new LogFlushAggregator(counters: CounterSelection.Create(["Log Cache Hit Ratio"]));
        a.OnBatch(SignalRegistry.Counters.Row("sql1", T0, new CounterRow("Databases", "Log Cache Hit Ratio", "shop", 150, PerfCounterType.LargeRawFraction, 100)));
        a.OnBatch(SignalRegistry.Counters.Row("sql1", T0, new CounterRow("Databases", "Log File(s) Size (KB)", "shop", CounterSeries.MaxLogSizeKb + 1, PerfCounterType.LargeRawCount)));
        Assert.Empty(Doubles(a, "sqlserver.performance.fraction"));
        var sizes = a.ReadLong("sqlserver.log.size");
        Assert.Empty(sizes);
        Assert.Equal(2, Malformed(a));
    }

    [Fact]
    public void Wait_and_file_stats_refuse_impossible_columns_one_by_one()
    {
        var rejected = new List<RejectedReading>();
        var a = new LogFlushAggregator(rejected: rejected.Add);
        a.OnBatch(SignalRegistry.WaitStats.Row("sql1", T0, new WaitStatsRow("WRITELOG", 10, 100, 5, 10)));
        a.OnBatch(SignalRegistry.WaitStats.Row("sql1", T0.AddSeconds(15), new WaitStatsRow("WRITELOG", 20, -7, 5, long.MaxValue)));
        a.OnBatch(SignalRegistry.WaitStats.Row("sql1", T0.AddSeconds(30), new WaitStatsRow("WRITELOG", 30, 300, 5, 30)));
        a.OnBatch(SignalRegistry.FileStats.Row("sql1", T0, new FileStatsRow(5, "shop", 2, 10, 4096, 1)));
        a.OnBatch(SignalRegistry.FileStats.Row("sql1", T0.AddSeconds(15), new FileStatsRow(5, "shop", 2, -3, 8192, 2)));

        Assert.Equal(20, Long(a, "sqlserver.wait.tasks"));
        Assert.Equal([0.2], Doubles(a, "sqlserver.wait.time"));
        Assert.Equal([0.02], Doubles(a, "sqlserver.wait.signal.time"));
        Assert.Equal(4096, Long(a, "sqlserver.log.file.written.bytes"));
        Assert.Equal(0, Long(a, "sqlserver.log.file.writes"));
        Assert.Equal(3, Malformed(a));
        Assert.Equal(
            [("wait stats", "wait_time_ms", "WRITELOG"), ("file stats", "num_of_writes", "shop")],
            rejected.Select(r => (r.Source, r.Name, r.Subject)));
    }
}
