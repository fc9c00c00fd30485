using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;
using LogFlushMonitor.Core.XEvents;
using OpenTelemetry.Metrics;

namespace LogFlushMonitor.Core.Tests.Metrics;

/// <summary>
/// Outstanding flushes (read from a source's pair table when the metrics are collected) and WRITELOG waiters (polled),
/// through the real SDK: what a stalled log device shows while every completed-only figure stays flat.
/// </summary>
[Collection("metrics")]
public class InFlightMetricsTests
{
    private static readonly DateTime T0 = new(2026, 11, 22, 12, 0, 0, DateTimeKind.Utc);

    private static ExportedPoint Point(IReadOnlyList<ExportedPoint> points, string name, string database) =>
        Assert.Single(points, p => p.Name == name && Equals(p.Tags.GetValueOrDefault("sqlserver.database.name"), database));

    /// <summary>An aggregation that saw events of shop (5) and audit (6) on sql1, and a source whose table has 8 starts of shop.</summary>
    private static (MetricsHarness Harness, FlushPairTable Table, Func<DateTime, DateTime> SetNow, OutstandingFlushSource Source) Stalled()
    {
        var h = new MetricsHarness();
        var table = new FlushPairTable(concurrentReaders: true);
        var now = T0;
        var source = new OutstandingFlushSource("sql1", () => table, () => now);
        h.Aggregator.OnBatch(SignalRegistry.OutstandingFlushes.Row("sql1", T0, source));
        h.Aggregator.OnLogFlush(new LogFlushEvent("sql1", 5, "shop", 512, 1, T0));
        h.Aggregator.OnLogFlush(new LogFlushEvent("sql1", 6, "audit", 512, 1, T0));
        for (var i = 0; i < 8; i++)
        {
            table.Start(5, (ulong)(100 + i), T0.AddMilliseconds(i).Ticks);
        }

        return (h, table, t => now = t, source);
    }

    [Fact]
    public void A_stall_shows_as_outstanding_flushes_whose_age_grows_with_the_clock_and_zero_for_a_database_without()
    {
        var (h, _, setNow, _) = Stalled();
        using var _h = h;
        setNow(T0.AddSeconds(40));
        var points = h.Collect();

        var count = Point(points, "sqlserver.log.flush.outstanding", "shop");
        Assert.Equal(("{flush}", MetricType.LongGauge, 8.0), (count.Unit, count.Type, count.Value));
        Assert.Equal("sql1", count.Tags["sqlserver.instance.name"]);
        var age = Point(points, "sqlserver.log.flush.outstanding.age", "shop");
        Assert.Equal(("s", MetricType.DoubleGauge), (age.Unit, age.Type));
        Assert.Equal(40.0, age.Value, 3);
        // Measured, none outstanding: 0, not absent.
        Assert.Equal(0, Point(points, "sqlserver.log.flush.outstanding", "audit").Value);
        Assert.Equal(0, Point(points, "sqlserver.log.flush.outstanding.age", "audit").Value);

        setNow(T0.AddSeconds(100));
        Assert.Equal(100.0, Point(h.Collect(), "sqlserver.log.flush.outstanding.age", "shop").Value, 3);
    }

    [Fact]
    public void Flushes_completing_again_bring_the_outstanding_series_back_to_zero()
    {
        var (h, table, setNow, _) = Stalled();
        using var _h = h;
        setNow(T0.AddSeconds(105));
        for (var i = 0; i < 8; i++)
        {
            // The first complete after the stall pairs; it also retires the other seven as older than the grace period.
            table.TryComplete(5, (ulong)(100 + i), T0.AddSeconds(105).Ticks, out _);
        }

        var points = h.Collect();
        Assert.Equal(0, Point(points, "sqlserver.log.flush.outstanding", "shop").Value);
        Assert.Equal(0, Point(points, "sqlserver.log.flush.outstanding.age", "shop").Value);
    }

