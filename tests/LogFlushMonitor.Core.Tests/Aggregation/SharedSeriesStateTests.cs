using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;

namespace LogFlushMonitor.Core.Tests.Aggregation;

/// <summary>
/// A database's polled series share what they can (one tag array, one description per counter) instead of each holding
/// a copy, and give it back when they go: the shared state must never outlive its series nor change what is exported.
/// </summary>
public sealed class SharedSeriesStateTests
{
    private static readonly DateTime T0 = new(2026, 11, 22, 12, 0, 0, DateTimeKind.Utc);

    private static void Poll(LogFlushAggregator a, int round, params string[] databases)
    {
        var t = T0.AddSeconds(15 * round);
        foreach (var db in databases)
        {
            a.OnBatch(SignalRegistry.Counters.Row("sql1", t, new CounterRow("Databases", "Log Flushes/sec", db, 100 * (round + 1), PerfCounterType.BulkCount)));
            a.OnBatch(SignalRegistry.Counters.Row("sql1", t, new CounterRow("Databases", "Percent Log Used", db, 40, PerfCounterType.LargeRawCount)));
        }

        a.OnBatch(SignalRegistry.Counters.Row("sql1", t, new CounterRow("Databases", "Log Flushes/sec", "_Total", 1000 * (round + 1), PerfCounterType.BulkCount)));
        a.OnBatch(SignalRegistry.Counters.End("sql1", t));
    }

    private static void Files(LogFlushAggregator a, int round, params string[] databases)
    {
        var t = T0.AddSeconds(15 * round);
        for (var i = 0; i < databases.Length; i++)
        {
            a.OnBatch(SignalRegistry.FileStats.Row("sql1", t, new FileStatsRow(5 + i, databases[i], 2, 10 * (round + 1), 4096 * (round + 1), round)));
        }

        a.OnBatch(SignalRegistry.FileStats.End("sql1", t));
    }

    [Fact]
    public void A_databases_counters_and_log_files_share_one_tag_array_and_series_of_a_counter_share_its_description()
    {
        var a = new LogFlushAggregator();
        Poll(a, 0, "shop", "crm");
        Files(a, 0, "shop", "crm");
        var inst = a.InstanceOf("sql1")!;

        var counters = inst.Find<CountersSignal.State>(SignalRegistry.Counters)!;
        var files = inst.Find<FileStatsSignal.State>(SignalRegistry.FileStats)!;
        var shop = counters.Series.Where(s => s.CounterInstance == "shop").ToList();
        Assert.Equal(2, shop.Count);
        Assert.Same(shop[0].Tags, shop[1].Tags);
        Assert.Same(shop[0].Tags, files.Find(5, 2)!.Tags);
        Assert.Equal(["shop"], shop[0].Tags.Where(t => t.Key == MetricAttributes.Database).Select(t => (string)t.Value!));
        var crmFlushes = counters.Find("Databases", "Log Flushes/sec", "crm")!;
        Assert.Same(counters.Find("Databases", "Log Flushes/sec", "shop")!.Kind, crmFlushes.Kind);
        Assert.NotSame(shop[0].Tags, crmFlushes.Tags);

        // _Total is the instance's: its tags carry no database.
        Assert.DoesNotContain(counters.Find("Databases", "Log Flushes/sec", "_Total")!.Tags, t => t.Key == MetricAttributes.Database);
        Assert.Equal(2, inst.SharedDatabaseTags);
    }

    [Fact]
    public void Shared_tags_go_with_the_last_series_that_used_them_and_a_database_that_comes_back_gets_them_anew()
    {
        var a = new LogFlushAggregator();
        Poll(a, 0, "shop", "crm");
        Files(a, 0, "shop", "crm");
        var inst = a.InstanceOf("sql1")!;
        var files = inst.Find<FileStatsSignal.State>(SignalRegistry.FileStats)!;

        Poll(a, 1, "crm"); // shop's counters are retired; its log file is still listed
        Assert.Equal(2, inst.SharedDatabaseTags);
        Assert.Equal(["shop"], files.Find(5, 2)!.Tags.Where(t => t.Key == MetricAttributes.Database).Select(t => (string)t.Value!));

        Files(a, 1, "crm"); // now its log file too (crm takes database_id 5 in this poll: a new series)
        Assert.Equal(1, inst.SharedDatabaseTags);
        Assert.Equal(["crm"], files.Find(5, 2)!.Tags.Where(t => t.Key == MetricAttributes.Database).Select(t => (string)t.Value!));

        Poll(a, 2, "shop", "crm");
        Assert.Equal(2, inst.SharedDatabaseTags);
        var flushes = a.ReadLong("sqlserver.log.flushes");
        Assert.Equal(["crm", "shop"], flushes.Select(m => (string)m.Tags.ToArray().Single(t => t.Key == MetricAttributes.Database).Value!).Order(StringComparer.Ordinal));

        Poll(a, 3);
        Files(a, 3);
        Assert.Equal(0, inst.SharedDatabaseTags);
    }
}
