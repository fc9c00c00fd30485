using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Core.Signals;
using LogFlushMonitor.SqlServer.Tests.Scripted;

namespace LogFlushMonitor.SqlServer.Tests.Polling;

/// <summary>
/// The log's space (issue 32) through the real SqlClient against the scripted server: why each log cannot be reused
/// (sys.dm_db_log_stats, and log_reuse_wait_desc before SQL Server 2016 SP2), its log files' room (sys.master_files with
/// sys.dm_os_volume_stats; sys.server_resource_stats on Managed Instance), and the time until it is full. Expected figures
/// are worked out by hand in the comments from the scripted server's documented shapes.
/// </summary>
public class LogSpacePollerTests
{
    [Fact]
    public async Task Sql_Server_2019_reads_sys_dm_db_log_stats_in_bytes_with_the_reason_and_the_log_backup_age()
    {
        var time = new ManualTimeProvider();
        await using var server = new ScriptedSqlServer(time);
        var sales = server.Database("sales");
        sales.LogReuseWait = "LOG_BACKUP";
        var aggregator = new LogFlushAggregator();
        await using var h = new PollerHarness(server, next: aggregator, time: time);
        // 2 h 10 min since the last log backup, on the server's local clock (UTC here).
        sales.LogBackupTimeLocal = time.GetUtcNow().UtcDateTime - TimeSpan.FromMinutes(130);
        await h.PollAsync();

        var request = Assert.Single(server.RequestsFor("sys.dm_db_log_stats"));
        Assert.Equal(LogSpaceSignal.LogStatsStatement.Text, request.Text);
        var row = Assert.Single(h.Sink.Values<LogSpaceRow>(), r => r.DatabaseName == "sales");
        // Log File(s) Size 8,184 KB = 7.99 MB: 8,184 x 1,024 = 8,380,416 B. Active: 12 % of it, 982 KB (integer KB) = 1,005,568 B.
        // 0.5 MB and 0.25 MB since the log backup and the checkpoint: 524,288 and 262,144 B. 130 min = 7,800 s.
        Assert.Equal((5, "FULL", "LOG_BACKUP"), (row.DatabaseId, row.RecoveryModel, row.Reason));
        Assert.Equal((8_380_416L, 1_005_568L, 4L, 1L), (row.TotalBytes, row.ActiveBytes, row.Vlfs, row.ActiveVlfs));
        Assert.Equal((524_288L, 262_144L, 7_800L), (row.SinceLogBackupBytes, row.SinceCheckpointBytes, row.LogBackupAgeSeconds));
        // master, tempdb, model, msdb and sales: every online database, none of them ever backed up but sales.
        Assert.Equal(5, h.Sink.Values<LogSpaceRow>().Count);
        Assert.All(h.Sink.Values<LogSpaceRow>().Where(r => r.DatabaseName != "sales"), r => Assert.Null(r.LogBackupAgeSeconds));
        Assert.Single(h.Sink.PollEnds(SignalRegistry.LogSpace));

        var buffers = Read(aggregator);
        var reason = Assert.Single(Family(buffers, "sqlserver.log.reuse_wait.duration"), m => Tag(m.Tags, MetricAttributes.Database) == "sales");
        Assert.Equal(("LOG_BACKUP", 0.0), (Tag(reason.Tags, MetricAttributes.LogReuseWait), reason.Value)); // first seen at this poll
        Assert.Equal(7_800, Assert.Single(LongFamily(buffers, "sqlserver.log.backup.age"), m => Tag(m.Tags, MetricAttributes.Database) == "sales").Value);
    }

    [Fact]
    public async Task The_reason_is_a_documented_value_never_the_servers_text_and_its_age_grows_while_it_holds()
    {
        await using var server = new ScriptedSqlServer();
        var sales = server.Database("sales");
        sales.LogReuseWait = "ACTIVE_TRANSACTION";
        server.Database("model").LogReuseWait = "OTHER TRANSIENT"; // as the DMV's page spells it
        server.Database("msdb").LogReuseWait = "'; DROP TABLE x; -- a value no page documents";
        var aggregator = new LogFlushAggregator();
        await using var h = new PollerHarness(server, next: aggregator);
        await h.PollAsync();
        await h.PollAsync();
        await h.PollAsync(); // three polls 15 s apart: the reason has held for 30 s

        var reasons = Family(Read(aggregator), "sqlserver.log.reuse_wait.duration").ToDictionary(m => Tag(m.Tags, MetricAttributes.Database)!, m => (Tag(m.Tags, MetricAttributes.LogReuseWait), m.Value));
        Assert.Equal(("ACTIVE_TRANSACTION", 30.0), reasons["sales"]);
        Assert.Equal(("OTHER_TRANSIENT", 30.0), reasons["model"]);
        Assert.Equal(("OTHER", 30.0), reasons["msdb"]);

        sales.LogReuseWait = "NOTHING"; // the transaction ended: a new reason starts from 0
        await h.PollAsync();
        reasons = Family(Read(aggregator), "sqlserver.log.reuse_wait.duration").ToDictionary(m => Tag(m.Tags, MetricAttributes.Database)!, m => (Tag(m.Tags, MetricAttributes.LogReuseWait), m.Value));
        Assert.Equal(("NOTHING", 0.0), reasons["sales"]);
    }