    [Fact]
    public void A_closed_source_and_an_instance_without_one_have_no_outstanding_series()
    {
        var (h, _, _, source) = Stalled();
        using var _h = h;
        h.Aggregator.OnLogFlush(new LogFlushEvent("sql2", 5, "hist", 512, 1, T0)); // histogram mode: no pairing, no source
        Assert.DoesNotContain(h.Collect(), p => p.Name.StartsWith("sqlserver.log.flush.outstanding", StringComparison.Ordinal) && Equals(p.Tags["sqlserver.instance.name"], "sql2"));

        source.Close(); // the stream stopped (fallback to histogram mode, the instance went away)
        Assert.DoesNotContain(h.Collect(), p => p.Name.StartsWith("sqlserver.log.flush.outstanding", StringComparison.Ordinal));
    }

    [Fact]
    public void A_newer_source_of_the_instance_replaces_the_older_one()
    {
        var (h, _, _, _) = Stalled();
        using var _h = h;
        var fresh = new FlushPairTable(concurrentReaders: true);
        fresh.Start(6, 1, T0.Ticks);
        h.Aggregator.OnBatch(SignalRegistry.OutstandingFlushes.Row("sql1", T0, new OutstandingFlushSource("sql1", () => fresh, () => T0.AddSeconds(20))));

        var points = h.Collect();
        Assert.Equal(0, Point(points, "sqlserver.log.flush.outstanding", "shop").Value);
        Assert.Equal(1, Point(points, "sqlserver.log.flush.outstanding", "audit").Value);
        Assert.Equal(20, Point(points, "sqlserver.log.flush.outstanding.age", "audit").Value, 3);
    }

    [Fact]
    public void Outstanding_flushes_of_a_database_whose_events_all_went_missing_are_still_reported_by_name()
    {
        using var h = new MetricsHarness();
        var table = new FlushPairTable(concurrentReaders: true);
        table.Start(9, 1, T0.Ticks);
        h.Aggregator.OnBatch(SignalRegistry.Databases.Row("sql1", T0, new DatabaseRow(9, "ledger")));
        h.Aggregator.OnBatch(SignalRegistry.OutstandingFlushes.Row("sql1", T0, new OutstandingFlushSource("sql1", () => table, () => T0.AddSeconds(30))));

        Assert.Equal(1, Point(h.Collect(), "sqlserver.log.flush.outstanding", "ledger").Value);
    }

    [Fact]
    public void Writelog_waiters_are_gauges_per_database_from_the_last_poll_and_a_database_the_poll_no_longer_lists_goes()
    {
        using var h = new MetricsHarness();
        void Poll(DateTime t, params (int Id, string Name, int Sessions, long LongestMs)[] rows)
        {
            foreach (var r in rows)
            {
                h.Aggregator.OnBatch(SignalRegistry.WriteLogWaiters.Row("sql1", t, new WriteLogWaitersRow(r.Id, r.Name, r.Sessions, r.LongestMs)));
            }

            h.Aggregator.OnBatch(SignalRegistry.WriteLogWaiters.End("sql1", t));
        }

        Poll(T0, (5, "shop", 8, 40_000), (6, "audit", 0, 0));
        var points = h.Collect();
        var waiting = Point(points, "sqlserver.database.writelog.waiting", "shop");
        Assert.Equal(("{session}", MetricType.LongGauge, 8.0), (waiting.Unit, waiting.Type, waiting.Value));
        var longest = Point(points, "sqlserver.database.writelog.longest_wait", "shop");
        Assert.Equal(("s", MetricType.DoubleGauge, 40.0), (longest.Unit, longest.Type, longest.Value));
        Assert.Equal(0, Point(points, "sqlserver.database.writelog.waiting", "audit").Value);

        Poll(T0.AddSeconds(15), (5, "shop", 0, 0)); // audit was dropped
        points = h.Collect();
        Assert.Equal(0, Point(points, "sqlserver.database.writelog.longest_wait", "shop").Value);
        Assert.DoesNotContain(points, p => p.Name == "sqlserver.database.writelog.waiting" && Equals(p.Tags["sqlserver.database.name"], "audit"));
    }
}
