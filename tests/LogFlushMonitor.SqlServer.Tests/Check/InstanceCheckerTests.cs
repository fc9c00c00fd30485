using LogFlushMonitor.SqlServer.Check;
using LogFlushMonitor.SqlServer.Sql;
using LogFlushMonitor.SqlServer.Tests.Scripted;
using LogFlushMonitor.TdsTestServer;

namespace LogFlushMonitor.SqlServer.Tests.Check;

public class InstanceCheckerTests
{
    private static SqlServerInstanceOptions Instance(ScriptedSqlServer server, string? password = null) =>
        new() { Name = "prod-1", ConnectionString = server.ConnectionString(password: password) };

    private static Task<InstanceCheckResult> CheckAsync(SqlServerInstanceOptions instance) =>
        InstanceChecker.CheckAsync(instance, new SqlServerSourceOptions { CommandTimeout = TimeSpan.FromSeconds(5) }, null, CancellationToken.None);

    private static void ScriptXeCatalog(ScriptedSqlServer server)
    {
        server.Server.When(XeSql.Objects, TdsResponse.Rows(
            [TdsColumn.NVarChar("PackageName"), TdsColumn.NVarChar("ObjectName"), TdsColumn.NVarChar("ObjectType")],
            ["sqlserver", "log_flush_start", "event"], ["sqlos", "wait_completed", "event"], ["sqlserver", "database_id", "action"], ["package0", "histogram", "target"]));
        server.Server.When(XeSql.EventColumns, TdsResponse.Rows(
            [TdsColumn.NVarChar("PackageName"), TdsColumn.NVarChar("ObjectName"), TdsColumn.NVarChar("ColumnName"), TdsColumn.NVarChar("TypeName"), TdsColumn.NVarChar("Description")],
            ["sqlserver", "log_flush_start", "write_size", "uint32", "bytes"], ["sqlserver", "log_flush_start", "database_id", "uint32", ""]));
        server.Server.When(XeSql.WriteLogKeys, TdsResponse.Rows([TdsColumn.BigInt("MapKey")], [182L]));
    }

    [Fact]
    public async Task A_well_set_up_2022_instance_is_ok_and_says_what_it_will_collect()
    {
        await using var server = new ScriptedSqlServer { Encrypted = true };
        server.HeldPermissions.Add("VIEW ANY DEFINITION");
        ScriptXeCatalog(server);
        var result = await CheckAsync(Instance(server));

        Assert.True(result.Ok, string.Join("; ", result.Problems));
        Assert.Empty(result.Warnings);
        Assert.Equal(("16.0.4135.4", 3, true), (result.ProductVersion, result.EngineEdition, result.Encrypted));
        Assert.Contains(result.Permissions, p => p is { Permission: "VIEW SERVER PERFORMANCE STATE", Held: true });
        Assert.Contains(result.WillCollect, c => c.StartsWith("log file I/O", StringComparison.Ordinal));
        Assert.Contains(result.WillCollect, c => c.Contains("log_flush_start yes (write_size yes", StringComparison.Ordinal) && c.Contains("WRITELOG per database yes via sqlos.wait_completed", StringComparison.Ordinal));
        var asked = server.RequestsFor("HAS_PERMS_BY_NAME").Where(r => !r.Text.Contains("HAS_DBACCESS", StringComparison.Ordinal)).Select(r => (string)r.Parameter("permission")!).ToList();
        Assert.Contains("VIEW SERVER STATE", asked);
        Assert.All(server.RequestsFor("HAS_PERMS_BY_NAME").Where(r => !r.Text.Contains("HAS_DBACCESS", StringComparison.Ordinal)), r => Assert.Equal(CheckSql.HasServerPermission, r.Text));
    }

    [Fact]
    public async Task The_optional_log_file_grant_is_one_line_saying_optional_whichever_of_its_alternatives_is_held()
    {
        // Issue 35 item 7: without VIEW ANY DEFINITION, check printed three MISSING lines (VIEW ANY DEFINITION, ALTER ANY
        // DATABASE, CREATE DATABASE: any one shows sys.master_files' rows) for one optional need.
        await using var server = new ScriptedSqlServer { Encrypted = true };
        ScriptXeCatalog(server);
        var result = await CheckAsync(Instance(server));
        Assert.True(result.Ok, string.Join("; ", result.Problems));
        var files = Assert.Single(result.Permissions, p => p.Purpose.Contains("sys.master_files", StringComparison.Ordinal));
        Assert.Equal(new PermissionStatus("VIEW ANY DEFINITION (or ALTER ANY DATABASE, or CREATE DATABASE)", false, files.Purpose, Optional: true), files);
        var text = new StringWriter();
        CheckReport.Write(text, [result]);
        Assert.DoesNotContain("MISSING", text.ToString(), StringComparison.Ordinal);
        Assert.Single(text.ToString().Split('\n'), l => l.Contains("sys.master_files", StringComparison.Ordinal) && l.Contains("missing (optional)", StringComparison.Ordinal));

        server.HeldPermissions.Add("ALTER ANY DATABASE");
        var second = await CheckAsync(Instance(server));
        Assert.Equal(new PermissionStatus("ALTER ANY DATABASE", true, files.Purpose, Optional: true), Assert.Single(second.Permissions, p => p.Purpose == files.Purpose));
    }

