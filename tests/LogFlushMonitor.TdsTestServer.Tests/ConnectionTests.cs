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

    [Fact]
    public async Task A_rejected_login_surfaces_as_error_18456_with_the_user_name()
    {
        await using var server = new TdsTestServer(new TdsTestServerOptions { Authenticate = login => login.Password == "right" });
        await using var connection = new SqlConnection(server.ConnectionString("mallory", "wrong"));

        var error = await Assert.ThrowsAsync<SqlException>(connection.OpenAsync);

        Assert.Equal(18456, error.Number);
        Assert.Equal(14, error.Class);
        Assert.Equal(1, error.State);
        Assert.Contains("Login failed for user 'mallory'", error.Message, StringComparison.Ordinal);
        await using var good = new SqlConnection(server.ConnectionString("monitor", "right"));
        await good.OpenAsync();
    }

    [Fact]
    public async Task Without_pooling_every_open_is_a_new_login()
    {
        await using var server = new TdsTestServer();
        for (var i = 0; i < 3; i++)
        {
            await using var connection = await Open.ConnectionAsync(server, pooling: false);
        }

        Assert.Equal(3, server.Logins.Count);
    }

    [Fact]
    public async Task With_pooling_a_returned_connection_is_reused_without_a_new_login()
    {
        await using var server = new TdsTestServer();
        server.When("select 1", TdsResponse.Rows([TdsColumn.Int("one")], [1]));
        for (var i = 0; i < 3; i++)
        {
            await using var connection = await Open.ConnectionAsync(server, pooling: true);
            await using var command = new SqlCommand("select 1", connection);
            Assert.Equal(1, await command.ExecuteScalarAsync());
        }

        Assert.Single(server.Logins);
        Assert.Equal(3, server.Requests.Count);
        Assert.All(server.Requests, r => Assert.Equal(server.Requests[0].ConnectionId, r.ConnectionId));
        SqlConnection.ClearAllPools();
    }

    [Fact]
    public async Task Many_concurrent_connections_are_served()
    {
        await using var server = new TdsTestServer();
        server.When(_ => true, r => TdsResponse.Rows([TdsColumn.NVarChar("echo")], [r.Text]));

        var results = await Task.WhenAll(Enumerable.Range(0, 24).Select(async i =>
        {
            await using var connection = await Open.ConnectionAsync(server);
            await using var command = new SqlCommand($"select {i}", connection);
            return (string?)await command.ExecuteScalarAsync();
        }));

        Assert.Equal(Enumerable.Range(0, 24).Select(i => $"select {i}"), results);
        Assert.Equal(24, server.Requests.Select(r => r.ConnectionId).Distinct().Count());
    }

    [Fact]
    public async Task Disposing_the_server_closes_open_connections()
    {
        var server = new TdsTestServer();
        server.When("select 1", TdsResponse.Rows([TdsColumn.Int("one")], [1]));
        await using var connection = await Open.ConnectionAsync(server);
        Assert.Equal(1, server.OpenConnections);

        await server.DisposeAsync();

        Assert.Equal(0, server.OpenConnections);
        await using var command = new SqlCommand("select 1", connection);
        await Assert.ThrowsAnyAsync<Exception>(command.ExecuteScalarAsync);
    }

    [Fact]
    public async Task A_client_that_insists_on_encryption_is_refused_because_the_server_has_no_TLS()
    {
        await using var server = new TdsTestServer();
        await using var connection = new SqlConnection(server.ConnectionString().Replace("Encrypt=False", "Encrypt=True", StringComparison.Ordinal));

        await Assert.ThrowsAsync<SqlException>(connection.OpenAsync);

        Assert.Empty(server.Logins);
    }

    [Fact]
    public async Task Random_garbage_on_many_sockets_never_stops_the_server()
    {
        await using var server = new TdsTestServer();
        server.When("select 1", TdsResponse.Rows([TdsColumn.Int("n")], [1]));
        var random = new Random(11);
        for (var i = 0; i < 40; i++)
        {
            using var client = new System.Net.Sockets.TcpClient();
            await client.ConnectAsync("127.0.0.1", server.Port);
            var junk = new byte[random.Next(1, 600)];
            random.NextBytes(junk);
            if (i % 2 == 0)
            {
                junk[0] = (byte)(i % 4 == 0 ? 0x12 : 0x10); // look like PRELOGIN or LOGIN7 to get past the first check
            }

            await client.GetStream().WriteAsync(junk);
        }

        await using var connection = await Open.ConnectionAsync(server);
        await using var command = new SqlCommand("select 1", connection);
        Assert.Equal(1, await command.ExecuteScalarAsync());
        Assert.DoesNotContain(server.Events, e => e.Message.StartsWith("unexpected", StringComparison.Ordinal));
    }

    [Fact]
    public async Task A_server_restarted_on_the_same_port_serves_a_client_that_reconnects()
    {
        var first = new TdsTestServer();
        var port = first.Port;
        first.When("select 1", TdsResponse.Rows([TdsColumn.Int("n")], [1]));
        var connectionString = first.ConnectionString(pooling: true);
        await using (var connection = new SqlConnection(connectionString))
        {
            await connection.OpenAsync();
            await using var command = new SqlCommand("select 1", connection);
            Assert.Equal(1, await command.ExecuteScalarAsync());
        }

        await first.DisposeAsync();
        await using var second = new TdsTestServer(new TdsTestServerOptions { Port = port });
        second.When("select 1", TdsResponse.Rows([TdsColumn.Int("n")], [2]));

        // The pooled connection died with the first server; the pool hands it out, the command fails, the next open works.
        var results = new List<object?>();
        for (var attempt = 0; attempt < 3 && results.Count == 0; attempt++)
        {
            try
            {
                await using var connection = new SqlConnection(connectionString);
                await connection.OpenAsync();
                await using var command = new SqlCommand("select 1", connection);
                results.Add(await command.ExecuteScalarAsync());
            }
            catch (SqlException)
            {
            }
        }

        Assert.Equal([2], results);
        Assert.Equal(port, second.Port);
        SqlConnection.ClearAllPools();
    }

    [Fact]
    public async Task A_login_can_be_rejected_with_a_chosen_error_such_as_4060()
    {
        await using var server = new TdsTestServer(new TdsTestServerOptions
        {
            RejectLogin = login => login.Database == "offline_db"
                ? new TdsErrorException(4060, $"Cannot open database \"{login.Database}\" requested by the login. The login failed.", state: 1, severity: 11)
                : null,
        });
        await using var connection = new SqlConnection(server.ConnectionString() + ";Database=offline_db");

        var error = await Assert.ThrowsAsync<SqlException>(connection.OpenAsync);

        Assert.Equal(4060, error.Number);
        await using var other = new SqlConnection(server.ConnectionString() + ";Database=perf");
        await other.OpenAsync();
    }

    [Fact]
    public async Task A_login_slower_than_Connect_Timeout_fails_the_open()
    {
        await using var server = new TdsTestServer(new TdsTestServerOptions { LoginDelay = TimeSpan.FromSeconds(30) });
        await using var connection = new SqlConnection(server.ConnectionString().Replace("Connect Timeout=10", "Connect Timeout=1", StringComparison.Ordinal));
        var clock = System.Diagnostics.Stopwatch.StartNew();

        var error = await Assert.ThrowsAsync<SqlException>(connection.OpenAsync);

        Assert.Contains("Connection Timeout Expired", error.Message, StringComparison.Ordinal);
        Assert.True(clock.Elapsed < TimeSpan.FromSeconds(15), $"took {clock.Elapsed}");
        Assert.Single(server.Logins); // the LOGIN7 arrived; the answer did not come in time
    }
}
