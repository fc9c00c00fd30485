using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.SqlServer.PerfMon;

namespace LogFlushMonitor.SqlServer.Tests.PerfMon;

/// <summary>PerfMon reads through the real <see cref="LogFlushAggregator"/>: the same rates as the DMV path.</summary>
public class PerfMonAggregationTests
{
    [Fact]
    public void Raw_cumulative_rate_counters_become_a_rate_per_second_in_Core()
    {
        var aggregator = new LogFlushAggregator();
        var time = new ManualTimeProvider();
        var reader = PerfMonCounterReaderTests.NewReader(aggregator, time);

        reader.Deliver([new("Log Flushes/sec", "sales", PerfMonCounterTypes.RateOfCountsPerSecond64, 1000, 0)]);
        time.Advance(TimeSpan.FromSeconds(15));
        reader.Deliver([new("Log Flushes/sec", "sales", PerfMonCounterTypes.RateOfCountsPerSecond64, 1300, 0)]);

        var sales = aggregator.Snapshot().Single(d => d.Database == "sales");
        Assert.Equal(300, sales.CounterFlushesTotal);
        Assert.Equal(20, sales.CounterFlushesPerSecond!.Value, 6);
    }
}
