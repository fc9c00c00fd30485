using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;

namespace LogFlushMonitor.Core.Tests.Aggregation;

public class CounterSelectionTests
{
    private static readonly DateTime T0 = new(2026, 11, 22, 12, 0, 0, DateTimeKind.Utc);

    [Theory]
    [InlineData("Log Flushes/sec", true)]
    [InlineData("log flush wait time", true)]
    [InlineData("Log File(s) Size (KB)", true)]
    [InlineData("Log Cache Hit Ratio", false)]
    [InlineData("Transactions/sec", false)]
    [InlineData("Log Pool Requests/sec", false)]
    public void The_default_selects_the_seven_log_counters_only(string counter, bool selected) =>
        Assert.Equal(selected, CounterSelection.Default.Matches(counter));

    [Theory]
    [InlineData("Log Pool *", "Log Pool Requests/sec", true)]
    [InlineData("log pool *", "Log Pool Total Active Log Size", true)]
    [InlineData("Log Pool *", "Log Cache Reads/sec", false)]
    [InlineData("*", "XTP Memory Used (KB)", true)]
    [InlineData("*Transactions/sec", "Write Transactions/sec", true)]
    [InlineData("*Transactions/sec", "Active Transactions", false)]
    [InlineData("Log*Ratio", "Log Cache Hit Ratio", true)]
    [InlineData("Transactions/sec", "Write Transactions/sec", false)]
    [InlineData("Transactions/sec", "TRANSACTIONS/SEC", true)]
    public void Extra_counters_match_by_name_or_star_pattern_ignoring_case(string pattern, string counter, bool selected)
    {
        var selection = CounterSelection.Create([pattern]);
        Assert.Equal(selected, selection.Matches(counter));
        Assert.True(selection.Matches("Log Flushes/sec")); // the defaults stay
    }

    [Fact]
    public void Blank_entries_leave_the_default()
    {
        Assert.Same(CounterSelection.Default, CounterSelection.Create(["", "  "]));
        Assert.True(CounterSelection.Create(null).IsDefaultOnly);
        Assert.False(CounterSelection.Create(["Log Growths"]).IsDefaultOnly);
    }

    [Fact]
    public void The_aggregation_keeps_only_selected_counters_whatever_the_source()
    {
        // A replayed or simulated server reports every counter of the object; only the selected ones become series.
        var agg = new LogFlushAggregator();
        foreach (var (name, type) in new[] { ("Log Flushes/sec", PerfCounterType.BulkCount), ("Transactions/sec", PerfCounterType.BulkCount), ("Log Growths", PerfCounterType.LargeRawCount) })
        {
            agg.OnBatch(SignalRegistry.Counters.Row("sql1", T0, new CounterRow("Databases", name, "shop", 10, type)));
            agg.OnBatch(SignalRegistry.Counters.Row("sql1", T0.AddSeconds(15), new CounterRow("Databases", name, "shop", 20, type)));
        }

        var totals = agg.ReadDouble("sqlserver.performance.total");
        var values = agg.ReadDouble("sqlserver.performance.value");
        var flushes = agg.ReadLong("sqlserver.log.flushes");
        Assert.Empty(totals);
        Assert.Empty(values);
        Assert.Equal(10, Assert.Single(flushes).Value);

        var opted = new LogFlushAggregator(counters: CounterSelection.Create(["Transactions/sec"]));
        opted.OnBatch(SignalRegistry.Counters.Row("sql1", T0, new CounterRow("Databases", "Transactions/sec", "shop", 10, PerfCounterType.BulkCount)));
        opted.OnBatch(SignalRegistry.Counters.Row("sql1", T0.AddSeconds(15), new CounterRow("Databases", "Transactions/sec", "shop", 25, PerfCounterType.BulkCount)));
        totals = opted.ReadDouble("sqlserver.performance.total");
        var total = Assert.Single(totals);
        Assert.Equal(15, total.Value);
        Assert.Contains(new KeyValuePair<string, object?>(MetricAttributes.CounterName, "Transactions/sec"), total.Tags.ToArray());
    }
}
