using LogFlushMonitor.SqlServer.Setup;

namespace LogFlushMonitor.SqlServer.Tests.Setup;

public class SetupScriptsTests
{
    private static readonly string[] NeverGranted = ["sysadmin", "CONTROL SERVER", "ALTER SERVER ROLE", "sp_addsrvrolemember", "db_owner"];

    [Fact]
    public void SQL_Server_2019_gets_VIEW_SERVER_STATE_and_ALTER_ANY_EVENT_SESSION()
    {
        var script = SetupScripts.Build(SetupTarget.SqlServer2019);
        Assert.Contains("GRANT VIEW SERVER STATE TO [logflushmonitor];", script, StringComparison.Ordinal);
        Assert.Contains("GRANT ALTER ANY EVENT SESSION TO [logflushmonitor];", script, StringComparison.Ordinal);
        Assert.DoesNotContain("PERFORMANCE STATE", script, StringComparison.Ordinal);
        Assert.Contains("CREATE LOGIN [logflushmonitor] WITH PASSWORD = N'<replace-with-a-strong-password>'", script, StringComparison.Ordinal);
    }

    [Fact]
    public void SQL_Server_2022_gets_the_narrower_grants()
    {
        var script = SetupScripts.Build(SetupScripts.TargetFor(azure: false, version: 2022));
        Assert.Contains("GRANT VIEW SERVER PERFORMANCE STATE TO [logflushmonitor];", script, StringComparison.Ordinal);
        Assert.DoesNotContain("GRANT VIEW SERVER STATE", script, StringComparison.Ordinal);
        Assert.DoesNotContain("GRANT ALTER ANY EVENT SESSION TO", script, StringComparison.Ordinal);
        Assert.All(SetupScripts.EventSessionGrants2022, g => Assert.Contains($"GRANT {g} TO [logflushmonitor];", script, StringComparison.Ordinal));
    }

    [Fact]
    public void Azure_SQL_Database_gets_database_permissions_only()
    {
        var script = SetupScripts.Build(SetupScripts.TargetFor(azure: true, version: 2022));
        Assert.Contains("GRANT VIEW DATABASE STATE TO [logflushmonitor];", script, StringComparison.Ordinal);
        Assert.Contains("GRANT ALTER ANY DATABASE EVENT SESSION TO [logflushmonitor];", script, StringComparison.Ordinal);
        Assert.DoesNotContain("SERVER", script.Replace("logical server", "", StringComparison.Ordinal), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(SetupTarget.SqlServer2019)]
    [InlineData(SetupTarget.SqlServer2022)]
    [InlineData(SetupTarget.AzureSqlDatabase)]
    public void No_script_grants_more_than_it_needs(SetupTarget target)
    {
        var script = SetupScripts.Build(target);
        var statements = string.Join("\n", script.Split('\n').Where(l => !l.StartsWith("--", StringComparison.Ordinal)));
        Assert.All(NeverGranted, g => Assert.DoesNotContain(g, statements, StringComparison.OrdinalIgnoreCase));
        Assert.DoesNotContain(script.Split('\n'), l => l.StartsWith("GRANT VIEW ANY DEFINITION", StringComparison.Ordinal)); // only as an optional comment
    }

    [Fact]
    public void A_hostile_login_name_is_quoted()
    {
        var script = SetupScripts.Build(SetupTarget.SqlServer2019, "x]; DROP LOGIN sa;--");
        Assert.Contains("CREATE LOGIN [x]]; DROP LOGIN sa;--] WITH", script, StringComparison.Ordinal);
        Assert.Throws<ArgumentException>(() => SetupScripts.Build(SetupTarget.SqlServer2019, new string('a', 129)));
    }

    [Theory]
    [InlineData(SetupTarget.SqlServer2019)]
    [InlineData(SetupTarget.SqlServer2022)]
    [InlineData(SetupTarget.AzureSqlDatabase)]
    public void Deploy_scripts_are_what_setup_sql_prints(SetupTarget target)
    {
        var dir = new DirectoryInfo(AppContext.BaseDirectory);
        while (!File.Exists(Path.Combine(dir!.FullName, "LogFlushMonitor.sln")))
        {
            dir = dir.Parent;
        }

        var path = Path.Combine(dir.FullName, "deploy", "sql", SetupScripts.FileName(target));
        if (Environment.GetEnvironmentVariable("LFM_WRITE_DEPLOY_SQL") == "1")
        {
            Directory.CreateDirectory(Path.GetDirectoryName(path)!);
            File.WriteAllText(path, SetupScripts.Build(target));
        }

        Assert.Equal(SetupScripts.Build(target).ReplaceLineEndings(), File.ReadAllText(path).ReplaceLineEndings());
    }

    /// <summary>Issue 19 item 6: grant nothing the monitor never uses; say what Basic and Standard need for the counters.</summary>
    [Fact]
    public void The_2022_script_grants_no_target_changes_and_the_Azure_script_names_the_tier_rule()
    {
        var grants = SetupScripts.Build(SetupTarget.SqlServer2022);
        Assert.DoesNotContain("ADD TARGET", grants, StringComparison.Ordinal);
        Assert.DoesNotContain("DROP TARGET", grants, StringComparison.Ordinal);
        Assert.Contains("GRANT CREATE ANY EVENT SESSION", grants, StringComparison.Ordinal);

        var azure = SetupScripts.Build(SetupTarget.AzureSqlDatabase);
        Assert.Contains("Basic and Standard", azure, StringComparison.Ordinal);
        Assert.Contains("server admin", azure, StringComparison.Ordinal);
    }
}
