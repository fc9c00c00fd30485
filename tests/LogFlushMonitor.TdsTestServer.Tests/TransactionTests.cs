using Dapper;

namespace LogFlushMonitor.TdsTestServer.Tests;

public sealed class TransactionTests
{
    [Fact]
    public async Task Begin_commit_and_rollback_through_SqlClient_are_acknowledged_and_recorded()
    {
        await using var server = new TdsTestServer();
        server.When("insert", TdsResponse.Empty().RowsAffected(1));
        await using var connection = await Open.ConnectionAsync(server);

        await using (var transaction = await connection.BeginTransactionAsync())
        {
            Assert.Equal(1, await connection.ExecuteAsync("insert into t values (1)", transaction: transaction));
            await transaction.CommitAsync();
        }

        await using (var transaction = await connection.BeginTransactionAsync())
        {
            await connection.ExecuteAsync("insert into t values (2)", transaction: transaction);
            await transaction.RollbackAsync();
        }

        Assert.Equal(
            ["BEGIN TRANSACTION", "insert into t values (1)", "COMMIT TRANSACTION", "BEGIN TRANSACTION", "insert into t values (2)", "ROLLBACK TRANSACTION"],
            server.Requests.Select(r => r.Text));
        Assert.Equal(1, await connection.ExecuteAsync("insert into t values (3)"));
    }
}
