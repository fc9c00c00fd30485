using LogFlushMonitor.SqlServer.Check;
using LogFlushMonitor.SqlServer.Tests.Scripted;

namespace LogFlushMonitor.SqlServer.Tests.Check;

/// <summary>
/// Issue 19 item 6: <c>check</c> trusted HAS_PERMS_BY_NAME. On Azure SQL Database Basic and Standard, for one, the
/// counters DMV wants the server admin although VIEW DATABASE STATE is held (the DMV's documentation), so check said
/// "ok" and run then failed. Now check sends every statement run sends and names the one that failed. Each test here
/// fails against the old check: it never sent these statements, so it reported no problem and no temporary session.
/// </summary>
public class CheckProbeTests
{
    private const string Denied = "VIEW SERVER STATE permission was denied on object 'server', database 'master'.";

    private static Task<InstanceCheckResult> CheckAsync(ScriptedSqlServer server, Action<SqlServerInstanceOptions>? configure = null)
    {
        var instance = new SqlServerInstanceOptions { Name = "prod-1", SessionName = "lfm_probe", ConnectionString = server.ConnectionString() };
        configure?.Invoke(instance);
        return InstanceChecker.CheckAsync(instance, new SqlServerSourceOptions { CommandTimeout = TimeSpan.FromSeconds(10) }, null, CancellationToken.None);
    }

    [Theory]
    [InlineData("sys.dm_os_performance_counters", "sys.dm_os_performance_counters (the Databases object)")]
    [InlineData("sys.dm_os_wait_stats", "sys.dm_os_wait_stats (log waits)")]
    [InlineData("sys.dm_os_sys_info", "sys.dm_os_sys_info (start time)")]
    [InlineData("sys.dm_hadr_database_replica_states", "sys.dm_hadr_database_replica_states with sys.availability_replicas, sys.availability_groups and sys.dm_hadr_availability_replica_states (availability replicas)")]
    [InlineData("sys.dm_db_log_stats", "sys.dm_db_log_stats (why the log cannot be reused, its active size, VLFs, the last log backup)")]
    [InlineData("sys.dm_os_volume_stats", "sys.master_files with sys.dm_os_volume_stats (the log files' size, max size, growth and the free space under them)")]
    public async Task A_statement_that_fails_although_the_permission_looks_held_is_named(string fragment, string named)
    {
        await using var server = new ScriptedSqlServer { Encrypted = true };
        server.HeldPermissions.Add("VIEW ANY DEFINITION");
        server.Refuse(fragment, 300, Denied);

        var result = await CheckAsync(server);

        Assert.False(result.Ok);
        Assert.Contains(result.Permissions, p => p is { Permission: "VIEW SERVER STATE", Held: true });
        var problem = Assert.Single(result.Problems, p => p.StartsWith(named + " failed (permission): ", StringComparison.Ordinal));
        Assert.Contains(Denied, problem, StringComparison.Ordinal);
    }