    [Theory]
    [InlineData(13, 4001, false)] // SQL Server 2016 SP1: no sys.dm_db_log_stats
    [InlineData(12, 6024, false)] // 2014 SP3
    [InlineData(13, 5026, true)] // 2016 SP2
    [InlineData(14, 1000, true)] // 2017 RTM
    public async Task The_statement_follows_the_version_the_login_reports(int major, int build, bool logStats)
    {
        await using var server = new ScriptedSqlServer { LoginVersion = new Version(major, 0, build) };
        await using var h = new PollerHarness(server);
        await h.PollAsync();

        Assert.Equal(logStats ? 1 : 0, server.RequestsFor("sys.dm_db_log_stats").Count);
        Assert.Equal(logStats ? 0 : 1, server.RequestsFor("log_reuse_wait_desc").Count);
        var sales = Assert.Single(h.Sink.Values<LogSpaceRow>(), r => r.DatabaseName == "sales");
        // Both give the reason and the sizes (8,184 KB and 982 KB, in bytes); only the DMV gives VLFs.
        Assert.Equal(("NOTHING", 8_380_416L, 1_005_568L), (sales.Reason, sales.TotalBytes, sales.ActiveBytes));
        Assert.Equal(logStats ? 4L : null, sales.Vlfs);
    }

    [Fact]
    public async Task On_an_availability_group_secondary_only_the_backup_time_is_there_and_nothing_is_made_up()
    {
        var time = new ManualTimeProvider();
        await using var server = new ScriptedSqlServer(time);
        var sales = server.Database("sales");
        sales.IsSecondaryReplica = true;
        var aggregator = new LogFlushAggregator();
        await using var h = new PollerHarness(server, next: aggregator, time: time);
        sales.LogBackupTimeLocal = time.GetUtcNow().UtcDateTime - TimeSpan.FromMinutes(5);
        await h.PollAsync();

        var row = Assert.Single(h.Sink.Values<LogSpaceRow>(), r => r.DatabaseName == "sales");
        Assert.Equal((null, null, null, 300L), (row.Reason, row.ActiveBytes, row.Vlfs, row.LogBackupAgeSeconds));
        var buffers = Read(aggregator);
        Assert.DoesNotContain(Family(buffers, "sqlserver.log.reuse_wait.duration"), m => Tag(m.Tags, MetricAttributes.Database) == "sales");
        Assert.DoesNotContain(LongFamily(buffers, "sqlserver.log.active.size"), m => Tag(m.Tags, MetricAttributes.Database) == "sales");
        Assert.Contains(LongFamily(buffers, "sqlserver.log.backup.age"), m => Tag(m.Tags, MetricAttributes.Database) == "sales" && m.Value == 300);
    }

    [Fact]
    public async Task Without_view_any_definition_there_is_no_log_file_and_so_no_headroom_or_time_to_full()
    {
        await using var server = new ScriptedSqlServer();
        var aggregator = new LogFlushAggregator();
        await using var h = new PollerHarness(server, next: aggregator);
        await h.PollAsync();

        Assert.Single(server.RequestsFor("sys.dm_os_volume_stats")); // asked; the catalog shows this login no row
        Assert.Empty(h.Sink.Values<LogFileRow>());
        Assert.Empty(LongFamily(Read(aggregator), "sqlserver.log.headroom"));
    }

