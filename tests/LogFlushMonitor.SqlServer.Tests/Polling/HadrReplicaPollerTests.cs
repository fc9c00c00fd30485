using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;
using LogFlushMonitor.SqlServer.Tests.Scripted;
using Microsoft.Extensions.Logging;

namespace LogFlushMonitor.SqlServer.Tests.Polling;

/// <summary>
/// Availability-group replicas (sys.dm_hadr_database_replica_states joined to the replicas, groups and replica states)
/// through the real SqlClient and Dapper against the scripted server: a primary with a synchronous and an asynchronous
/// secondary, and an instance without availability groups.
/// </summary>
public class HadrReplicaPollerTests
{
    [Fact]
    public async Task An_instance_without_availability_groups_gives_no_replica_no_error_and_no_log_line()
    {
        await using var server = new ScriptedSqlServer();
        await using var h = new PollerHarness(server);
        await h.PollAsync();
        await h.PollAsync();

        Assert.Empty(h.Sink.Values<ReplicaRow>());
        Assert.Equal(2, h.Sink.Of<PollEnded>().Count(p => p.Signal == SignalRegistry.HadrReplicas)); // asked, and nothing there
        Assert.Equal(2, server.RequestsFor("sys.dm_hadr_database_replica_states").Count);
        Assert.Equal(HadrReplicasSignal.Statement.Text, server.RequestsFor("sys.dm_hadr_database_replica_states")[0].Text);
        Assert.True(h.Health.IsUp("prod-1", "poller"));
        Assert.DoesNotContain(h.Logger.Lines, l => l.Level >= LogLevel.Information && l.Message.Contains("hadr", StringComparison.OrdinalIgnoreCase));
    }

    [Fact]
    public async Task A_primary_lists_its_own_database_and_each_secondary_with_group_replica_role_and_commit_mode()
    {
        await using var server = new ScriptedSqlServer();
        server.HostAvailabilityGroup();
        await using var h = new PollerHarness(server);
        await h.PollAsync();

        Assert.All(h.Sink.Rows<ReplicaRow>(), r => Assert.Equal("prod-1", r.Instance));
        var rows = h.Sink.Values<ReplicaRow>().OrderBy(r => r.Replica, StringComparer.Ordinal).ToList();
        Assert.Equal(["SQLDR1", "SQLPROD1", "SQLPROD2"], rows.Select(r => r.Replica));
        Assert.All(rows, r => Assert.Equal((5, "sales", "ag_sales"), (r.DatabaseId, r.DatabaseName, r.AvailabilityGroup)));
        var primary = rows[1];
        Assert.Equal(("PRIMARY", "SYNCHRONOUS_COMMIT"), (primary.Role, primary.AvailabilityMode));
        Assert.Null(primary.LogSendQueueKb); // NULL stays NULL: the primary's own copy has no send queue, not an empty one
        Assert.Null(primary.SecondaryLagSeconds);
        var sync = rows[2];
        Assert.Equal(("SECONDARY", "SYNCHRONOUS_COMMIT", "SYNCHRONIZED"), (sync.Role, sync.AvailabilityMode, sync.SynchronizationState));
        Assert.Equal((12L, 5_120L, 64L, 4_800L, 0L), (sync.LogSendQueueKb, sync.LogSendRateKbPerSecond, sync.RedoQueueKb, sync.RedoRateKbPerSecond, sync.SecondaryLagSeconds));
        var async = rows[0];
        Assert.Equal(("SECONDARY", "ASYNCHRONOUS_COMMIT", "SYNCHRONIZING"), (async.Role, async.AvailabilityMode, async.SynchronizationState));
        Assert.Equal((48_000L, 23L, 21L), (async.LogSendQueueKb, async.SecondaryLagSeconds, async.LastHardenedAgeSeconds));
        Assert.Single(h.Sink.Of<PollEnded>(), p => p.Signal == SignalRegistry.HadrReplicas);
    }

