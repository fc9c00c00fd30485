using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;

namespace LogFlushMonitor.Core.Tests.Aggregation;

/// <summary>Issue 19 item 7: _Total is the instance, internal databases included; never a database a sum counts twice.</summary>
public class InstanceTotalTests
{
    private static readonly DateTime T0 = new(2026, 11, 22, 12, 0, 0, DateTimeKind.Utc);

    [Fact]
    public void Total_goes_to_instance_level_series_without_a_database_so_a_sum_over_databases_is_the_databases()
    {
        var a = new LogFlushAggregator(counters: CounterSelection.Create(["Transactions/sec"]));
        // The Linux capture's shape: _Total also counts model_msdb and model_replicatedmaster, which are skipped.
        foreach (var (t, master, sales, all) in new[] { (T0, 100L, 1_000L, 1_300L), (T0.AddSeconds(15), 169L, 1_351L, 1_820L) })
        {
            foreach (var (db, v) in new[] { ("master", master), ("sales", sales), ("_Total", all) })
            {
                a.OnBatch(SignalRegistry.Counters.Row("sql1", t, new CounterRow("Databases", "Log Flushes/sec", db, v, PerfCounterType.BulkCount)));
                a.OnBatch(SignalRegistry.Counters.Row("sql1", t, new CounterRow("Databases", "Transactions/sec", db, v * 2, PerfCounterType.BulkCount)));
                a.OnBatch(SignalRegistry.Counters.Row("sql1", t, new CounterRow("Databases", "Percent Log Used", db, 25, PerfCounterType.LargeRawCount)));
            }
        }

        var perDatabase = a.ReadLong("sqlserver.log.flushes");
        Assert.Equal(69 + 351, perDatabase.Sum(m => m.Value));
        Assert.All(perDatabase, m => Assert.Contains(m.Tags.ToArray(), kv => kv.Key == MetricAttributes.Database && (string?)kv.Value != "_Total"));

        var instance = a.ReadLong("sqlserver.instance.log.flushes");
        var total = Assert.Single(instance);
        Assert.Equal(520, total.Value);
        Assert.Equal([new KeyValuePair<string, object?>(MetricAttributes.Instance, "sql1")], total.Tags.ToArray());

        var generic = a.ReadDouble("sqlserver.instance.performance.total");
        Assert.Equal(1_040, Assert.Single(generic).Value);
        var usage = a.ReadDouble("sqlserver.log.usage");
        Assert.Equal(2, usage.Count); // _Total's Percent Log Used is no database's usage
    }
}
