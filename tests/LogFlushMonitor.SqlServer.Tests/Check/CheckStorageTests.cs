using LogFlushMonitor.SqlServer.Check;
using LogFlushMonitor.SqlServer.Tests.Scripted;

namespace LogFlushMonitor.SqlServer.Tests.Check;

/// <summary>
/// <c>check</c>'s verdict on the log's storage (issue 33 item 3): each watched database's log write latency since its log
/// file was opened (io_stall_write_ms over num_of_writes), held against Azure's published latency for the tier the
/// governance names, or on SQL Server against the 10-15 ms line, with the source named; information, never a problem.
/// </summary>
public class CheckStorageTests
{
    private static Task<InstanceCheckResult> CheckAsync(ScriptedSqlServer server, bool azure = false) =>
        InstanceChecker.CheckAsync(new SqlServerInstanceOptions { Name = "prod-1", ConnectionString = server.ConnectionString(), Azure = azure },
            new SqlServerSourceOptions { CommandTimeout = TimeSpan.FromSeconds(5) }, null, CancellationToken.None);

    [Fact]
    public async Task Azure_General_Purpose_log_writes_of_6_ms_are_within_the_tiers_published_5_to_7_ms()
    {
        await using var server = new ScriptedSqlServer { EngineEdition = 5, Shape = ServerShape.AzureSqlDatabase };
        server.Database("sales").FlushWaitMsPerPoll = 600; // 100 writes of 6 ms a poll
        var result = await CheckAsync(server, azure: true);

        var line = Assert.Single(result.Storage);
        // Two polls (check's probe of every signal, then this one): 200 writes, 1,200 ms of stall.
        Assert.Equal("sales: log writes take 6 ms on average (io_stall_write_ms / num_of_writes since the log file was opened, 200 writes): within Azure SQL Database General Purpose's published 5-7 ms write latency (Microsoft, \"Resource limits for single databases using the vCore purchasing model\")", line);
        Assert.Contains(result.WillCollect, c => c.StartsWith("log-rate cap: sys.dm_user_db_resource_governance", StringComparison.Ordinal));
        var text = new StringWriter();
        CheckReport.Write(text, [result]);
        Assert.Contains("  storage:    sales: log writes take 6 ms", text.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Business_Critical_log_writes_of_6_ms_are_slower_than_the_tier_promises()
    {
        await using var server = new ScriptedSqlServer { EngineEdition = 5, Shape = ServerShape.AzureSqlDatabase, AzureTier = "BusinessCritical", AzureServiceObjective = "SQLDB_BC_Gen5_4" };
        server.Database("sales").FlushWaitMsPerPoll = 600;
        var result = await CheckAsync(server, azure: true);

        var line = Assert.Single(result.Storage);
        Assert.Contains("slower than Azure SQL Database Business Critical's published 1-2 ms write latency", line, StringComparison.Ordinal);
        Assert.Contains("io_stall_queued_write_ms", line, StringComparison.Ordinal);
        Assert.DoesNotContain(result.Problems, p => p.Contains("storage", StringComparison.OrdinalIgnoreCase) || p.Contains("latency", StringComparison.OrdinalIgnoreCase)); // a verdict, not a problem
        Assert.True(result.Ok, string.Join("; ", result.Problems));
    }

    [Fact]
    public async Task On_SQL_Server_each_database_is_held_against_the_10_to_15_ms_line_worst_first()
    {
        await using var server = new ScriptedSqlServer();
        server.HeldPermissions.Add("VIEW ANY DEFINITION");
        server.Database("sales").FlushWaitMsPerPoll = 2_000; // 20 ms a write
        var result = await CheckAsync(server);

        Assert.StartsWith("sales: log writes take 20 ms on average", result.Storage[0], StringComparison.Ordinal);
        Assert.Contains("over the 10-15 ms Microsoft treats as an I/O bottleneck when it lasts (Microsoft, \"Troubleshoot slow SQL Server performance caused by I/O issues\")", result.Storage[0], StringComparison.Ordinal);
        // The system databases flush once a poll: under 100 writes, no verdict on so little.
        Assert.Single(result.Storage);
        Assert.DoesNotContain(result.WillCollect, c => c.StartsWith("log-rate cap", StringComparison.Ordinal));
    }
}
