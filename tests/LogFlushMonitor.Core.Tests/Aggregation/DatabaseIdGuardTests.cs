using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;

namespace LogFlushMonitor.Core.Tests.Aggregation;

public class DatabaseIdGuardTests
{
    private const string Sql1 = "sql1";
    private static readonly DateTime T0 = new(2026, 11, 22, 12, 0, 0, DateTimeKind.Utc);

    [Theory]
    [InlineData(-1)]
    [InlineData(32768)]
    [InlineData(2_000_000)]
    [InlineData(int.MinValue)]
    public void An_event_with_a_database_id_sql_server_cannot_assign_is_counted_as_malformed_and_the_rest_is_aggregated(int badId)
    {
        var agg = new LogFlushAggregator();
        EventSample[] batch =
        [
            EventSample.Of(new LogFlushEvent(Sql1, 5, "shop", 512, 1, T0)),
            EventSample.Of(new LogFlushEvent(Sql1, badId, null, 512, 2, T0)),
            EventSample.Of(new WaitEvent(Sql1, "WRITELOG", TimeSpan.FromMilliseconds(1), badId, null, T0, 3)),
            EventSample.Of(new LogFlushEvent(Sql1, 5, "shop", 1024, 4, T0)),
        ];

        agg.Apply(batch);
        agg.OnLogFlush(new LogFlushEvent(Sql1, badId, null, 512, 5, T0));
        agg.OnBatch(SignalRegistry.FlushBuckets.Row(Sql1, T0, new FlushBucketRow(badId, null, 512, 7)));

        var db = Assert.Single(agg.Snapshot());
        Assert.Equal(("shop", 2L), (db.Database, db.WriteSizes.Count));
        var instance = Assert.Single(agg.SnapshotInstances());
        Assert.Equal((2L, 3L + 7L), (instance.EventsReceived, instance.LostMalformed));
    }

    [Theory]
    [InlineData(0)]
    [InlineData(32767)]
    public void The_edges_of_the_database_id_range_are_aggregated(int id)
    {
        var agg = new LogFlushAggregator();
        agg.OnLogFlush(new LogFlushEvent(Sql1, id, null, 512, 1, T0));
        Assert.Equal(1, Assert.Single(agg.Snapshot()).WriteSizes.Count);
        Assert.Equal(0, Assert.Single(agg.SnapshotInstances()).LostMalformed);
    }
}