    /// <summary>
    /// Issue 32: check says which statement reads the log's space on this version and advises, from the one poll, on
    /// settings worth changing, without calling them problems or warnings (the exit code stays 0).
    /// </summary>
    [Theory]
    [InlineData(15, 2000, "log space: sys.dm_db_log_stats (why the log cannot be reused, its active size, VLFs, the last log backup)")]
    [InlineData(13, 4001, "log space: sys.databases.log_reuse_wait_desc with the Log File(s) counters (before SQL Server 2016 SP2: no VLF counts, no log backup time)")]
    public async Task Check_names_the_statement_of_the_log_space_and_gives_advice_that_is_no_problem(int major, int build, string collects)
    {
        await using var server = new ScriptedSqlServer { Encrypted = true, LoginVersion = new Version(major, 0, build) };
        server.HeldPermissions.Add("VIEW ANY DEFINITION");
        var sales = server.Database("sales");
        sales.Vlfs = 1_500;
        sales.LogSizeKb = 4_000_000;
        sales.LogGrowth = 128; // 1 MB growth on a 3.8 GB log

        var result = await CheckAsync(server);

        Assert.True(result.Ok, string.Join("; ", result.Problems));
        Assert.Contains(collects, result.WillCollect);
        Assert.Contains("log room: sys.master_files with sys.dm_os_volume_stats (the log files' size, max size, growth and the free space under them)", result.WillCollect);
        // 500,000 pages with 128-page growth: sp_Blitz's check 158. The VLF count only where the DMV gives it.
        Assert.Contains(result.Advice, a => a.StartsWith("sales: log file 2 (3.8 GB) grows by 1 MB", StringComparison.Ordinal));
        Assert.Equal(major > 13, result.Advice.Any(a => a.StartsWith("sales: 1,500 VLFs in the log", StringComparison.Ordinal)));
        Assert.DoesNotContain(result.Warnings, w => w.Contains("VLF", StringComparison.Ordinal) || w.Contains("grows by", StringComparison.Ordinal));
        var text = new StringWriter();
        CheckReport.Write(text, [result]);
        Assert.Contains("  advice:     sales: log file 2 (3.8 GB) grows by 1 MB", text.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Without_view_any_definition_check_warns_that_the_logs_room_and_time_to_full_are_missing()
    {
        await using var server = new ScriptedSqlServer { Encrypted = true };

        var result = await CheckAsync(server);

        Assert.True(result.Ok, string.Join("; ", result.Problems));
        Assert.Contains(result.Warnings, w => w.Contains("the log's room", StringComparison.Ordinal) && w.Contains("SqlServerLogFullSoon", StringComparison.Ordinal));
        Assert.DoesNotContain(result.WillCollect, c => c.StartsWith("log room:", StringComparison.Ordinal));
    }

    [Fact]
    public async Task The_events_are_proved_on_a_temporary_session_that_is_dropped_again()
    {
        await using var server = new ScriptedSqlServer { Encrypted = true };
        server.HeldPermissions.Add("VIEW ANY DEFINITION");

        var result = await CheckAsync(server);

        Assert.True(result.Ok, string.Join("; ", result.Problems));
        Assert.Contains(server.RequestsFor("CREATE EVENT SESSION [lfm_probe_check]"), r => r.Text.Contains("histogram", StringComparison.OrdinalIgnoreCase));
        Assert.Contains(server.RequestsFor("dm_xe_session_targets"), r => (string?)r.Parameter("name") == "lfm_probe_check");
        Assert.Contains(server.RequestsFor("fn_MSxe_read_event_stream"), r => (string?)r.Parameter("name") == "lfm_probe_check");
        Assert.NotEmpty(server.RequestsFor("DROP EVENT SESSION [lfm_probe_check]"));
        Assert.Equal((false, false), server.EventSession("lfm_probe_check"));
        Assert.Equal((false, false), server.EventSession("lfm_probe")); // the real session is run's, not check's
        Assert.Contains(result.WillCollect, c => c.StartsWith("live stream: held open 2 s", StringComparison.Ordinal));
    }

    [Fact]
    public async Task Check_says_what_the_temporary_session_cost_the_server()
    {
        // Issue 30 item 5: the session's own cost as the server measures it, read from the temporary session while it runs.
        await using var server = new ScriptedSqlServer { Encrypted = true, TraceFlag9708 = true };
        server.Server.Options.ProgramVersion = new Version(16, 0, 4135);
        server.HeldPermissions.Add("VIEW ANY DEFINITION");

        var result = await CheckAsync(server);

        Assert.True(result.Ok, string.Join("; ", result.Problems));
        Assert.Contains(server.RequestsFor("sys.dm_xe_session_events"), r => (string?)r.Parameter("name") == "lfm_probe_check");
        // The scripted server's answer: 100 fires of 3 µs per event and read (run's statements are probed first), min 1
        // and max 40 µs, 4 MB of buffers.
        var line = Assert.Single(result.WillCollect, c => c.StartsWith("event session cost", StringComparison.Ordinal));
        Assert.Matches(@"log_flush_start fired [1-9]00 time\(s\), 3\.0 µs on average \(min 1, max 40 µs\), 0\.00[0-9] s in all", line);
        Assert.Contains("4.0 MB of event buffers, 0 full buffer(s) waiting for dispatch", line, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_refused_live_stream_is_a_problem_and_histogram_mode_does_not_open_it()
    {
        await using var server = new ScriptedSqlServer { Encrypted = true };
        server.HeldPermissions.Add("VIEW ANY DEFINITION");
        server.Refuse("fn_MSxe_read_event_stream", 297, "The user does not have permission to perform this action.");

        var result = await CheckAsync(server);
        var problem = Assert.Single(result.Problems);
        Assert.StartsWith("the live stream (sys.fn_MSxe_read_event_stream), held open 2 s failed (permission)", problem, StringComparison.Ordinal);
        Assert.Equal((false, false), server.EventSession("lfm_probe_check")); // dropped after the failure too

        var histogramOnly = await CheckAsync(server, i => i.Mode = CollectionMode.Histogram);
        Assert.True(histogramOnly.Ok, string.Join("; ", histogramOnly.Problems));
    }

    [Fact]
    public async Task Without_VIEW_SERVER_STATE_check_lists_what_is_missing_instead_of_failing_on_the_encryption_query()
    {
        await using var server = new ScriptedSqlServer();
        server.DenyPermission("VIEW SERVER STATE");
        server.DenyPermission("VIEW SERVER PERFORMANCE STATE");

        // Encrypt=Optional: only the server's own row could say; without the permission the answer is unknown.
        var optional = await CheckAsync(server);
        Assert.Null(optional.Encrypted);
        Assert.Contains(optional.Problems, p => p.StartsWith("VIEW SERVER PERFORMANCE STATE (or VIEW SERVER STATE) is missing", StringComparison.Ordinal));
        Assert.DoesNotContain(optional.Problems, p => p.StartsWith("check failed", StringComparison.Ordinal));
    }
}
