using Dapper;
using Microsoft.Data.SqlClient;

namespace LogFlushMonitor.TdsTestServer.Tests;

public sealed class ErrorTests
{
    [Fact]
    public async Task An_error_token_surfaces_as_SqlException_with_number_class_state_and_message()
    {
        const string Denied = "VIEW SERVER STATE permission was denied on object 'server', database 'master'.";
        await using var server = new TdsTestServer();
        server.When("dm_os_wait_stats", TdsResponse.Failure(300, Denied, state: 1, severity: 14));
        await using var connection = await Open.ConnectionAsync(server);

        var error = await Assert.ThrowsAsync<SqlException>(() => connection.QueryAsync<int>("select 1 from sys.dm_os_wait_stats where x = @x", new { x = 1 }));

        Assert.Equal(300, error.Number);
        Assert.Equal(14, error.Class);
        Assert.Equal(1, error.State);
        Assert.Equal(Denied, error.Message);
    }

    [Fact]
    public async Task An_error_after_rows_fails_the_reader_and_the_connection_stays_usable()
    {
        await using var server = new TdsTestServer();
        server.When("stream", new TdsResponse()
            .ResultSet([TdsColumn.Int("n")], [1])
            .Error(25726, "The request could not be completed: too many outstanding events for the session.", severity: 16));
        server.When("select 2", TdsResponse.Rows([TdsColumn.Int("n")], [2]));
        await using var connection = await Open.ConnectionAsync(server);

        var error = await Assert.ThrowsAsync<SqlException>(async () =>
        {
            await using var command = new SqlCommand("stream", connection);
            await using var reader = await command.ExecuteReaderAsync();
            while (await reader.ReadAsync())
            {
            }

            while (await reader.NextResultAsync())
            {
            }
        });

        Assert.Equal(25726, error.Number);
        Assert.Equal(2, await connection.ExecuteScalarAsync<int>("select 2"));
    }

    [Fact]
    public async Task Info_messages_reach_the_InfoMessage_event()
    {
        await using var server = new TdsTestServer();
        server.When("print", TdsResponse.Empty().Info(0, "hello from the server"));
        await using var connection = await Open.ConnectionAsync(server);
        var messages = new List<string>();
        connection.InfoMessage += (_, e) => messages.Add(e.Message);

        await connection.ExecuteAsync("print 'x'");

        Assert.Contains("hello from the server", messages);
    }

    [Fact]
    public async Task A_handler_that_throws_becomes_error_50000_and_is_logged()
    {
        await using var server = new TdsTestServer();
        server.Handle(_ => throw new InvalidOperationException("boom"));
        await using var connection = await Open.ConnectionAsync(server);

        var error = await Assert.ThrowsAsync<SqlException>(() => connection.ExecuteAsync("anything"));

        Assert.Equal(50000, error.Number);
        Assert.Contains("boom", error.Message, StringComparison.Ordinal);
        Assert.Contains(server.Events, e => e.Message.Contains("boom", StringComparison.Ordinal));
    }

    [Fact]
    public async Task A_row_value_of_the_wrong_type_becomes_an_error_without_corrupting_the_stream()
    {
        await using var server = new TdsTestServer();
        server.When("bad", TdsResponse.Rows([TdsColumn.Int("n"), TdsColumn.DateTime2("at")], [1, DateTime.UnixEpoch], [2, "not a date"]));
        server.When("good", TdsResponse.Rows([TdsColumn.Int("n")], [3]));
        await using var connection = await Open.ConnectionAsync(server);

        var error = await Assert.ThrowsAsync<SqlException>(() => connection.QueryAsync<(int, DateTime)>("bad"));

        Assert.Equal(50000, error.Number);
        Assert.Equal(3, await connection.ExecuteScalarAsync<int>("good"));
    }

    [Fact]
    public async Task A_scripted_step_that_cancels_itself_becomes_an_error_not_a_dead_connection()
    {
        await using var server = new TdsTestServer();
        server.When("own timeout", TdsResponse.Empty().Then(_ => throw new OperationCanceledException("handler gave up")));
        server.When("select 1", TdsResponse.Rows([TdsColumn.Int("n")], [1]));
        await using var connection = await Open.ConnectionAsync(server);

        var error = await Assert.ThrowsAsync<SqlException>(() => connection.ExecuteAsync("own timeout"));

        Assert.Equal(50000, error.Number);
        Assert.Equal(1, await connection.ExecuteScalarAsync<int>("select 1"));
    }

    [Fact]
    public async Task A_handler_can_throw_TdsErrorException_to_answer_with_a_chosen_error()
    {
        await using var server = new TdsTestServer();
        server.Handle(r => r.Text.Contains("drop", StringComparison.Ordinal)
            ? throw new TdsErrorException(15151, "Cannot drop the event session 'lfm', because it does not exist.", state: 1, severity: 16)
            : null);
        await using var connection = await Open.ConnectionAsync(server);

        var error = await Assert.ThrowsAsync<SqlException>(() => connection.ExecuteAsync("drop event session lfm on server"));

        Assert.Equal(15151, error.Number);
        Assert.Equal(16, error.Class);
        Assert.DoesNotContain(server.Events, e => e.Message.StartsWith("handler failed", StringComparison.Ordinal));
    }
}