    [Fact]
    public async Task Check_reports_an_instance_without_counters_as_a_problem_and_a_watched_database_without_them()
    {
        await using var server = new ScriptedSqlServer { Encrypted = true, CountersRegistered = false };
        server.HeldPermissions.Add("VIEW ANY DEFINITION");
        ScriptXeCatalog(server);
        var none = await CheckAsync(Instance(server));
        Assert.False(none.Ok);
        Assert.Contains(none.Problems, p => p.StartsWith("sys.dm_os_performance_counters has no row of the Databases object", StringComparison.Ordinal));

        server.CountersRegistered = true;
        server.Database("sales").HasCounters = false;
        var partial = await CheckAsync(Instance(server));
        Assert.True(partial.Ok, string.Join("; ", partial.Problems));
        Assert.Contains(partial.Warnings, w => w.StartsWith("watched databases without performance counters: sales;", StringComparison.Ordinal));
    }

    [Fact]
    public async Task A_2019_instance_without_VIEW_SERVER_STATE_names_the_missing_permission()
    {
        await using var server = new ScriptedSqlServer { ProductVersion = "15.0.4345.5" };
        server.HeldPermissions.Remove("VIEW SERVER STATE");
        var result = await CheckAsync(Instance(server));

        Assert.False(result.Ok);
        Assert.Contains(result.Problems, p => p.StartsWith("VIEW SERVER STATE is missing", StringComparison.Ordinal));
        Assert.Contains(result.Permissions, p => p is { Permission: "VIEW SERVER STATE", Held: false });
        Assert.DoesNotContain(result.Permissions, p => p.Permission == "VIEW SERVER PERFORMANCE STATE"); // not asked before 2022
        Assert.Contains(result.Warnings, w => w.Contains("not encrypted", StringComparison.Ordinal));
        Assert.Contains(result.Warnings, w => w.Contains("VIEW ANY DEFINITION", StringComparison.Ordinal));
        Assert.Empty(result.WillCollect);
    }

    [Fact]
    public async Task The_2022_finer_event_session_grants_are_enough()
    {
        await using var server = new ScriptedSqlServer();
        server.HeldPermissions.Remove("ALTER ANY EVENT SESSION");
        var result = await CheckAsync(Instance(server));
        Assert.Contains(result.Problems, p => p.StartsWith("ALTER ANY EVENT SESSION", StringComparison.Ordinal));

        foreach (var grant in SqlServer.Setup.SetupScripts.EventSessionGrants2022)
        {
            server.HeldPermissions.Add(grant);
        }

        Assert.True((await CheckAsync(Instance(server))).Ok);
    }

    [Fact]
    public async Task Azure_SQL_Database_checks_database_permissions()
    {
        await using var server = new ScriptedSqlServer { EngineEdition = 5, ProductVersion = "12.0.2000.8" };
        server.HeldPermissions.Remove("ALTER ANY DATABASE EVENT SESSION");
        var result = await CheckAsync(Instance(server));

        Assert.Contains(result.Problems, p => p.StartsWith("ALTER ANY DATABASE EVENT SESSION is missing", StringComparison.Ordinal));
        Assert.All(server.RequestsFor("HAS_PERMS_BY_NAME").Where(r => !r.Text.Contains("HAS_DBACCESS", StringComparison.Ordinal)), r => Assert.Equal(CheckSql.HasDatabasePermission, r.Text));
    }

    [Fact]
    public async Task A_rejected_login_is_a_problem_that_never_shows_the_password()
    {
        await using var server = new ScriptedSqlServer { RejectLogins = true };
        var result = await CheckAsync(Instance(server, "Very-Secret-771"));
        var text = new StringWriter();
        CheckReport.Write(text, [result]);

        Assert.False(result.Ok);
        Assert.Contains("cannot connect (login_failed)", text.ToString(), StringComparison.Ordinal);
        Assert.DoesNotContain("Very-Secret-771", text.ToString(), StringComparison.Ordinal);
        Assert.EndsWith("1 of 1 instance(s) have problems." + Environment.NewLine, text.ToString(), StringComparison.Ordinal);
    }
}
