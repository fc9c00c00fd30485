using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Sources;
using LogFlushMonitor.SqlServer.Tests.Scripted;

namespace LogFlushMonitor.SqlServer.Tests.Host;

public class RejectedReadingLogTests
{
    [Fact]
    public void Each_impossible_reading_is_logged_once_with_instance_counter_database_value_and_reason()
    {
        var logger = new CapturingLogger();
        var log = new RejectedReadingLog(logger);
        var a = new LogFlushAggregator(rejected: log.Report);
        var t = new DateTime(2026, 11, 22, 12, 0, 0, DateTimeKind.Utc);
        for (var i = 0; i < 3; i++)
        {
            a.OnBatch(Core.Signals.SignalRegistry.Counters.Row("prod1", t.AddSeconds(15 * i), new Core.Signals.CounterRow("Databases", "Percent Log Used", "sales", long.MaxValue, Core.Samples.PerfCounterType.LargeRawCount)));
        }

        var line = Assert.Single(logger.Lines);
        Assert.Equal(320, line.EventId);
        Assert.Contains("prod1: performance counter Percent Log Used of sales read 9223372036854775807, outside what the counter can mean", line.Message, StringComparison.Ordinal);
        Assert.Equal(3, a.SnapshotInstances().Single().LostMalformed);
    }
}