    [Fact]
    public async Task Each_secondary_is_behind_the_primary_by_the_difference_of_their_last_commits()
    {
        var aggregator = new LogFlushAggregator(replicas: new ReplicaBehindThresholds(TimeSpan.FromSeconds(10), TimeSpan.FromSeconds(60),
            new Dictionary<string, TimeSpan> { ["sqldr1"] = TimeSpan.FromMinutes(10) })); // its own threshold, named ignoring case
        await using var server = new ScriptedSqlServer();
        server.HostAvailabilityGroup();
        await using var h = new PollerHarness(server, next: aggregator);
        await h.PollAsync();

        var rows = h.Sink.Values<ReplicaRow>().ToDictionary(r => r.Replica);
        Assert.Null(rows["SQLPROD1"].CommitBehindMs); // the primary's own row: behind nothing
        Assert.Equal(3, rows["SQLPROD2"].CommitBehindMs);
        Assert.Equal(23_000, rows["SQLDR1"].CommitBehindMs);
        Assert.Contains("DATEDIFF_BIG(MILLISECOND, drs.last_commit_time", server.RequestsFor("sys.dm_hadr_database_replica_states")[0].Text, StringComparison.Ordinal);

        var replicas = aggregator.SnapshotReplicas().ToDictionary(r => r.Replica);
        Assert.Equal((0.003, 10.0), (replicas["SQLPROD2"].CommitBehindSeconds!.Value, replicas["SQLPROD2"].BehindThresholdSeconds!.Value));
        Assert.Equal((23.0, 600.0), (replicas["SQLDR1"].CommitBehindSeconds!.Value, replicas["SQLDR1"].BehindThresholdSeconds!.Value));
        Assert.Null(replicas["SQLPROD1"].BehindThresholdSeconds);
        // 48,000 KB to send at 2,048 KB/s; 9,000 KB to redo at 1,500 KB/s.
        Assert.Equal(48_000 / 2_048.0, replicas["SQLDR1"].SendDrainSeconds!.Value, 9);
        Assert.Equal(6.0, replicas["SQLDR1"].RedoDrainSeconds!.Value, 9);
        Assert.False(replicas["SQLDR1"].IsBehind);
    }

    [Fact]
    public async Task SQL_Server_2014_takes_the_time_behind_in_whole_seconds_as_DATEDIFF_counts_them()
    {
        await using var server = new ScriptedSqlServer { ProductVersion = "12.0.6024.0" };
        server.Server.Options.ProgramVersion = new Version(12, 0, 6024); // what the login announces: SqlClient's ServerVersion
        server.HostAvailabilityGroup();
        await using var h = new PollerHarness(server);
        await h.PollAsync();

        var rows = h.Sink.Values<ReplicaRow>().ToDictionary(r => r.Replica);
        Assert.Equal(1_000, rows["SQLPROD2"].CommitBehindMs); // 05:59:59.997 to 06:00:00.000 crosses one second boundary
        Assert.Equal(23_000, rows["SQLDR1"].CommitBehindMs);
        Assert.DoesNotContain("DATEDIFF_BIG", server.RequestsFor("sys.dm_hadr_database_replica_states")[0].Text, StringComparison.Ordinal);
    }

    [Fact]
    public async Task The_aggregation_keeps_one_series_per_replica_and_retires_them_when_the_group_goes()
    {
        var aggregator = new LogFlushAggregator();
        await using var server = new ScriptedSqlServer();
        server.HostAvailabilityGroup();
        await using var h = new PollerHarness(server, next: aggregator);
        await h.PollAsync();
        Assert.Equal(3, aggregator.SnapshotReplicas().Count);

        server.ReplicaRows.Clear(); // the database left the group
        await h.PollAsync();
        Assert.Empty(aggregator.SnapshotReplicas());
    }

    [Fact]
    public async Task A_database_the_configuration_excludes_gives_no_replica_rows()
    {
        await using var server = new ScriptedSqlServer();
        server.HostAvailabilityGroup();
        await using var h = new PollerHarness(server, o => o.ExcludeDatabases = ["sales"]);
        await h.PollAsync();

        Assert.Empty(h.Sink.Values<ReplicaRow>());
    }

    [Fact]
    public async Task A_row_without_a_replica_name_is_skipped_counted_and_logged_once()
    {
        await using var server = new ScriptedSqlServer();
        server.HostAvailabilityGroup();
        server.ReplicaRows.Add(new(5, "sales", "ag_sales", null, "SECONDARY", "SYNCHRONOUS_COMMIT", "SYNCHRONIZED", 1, 1, 1, 1, 0, 0));
        await using var h = new PollerHarness(server);
        await h.PollAsync();
        await h.PollAsync();

        Assert.Equal(6, h.Sink.Values<ReplicaRow>().Count);
        Assert.Equal(2, h.Sink.Of<RecordedLoss>().Where(l => l.Kind == LossKind.Malformed).Sum(l => l.Count));
        Assert.Single(h.Logger.Lines, l => l.Message.Contains("replica_server_name", StringComparison.Ordinal));
    }

