using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Core.Samples;

namespace LogFlushMonitor.Core.Tests.Metrics;

[Collection("metrics")]
public class AttributeLimitTests
{
    private static readonly DateTime T0 = new(2026, 11, 22, 12, 0, 0, DateTimeKind.Utc);

    [Fact]
    public void Names_longer_than_the_limit_are_cut_once_per_series_and_counted()
    {
        var before = MetricAttributes.Truncated;
        var longName = new string('x', 10 * 1024 * 1024);
        using var h = new MetricsHarness();
        for (var i = 0; i < 1000; i++)
        {
            h.Aggregator.OnLogFlush(new LogFlushEvent("sql1", 5, longName, 512, (ulong)i, T0));
        }

        var tags = h.Aggregator.Snapshot();
        Assert.Equal(longName, Assert.Single(tags).Database); // the aggregation keeps the name; only the export is cut
        var points = h.Collect().Where(p => p.Name == "sqlserver.log.flush.write_size").ToList();
        var database = Assert.Single(points.Select(p => (string)p.Tags[MetricAttributes.Database]!).Distinct());
        Assert.Equal(new string('x', MetricAttributes.MaxValueLength), database);
        Assert.InRange(MetricAttributes.Truncated - before, 1, 10); // per series created, not per event
    }

    [Fact]
    public void A_cut_never_splits_a_surrogate_pair_and_short_values_are_kept_as_they_are()
    {
        var emoji = new string('a', MetricAttributes.MaxValueLength - 1) + "\U0001F600" + "tail";
        var cut = MetricAttributes.Limit(emoji);
        Assert.Equal(MetricAttributes.MaxValueLength - 1, cut.Length);
        Assert.False(char.IsHighSurrogate(cut[^1]));
        var name = "orders";
        Assert.Same(name, MetricAttributes.Limit(name));
    }
}