    [Fact]
    public async Task The_headroom_is_the_smaller_of_the_max_size_and_the_size_plus_the_volumes_free_space()
    {
        await using var server = new ScriptedSqlServer();
        server.HeldPermissions.Add("VIEW ANY DEFINITION");
        var sales = server.Database("sales");
        sales.LogSizeKb = 1_000_000;
        var aggregator = new LogFlushAggregator();
        await using var h = new PollerHarness(server, next: aggregator);
        await h.PollAsync();

        var file = Assert.Single(h.Sink.Values<LogFileRow>(), f => f.DatabaseName == "sales");
        Assert.Equal((2, 125_000L, 268_435_456L, 8_192L, false), (file.FileId, file.SizePages, file.MaxSizePages, file.Growth, file.PercentGrowth));
        Assert.Equal(("/var/opt/mssql/", 250L << 30, 120L << 30), (file.Volume, file.VolumeTotalBytes, file.VolumeAvailableBytes));
        // 125,000 pages = 1,024,000,000 B; plus 120 GiB free = 129,873,018,880 B, under the 2 TB max (2,199,023,255,552 B).
        var buffers = Read(aggregator);
        Assert.Equal(129_873_018_880, Value(LongFamily(buffers, "sqlserver.log.headroom"), "sales"));
        Assert.Equal(2_199_023_255_552, Value(LongFamily(buffers, "sqlserver.log.max.size"), "sales"));
        Assert.Equal(120L << 30, Value(LongFamily(buffers, "sqlserver.log.volume.available"), "sales"));

        // A max size of 640,000 pages (5,242,880,000 B) is now the smaller: that is the headroom.
        sales.LogMaxSizePages = 640_000;
        await h.PollAsync();
        Assert.Equal(5_242_880_000, Value(LongFamily(Read(aggregator), "sqlserver.log.headroom"), "sales"));
    }

    [Fact]
    public async Task A_log_on_a_volume_the_dmv_cannot_read_is_bounded_by_its_max_size_alone_and_unlimited_is_2_TB()
    {
        await using var server = new ScriptedSqlServer();
        server.HeldPermissions.Add("VIEW ANY DEFINITION");
        var sales = server.Database("sales");
        sales.LogVolume = @"\\fileserver\logs\";
        sales.LogMaxSizePages = -1;
        var aggregator = new LogFlushAggregator();
        await using var h = new PollerHarness(server, next: aggregator);
        await h.PollAsync();

        var file = Assert.Single(h.Sink.Values<LogFileRow>(), f => f.DatabaseName == "sales");
        Assert.Equal((null, null, -1L), (file.Volume, file.VolumeAvailableBytes, file.MaxSizePages));
        var buffers = Read(aggregator);
        Assert.Equal(268_435_456L * 8192, Value(LongFamily(buffers, "sqlserver.log.headroom"), "sales"));
        Assert.DoesNotContain(LongFamily(buffers, "sqlserver.log.volume.available"), m => Tag(m.Tags, MetricAttributes.Database) == "sales");
    }

    [Fact]
    public async Task On_a_managed_instance_the_instance_storage_left_stands_for_the_volume()
    {
        await using var server = new ScriptedSqlServer { EngineEdition = 8, Shape = ServerShape.AzureManagedInstance };
        server.HeldPermissions.Add("VIEW ANY DEFINITION");
        var aggregator = new LogFlushAggregator();
        await using var h = new PollerHarness(server, next: aggregator);
        await h.PollAsync();

        Assert.Single(server.RequestsFor("reserved_storage_mb")); // the instance storage statement (the log-rate cap's reads the same view)
        var file = Assert.Single(h.Sink.Values<LogFileRow>(), f => f.DatabaseName == "sales");
        // Reserved 1,048,576 MB, used 307,200.25 MB (CAST AS bigint: 307,200): 741,376 MB free = 777,389,080,576 B.
        Assert.Equal((LogFilesSignal.InstanceStorage, 1_048_576L * 1_048_576, 741_376L * 1_048_576), (file.Volume, file.VolumeTotalBytes, file.VolumeAvailableBytes));
    }

    [Fact]
    public async Task A_growing_log_gets_a_growth_rate_and_a_time_to_full_with_its_reason_and_a_truncation_starts_over()
    {
        await using var server = new ScriptedSqlServer();
        server.HeldPermissions.Add("VIEW ANY DEFINITION");
        var sales = server.Database("sales");
        sales.LogSizeKb = 1_000_000;
        sales.LogReuseWait = "LOG_BACKUP";
        var aggregator = new LogFlushAggregator();
        await using var h = new PollerHarness(server, next: aggregator);
        foreach (var percent in new[] { 10, 20, 30, 40, 50 })
        {
            sales.PercentLogUsed = percent;
            await h.PollAsync();
        }

        // Active 100,000 KB at 0 s to 500,000 KB at 60 s (the window keeps the readings a minute apart, and the latest):
        // 400,000 x 1,024 B in 60 s = 6,826,666.67 B/s. Headroom 129,873,018,880 B (as above), used 512,000,000 B:
        // (129,873,018,880 - 512,000,000) / 6,826,666.67 = 18,949.368 s.
        var buffers = Read(aggregator);
        Assert.Equal(6_826_666.667, Value(Family(buffers, "sqlserver.log.growth.rate"), "sales"), 3);
        var full = Assert.Single(Family(buffers, "sqlserver.log.time_to_full"), m => Tag(m.Tags, MetricAttributes.Database) == "sales");
        Assert.Equal(18_949.368, full.Value, 3);
        Assert.Equal("LOG_BACKUP", Tag(full.Tags, MetricAttributes.LogReuseWait));
        var snapshot = Assert.Single(aggregator.Snapshot(), d => d.Database == "sales").LogSpace!;
        Assert.Equal(18_949.368, snapshot.TimeToFullSeconds!.Value, 3);

        // A log backup truncates it: no growth is known until the readings span a minute again.
        sales.PercentLogUsed = 5;
        await h.PollAsync();
        buffers = Read(aggregator);
        Assert.DoesNotContain(Family(buffers, "sqlserver.log.time_to_full"), m => Tag(m.Tags, MetricAttributes.Database) == "sales");
        Assert.DoesNotContain(Family(buffers, "sqlserver.log.growth.rate"), m => Tag(m.Tags, MetricAttributes.Database) == "sales");
    }