    [Fact]
    public async Task A_login_the_catalog_hides_the_group_from_still_gets_the_replicas_and_is_told_once_how_to_name_them()
    {
        await using var server = new ScriptedSqlServer { HideAvailabilityGroupCatalog = true };
        server.HostAvailabilityGroup();
        await using var h = new PollerHarness(server);
        await h.PollAsync();
        await h.PollAsync();

        var rows = h.Sink.Values<ReplicaRow>();
        Assert.Equal(6, rows.Count); // never "no availability group" because the catalog would not say
        Assert.All(rows, r => Assert.Equal((ScriptedSqlServer.AgSalesId, "UNKNOWN"), (r.AvailabilityGroup, r.AvailabilityMode)));
        Assert.Contains(rows, r => r.Replica == "SQLPROD2" && r.LogSendQueueKb == 12);
        var warning = Assert.Single(h.Logger.Lines, l => l.EventId == 520);
        Assert.Contains("VIEW ANY DEFINITION", warning.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Without_view_server_state_the_replica_poll_fails_loudly_and_says_nothing_is_there()
    {
        await using var server = new ScriptedSqlServer();
        server.HostAvailabilityGroup();
        await using var h = new PollerHarness(server);
        server.DenyPermission();
        await h.PollAsync();

        Assert.Empty(h.Sink.Values<ReplicaRow>());
        Assert.DoesNotContain(h.Sink.Of<PollEnded>(), p => p.Signal == SignalRegistry.HadrReplicas); // never "no replicas" when it could not look
        Assert.Single(h.Logger.Lines, l => l.EventId == 501 && l.Message.Contains("hadr_replicas", StringComparison.Ordinal));
    }

    [Fact]
    public async Task HADR_SYNC_COMMIT_is_read_from_the_wait_stats_with_the_log_waits()
    {
        await using var server = new ScriptedSqlServer();
        server.SyncCommitWaits(40, 320);
        await using var h = new PollerHarness(server);
        await h.PollAsync();
        await h.PollAsync();

        var request = server.RequestsFor("sys.dm_os_wait_stats")[0];
        Assert.Contains("N'HADR_SYNC_COMMIT'", request.Text, StringComparison.Ordinal);
        var hadr = h.Sink.Values<WaitStatsRow>().Where(w => w.WaitType == "HADR_SYNC_COMMIT").ToList();
        Assert.Equal([(40L, 320L), (80L, 640L)], hadr.Select(w => (w.WaitingTasks, w.WaitTimeMs)));
    }

    [Fact]
    public async Task The_Database_Replica_counters_are_read_with_the_log_counters_and_give_the_delay_per_transaction()
    {
        var aggregator = new LogFlushAggregator();
        await using var server = new ScriptedSqlServer();
        server.HostAvailabilityGroup();
        await using var h = new PollerHarness(server, next: aggregator);
        await h.PollAsync();
        server.TransactionDelayMsPerPoll = 4_000; // the secondary slows down: 10 ms per transaction
        await h.PollAsync();

        var replica = h.Sink.Values<CounterRow>().Where(c => c.ObjectName == "Database Replica").ToList();
        Assert.Equal(["sales"], replica.Select(c => c.CounterInstance).Distinct()); // _Total is no database
        Assert.Contains(replica, c => c is { CounterName: "Mirrored Write Transactions/sec", Value: 800, CounterType: PerfCounterType.BulkCount });
        Assert.Contains(replica, c => c is { CounterName: "Transaction Delay", Value: 4_800 });
        var sales = Assert.Single(aggregator.Snapshot(), d => d.Database == "sales");
        Assert.Equal(10.0, sales.SyncCommitDelayMsPerTransaction!.Value, 6); // 4,000 ms over 400 transactions in the last poll
        Assert.Equal(server.RequestsFor("sys.dm_os_performance_counters").Count, server.RequestsFor("Database Replica").Count); // one statement
    }

    [Fact]
    public async Task Without_availability_groups_there_are_no_Database_Replica_counters_and_no_delay()
    {
        var aggregator = new LogFlushAggregator();
        await using var server = new ScriptedSqlServer();
        await using var h = new PollerHarness(server, next: aggregator);
        await h.PollAsync();
        await h.PollAsync();

        Assert.DoesNotContain(h.Sink.Values<CounterRow>(), c => c.ObjectName == "Database Replica");
        Assert.Null(Assert.Single(aggregator.Snapshot(), d => d.Database == "sales").SyncCommitDelayMsPerTransaction);
    }

    [Theory]
    [InlineData("12.0.6024.0", false)]
    [InlineData("13.00.5026", true)]
    [InlineData("15.00.2000", true)]
    [InlineData("16.00.4135", true)]
    [InlineData("", true)]
    [InlineData(null, true)]
    public void Secondary_lag_is_asked_for_from_SQL_Server_2016_on(string? version, bool expected) =>
        Assert.Equal(expected, HadrReplicasSignal.HasSecondaryLag(ServerProfile.Of(false, version)));
}
