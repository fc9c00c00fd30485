using LogFlushMonitor.Core.Signals;
using OpenTelemetry.Metrics;

namespace LogFlushMonitor.Core.Tests.Metrics;

/// <summary>
/// Availability-group replicas (sys.dm_hadr_database_replica_states) through the real SDK: the server's KB and KB/s in
/// bytes, one series per database and replica with group, replica, role and commit mode, NULL as no value, and series
/// retired with the rows.
/// </summary>
[Collection("metrics")]
public class ReplicaMetricsTests
{
    private static readonly DateTime T0 = new(2026, 11, 22, 12, 0, 0, DateTimeKind.Utc);

    private static ReplicaRow Row(string replica, string role, string mode, long? sendQueueKb, long? lag) =>
        new(5, "shop", "ag_shop", replica, role, mode, "SYNCHRONIZED", sendQueueKb, sendQueueKb is null ? null : 5_120, sendQueueKb is null ? null : 64,
            sendQueueKb is null ? null : 4_800, lag, 2);

    private static void Poll(MetricsHarness h, params ReplicaRow[] rows) => h.Aggregator.OnBatch(SignalRegistry.HadrReplicas.Batch("sql1", T0, rows, endsPoll: true));

    [Fact]
    public void A_secondary_s_queues_and_rates_are_exported_in_bytes_with_its_group_replica_role_and_mode()
    {
        using var h = new MetricsHarness();
        Poll(h, Row("SQL1", "PRIMARY", "SYNCHRONOUS_COMMIT", null, null), Row("SQL2", "SECONDARY", "SYNCHRONOUS_COMMIT", 12, 0), Row("DR1", "SECONDARY", "ASYNCHRONOUS_COMMIT", 48_000, 23));

        var points = h.Collect();
        var queue = Assert.Single(points, p => p.Name == "sqlserver.replica.log_send_queue.size" && Equals(p.Tags["sqlserver.replica.name"], "SQL2"));
        Assert.Equal(("By", MetricType.DoubleGauge, 12 * 1024.0), (queue.Unit, queue.Type, queue.Value));
        Assert.Equal(("sql1", "shop", "ag_shop", "SECONDARY", "SYNCHRONOUS_COMMIT"),
            (queue.Tags["sqlserver.instance.name"], queue.Tags["sqlserver.database.name"], queue.Tags["sqlserver.availability_group.name"],
             queue.Tags["sqlserver.replica.role"], queue.Tags["sqlserver.replica.availability_mode"]));
        var rate = Assert.Single(points, p => p.Name == "sqlserver.replica.log_send.rate" && Equals(p.Tags["sqlserver.replica.name"], "SQL2"));
        Assert.Equal(("By/s", 5_120 * 1024.0), (rate.Unit, rate.Value));
        var lag = Assert.Single(points, p => p.Name == "sqlserver.replica.secondary.lag" && Equals(p.Tags["sqlserver.replica.name"], "DR1"));
        Assert.Equal(("s", 23.0), (lag.Unit, lag.Value));
        // The primary's own copy has no send queue and no lag: no value, never a 0 that reads as "caught up".
        Assert.DoesNotContain(points, p => p.Name is "sqlserver.replica.log_send_queue.size" or "sqlserver.replica.secondary.lag" && Equals(p.Tags["sqlserver.replica.name"], "SQL1"));
        Assert.Single(points, p => p.Name == "sqlserver.replica.last_hardened.age" && Equals(p.Tags["sqlserver.replica.name"], "SQL1"));
    }

    [Fact]
    public void Without_availability_groups_there_is_no_replica_series_and_a_group_that_goes_takes_its_series_with_it()
    {
        using var h = new MetricsHarness();
        Poll(h);
        Assert.DoesNotContain(h.Collect(), p => p.Name.StartsWith("sqlserver.replica.", StringComparison.Ordinal));

        Poll(h, Row("SQL2", "SECONDARY", "SYNCHRONOUS_COMMIT", 12, 0));
        Assert.Contains(h.Collect(), p => p.Name == "sqlserver.replica.log_send_queue.size");
        Poll(h);
        Assert.DoesNotContain(h.Collect(), p => p.Name.StartsWith("sqlserver.replica.", StringComparison.Ordinal));
    }

    [Fact]
    public void A_failover_starts_series_under_the_new_role_instead_of_keeping_the_old_one()
    {
        using var h = new MetricsHarness();
        Poll(h, Row("SQL2", "SECONDARY", "SYNCHRONOUS_COMMIT", 12, 0));
        Poll(h, Row("SQL2", "PRIMARY", "SYNCHRONOUS_COMMIT", null, null));

        var ages = h.Collect().Where(p => p.Name == "sqlserver.replica.last_hardened.age").ToList();
        Assert.Equal(["PRIMARY"], ages.Select(p => p.Tags["sqlserver.replica.role"]));
    }
}
