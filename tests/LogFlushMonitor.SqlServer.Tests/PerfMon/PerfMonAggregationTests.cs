using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.SqlServer.PerfMon;
using LogFlushMonitor.SqlServer.Tests.Polling;
using LogFlushMonitor.SqlServer.Tests.Scripted;

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

    [Fact]
    public async Task Type_272696320_PERF_COUNTER_COUNTER_is_cumulative_alike_on_the_DMV_and_the_PerfMon_path()
    {
        // The DMV reports the 32-bit cumulative type as 272696320; PerfMon as RateOfCountsPerSecond32.
        var viaDmv = new LogFlushAggregator();
        await using var server = new ScriptedSqlServer();
        server.ExtraCounters.Add(("SQLServer:Databases", "Log Flushes/sec", "legacy", 1000, PerfCounterType.Counter));
        await using (var h = new PollerHarness(server, next: viaDmv))
        {
            await h.PollAsync();
            server.ExtraCounters[0] = ("SQLServer:Databases", "Log Flushes/sec", "legacy", 1300, PerfCounterType.Counter);
            await h.PollAsync();
        }

        var viaPerfMon = new LogFlushAggregator();
        var time = new ManualTimeProvider();
        var reader = PerfMonCounterReaderTests.NewReader(viaPerfMon, time);
        reader.Deliver([new("Log Flushes/sec", "legacy", PerfMonCounterTypes.RateOfCountsPerSecond32, 1000, 0)]);
        time.Advance(TimeSpan.FromSeconds(15));
        reader.Deliver([new("Log Flushes/sec", "legacy", PerfMonCounterTypes.RateOfCountsPerSecond32, 1300, 0)]);

        foreach (var aggregator in new[] { viaDmv, viaPerfMon })
        {
            var legacy = aggregator.Snapshot().Single(d => d.Database == "legacy");
            Assert.Equal(300, legacy.CounterFlushesTotal);
            Assert.Equal(20, legacy.CounterFlushesPerSecond!.Value, 6);
            var exported = aggregator.ReadLong("sqlserver.log.flushes");
            Assert.Contains(exported, m => m.Value == 300 && m.Tags.ToArray().Contains(new("sqlserver.database.name", "legacy")));
        }
    }
}
