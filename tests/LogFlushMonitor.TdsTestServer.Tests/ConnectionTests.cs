using Microsoft.Data.SqlClient;

namespace LogFlushMonitor.TdsTestServer.Tests;

public sealed class ConnectionTests
{
    [Fact]
    public async Task SqlClient_opens_and_closes_a_connection_and_the_server_sees_the_login()
    {
        await using var server = new TdsTestServer();
        await using (var connection = new SqlConnection(server.ConnectionString("alice", "s3cret") + ";Database=perf;Application Name=lfm-test"))
        {
            await connection.OpenAsync();
            Assert.Equal(System.Data.ConnectionState.Open, connection.State);
            Assert.Equal("perf", connection.Database);
            Assert.StartsWith("15.", connection.ServerVersion, StringComparison.Ordinal);
        }

        var login = Assert.Single(server.Logins);
        Assert.Equal("alice", login.UserName);
        Assert.Equal("s3cret", login.Password);
        Assert.Equal("perf", login.Database);
        Assert.Equal("lfm-test", login.AppName);
    }

    [Fact]
    public async Task A_batch_result_row_reaches_SqlClient()
    {
        await using var server = new TdsTestServer();
        server.When("select 42", TdsResponse.Rows([TdsColumn.Int("answer")], [42]));
        await using var connection = new SqlConnection(server.ConnectionString());
        await connection.OpenAsync();
        await using var command = new SqlCommand("SELECT 42 AS answer", connection);
        Assert.Equal(42, await command.ExecuteScalarAsync());
        var request = Assert.Single(server.Requests);
        Assert.Equal(TdsRequestKind.Batch, request.Kind);
        Assert.Equal("SELECT 42 AS answer", request.Text);
    }
}
