using Dapper;
using LogFlushMonitor.Core.Signals;
using Microsoft.Data.SqlClient;

namespace LogFlushMonitor.SqlServer.Tests.Scripted;

public class ScriptedSqlServerTests
{
    [Fact]
    public async Task Counters_grow_between_polls_and_every_database_and_internal_instance_answers()
    {
        await using var server = new ScriptedSqlServer();
        await using var connection = new SqlConnection(server.ConnectionString());
        await connection.OpenAsync();
        var first = (await connection.QueryAsync<(string, string, string, long, int)>(CountersSignal.NamedStatement.Text)).ToList();
        var second = (await connection.QueryAsync<(string, string, string, long, int)>(CountersSignal.NamedStatement.Text)).ToList();

        // master, tempdb, model, msdb, sales, the Linux container's three internal instances and _Total: 8 rows each.
        Assert.Equal(9 * 8, first.Count);
        Assert.Contains(first, r => r.Item3.TrimEnd() == "model_replicatedmaster");
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
        var e = await Assert.ThrowsAsync<SqlException>(() => connection.QueryAsync(WaitStatsSignal.ServerStatement.Text));
        Assert.Equal(300, e.Number);
        Assert.Contains("VIEW SERVER PERFORMANCE STATE", e.Message, StringComparison.Ordinal);
    }
}