    [Fact]
    public async Task Check_advises_on_many_vlfs_and_percent_or_1_MB_growth_of_a_large_log_and_says_nothing_of_a_small_one()
    {
        await using var server = new ScriptedSqlServer();
        server.HeldPermissions.Add("VIEW ANY DEFINITION");
        var sales = server.Database("sales");
        sales.Vlfs = 1_204;
        sales.LogSizeKb = 2_000_000; // 250,000 pages: over sp_Blitz's 128,000
        sales.LogPercentGrowth = true;
        sales.LogGrowth = 10;
        server.Database("msdb").LogGrowth = 128; // 1 MB growth, on a small log: nothing to say
        await using var h = new PollerHarness(server);
        await h.PollAsync();

        var advice = SignalRegistry.LogSpace.CheckAdvice(h.Sink.Batches.Where(b => b.Signal == SignalRegistry.LogSpace).ToList())
            .Concat(SignalRegistry.LogFiles.CheckAdvice(h.Sink.Batches.Where(b => b.Signal == SignalRegistry.LogFiles).ToList())).ToList();
        Assert.Equal(2, advice.Count);
        Assert.StartsWith("sales: 1,204 VLFs in the log", advice[0], StringComparison.Ordinal);
        Assert.StartsWith("sales: log file 2 (1.9 GB) grows by 10 %", advice[1], StringComparison.Ordinal);
    }

    [Fact]
    public async Task Without_view_server_state_the_log_space_poll_fails_loudly_and_names_itself()
    {
        await using var server = new ScriptedSqlServer();
        await using var h = new PollerHarness(server);
        server.DenyPermission();
        await h.PollAsync();

        Assert.Empty(h.Sink.Values<LogSpaceRow>());
        Assert.Empty(h.Sink.PollEnds(SignalRegistry.LogSpace)); // never "nothing holds the log" when it could not look
        Assert.Single(h.Logger.Lines, l => l.EventId == 501 && l.Message.Contains("log_space", StringComparison.Ordinal));
    }

    [Fact]
    public async Task A_database_the_configuration_excludes_has_no_log_space_or_log_file_rows()
    {
        await using var server = new ScriptedSqlServer();
        server.HeldPermissions.Add("VIEW ANY DEFINITION");
        await using var h = new PollerHarness(server, o => o.ExcludeDatabases = ["sales"]);
        await h.PollAsync();

        Assert.DoesNotContain(h.Sink.Values<LogSpaceRow>(), r => r.DatabaseName == "sales");
        Assert.DoesNotContain(h.Sink.Values<LogFileRow>(), r => r.DatabaseName == "sales");
        Assert.Contains(h.Sink.Values<LogFileRow>(), r => r.DatabaseName == "master");
    }

    private static MeasurementBuffers Read(LogFlushAggregator aggregator)
    {
        var buffers = new MeasurementBuffers();
        aggregator.Read(buffers);
        return buffers;
    }

    private static MetricDefinition Definition(string name) => MetricCatalog.All.Single(f => f.Name == name);

    private static List<System.Diagnostics.Metrics.Measurement<double>> Family(MeasurementBuffers buffers, string name) => buffers.Double(Definition(name));

    private static List<System.Diagnostics.Metrics.Measurement<long>> LongFamily(MeasurementBuffers buffers, string name) => buffers.Long(Definition(name));

    private static T Value<T>(List<System.Diagnostics.Metrics.Measurement<T>> family, string database)
        where T : struct => Assert.Single(family, m => Tag(m.Tags, MetricAttributes.Database) == database).Value;

    private static string? Tag(ReadOnlySpan<KeyValuePair<string, object?>> tags, string key)
    {
        foreach (var t in tags)
        {
            if (t.Key == key)
            {
                return t.Value as string;
            }
        }

        return null;
    }
}
