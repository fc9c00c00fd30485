using Dapper;
using LogFlushMonitor.SqlServer.Sql;
using Microsoft.Data.SqlClient;

namespace LogFlushMonitor.SqlServer.Tests.Scripted;

public class ScriptedSqlServerTests
{
    [Fact]
    public async Task Counters_grow_between_polls_and_honour_the_expanded_filter_lists()
    {
        await using var server = new ScriptedSqlServer();
        await using var connection = new SqlConnection(server.ConnectionString());
        await connection.OpenAsync();
        var args = new { includeAll = false, include = new[] { "sales" }, exclude = new[] { "tempdb" } };
        var first = (await connection.QueryAsync<(string, string, string, long, int)>(DmvSql.PerformanceCounters, args)).ToList();
        var second = (await connection.QueryAsync<(string, string, string, long, int)>(DmvSql.PerformanceCounters, args)).ToList();

        Assert.All(first, r => Assert.Contains(r.Item3.TrimEnd(), new[] { "sales", "_Total" }));
        long Flushes(List<(string, string, string, long, int)> rows) => rows.Single(r => r.Item2.TrimEnd() == "Log Flushes/sec" && r.Item3.TrimEnd() == "sales").Item4;
        Assert.Equal(100, Flushes(first));
        Assert.Equal(200, Flushes(second));
    }

    [Fact]
    public async Task Denied_permission_answers_error_300_naming_it()
    {
        await using var server = new ScriptedSqlServer();
        server.DenyPermission("VIEW SERVER PERFORMANCE STATE");
        await using var connection = new SqlConnection(server.ConnectionString());
        await connection.OpenAsync();
        var e = await Assert.ThrowsAsync<SqlException>(() => connection.QueryAsync(DmvSql.WaitStats, new { waitTypes = DmvSql.LogWaitTypes }));
        Assert.Equal(300, e.Number);
        Assert.Contains("VIEW SERVER PERFORMANCE STATE", e.Message, StringComparison.Ordinal);
    }
}
