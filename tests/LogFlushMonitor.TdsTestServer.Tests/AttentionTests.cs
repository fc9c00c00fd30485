using System.Data;
using System.Diagnostics;
using System.Threading.Channels;
using Dapper;
using Microsoft.Data.SqlClient;

namespace LogFlushMonitor.TdsTestServer.Tests;

public sealed class AttentionTests
{
    private const string StreamQuery = "SELECT type, data FROM sys.fn_MSxe_read_event_stream(N'lfm', 0)";
    private static readonly TdsColumn[] StreamColumns = [TdsColumn.Int("type"), TdsColumn.VarBinaryMax("data")];

    [Fact]
    public async Task A_delay_longer_than_CommandTimeout_fails_with_a_timeout_and_the_connection_recovers()
    {
        await using var server = new TdsTestServer();
        server.When("slow", TdsResponse.Empty().Delay(TimeSpan.FromSeconds(30)).ResultSet([TdsColumn.Int("n")], [1]));
        server.When("fast", TdsResponse.Rows([TdsColumn.Int("n")], [2]));
        await using var connection = await Open.ConnectionAsync(server);
        var clock = Stopwatch.StartNew();

        var error = await Assert.ThrowsAsync<SqlException>(() => connection.ExecuteScalarAsync<int>("slow", commandTimeout: 1));

        Assert.Equal(-2, error.Number); // SqlClient's number for "Execution Timeout Expired"
        Assert.True(clock.Elapsed < TimeSpan.FromSeconds(10), $"took {clock.Elapsed}");
        Assert.Equal(2, await connection.ExecuteScalarAsync<int>("fast"));
    }

    [Fact]
    public async Task A_short_delay_is_honoured_before_the_rows()
    {
        await using var server = new TdsTestServer();
        server.When("slow", TdsResponse.Empty().Delay(TimeSpan.FromMilliseconds(300)).ResultSet([TdsColumn.Int("n")], [1]));
        await using var connection = await Open.ConnectionAsync(server);
        var clock = Stopwatch.StartNew();

        Assert.Equal(1, await connection.ExecuteScalarAsync<int>("slow", commandTimeout: 30));

        Assert.True(clock.Elapsed >= TimeSpan.FromMilliseconds(250), $"took {clock.Elapsed}");
    }

    [Fact]
    public async Task A_streaming_result_set_delivers_each_row_as_it_is_written()
    {
        var rows = Channel.CreateUnbounded<object?[]>();
        await using var server = new TdsTestServer();
        server.When("fn_MSxe_read_event_stream", TdsResponse.Empty().StreamingResultSet(StreamColumns, rows.Reader));
        await using var connection = await Open.ConnectionAsync(server);
        await using var command = new SqlCommand(StreamQuery, connection) { CommandTimeout = 0 };
        await rows.Writer.WriteAsync([1, new byte[] { 1, 2, 3 }]);
        await using var reader = await command.ExecuteReaderAsync(CommandBehavior.SequentialAccess);

        for (byte i = 1; i <= 3; i++)
        {
            // The next row exists only after the client has read this one: it must have been flushed alone.
            Assert.True(await reader.ReadAsync().WaitAsync(TimeSpan.FromSeconds(10)));
            Assert.Equal(1, reader.GetInt32(0));
            Assert.Equal(new byte[] { i, 2, 3 }, (byte[])reader.GetValue(1));
            await rows.Writer.WriteAsync([1, new byte[] { (byte)(i + 1), 2, 3 }]);
        }

        rows.Writer.Complete();
        Assert.True(await reader.ReadAsync());
        Assert.False(await reader.ReadAsync());
    }

    [Fact]
    public async Task Cancel_during_a_blocking_stream_returns_promptly_with_operation_cancelled_and_the_connection_recovers()
    {
        var rows = Channel.CreateUnbounded<object?[]>();
        await using var server = new TdsTestServer();
        server.When("fn_MSxe_read_event_stream", TdsResponse.Empty().StreamingResultSet(StreamColumns, rows.Reader));
        server.When("select 1", TdsResponse.Rows([TdsColumn.Int("n")], [1]));
        await using var connection = await Open.ConnectionAsync(server);
        await using var command = new SqlCommand(StreamQuery, connection) { CommandTimeout = 0 };
        await rows.Writer.WriteAsync([2, new byte[] { 9 }]);
        await using var reader = await command.ExecuteReaderAsync(CommandBehavior.SequentialAccess);
        Assert.True(await reader.ReadAsync());

        var blocked = Task.Run(() => reader.Read()); // blocks: no second buffer is ever dispatched
        await Task.Delay(200);
        Assert.False(blocked.IsCompleted);
        var clock = Stopwatch.StartNew();
        command.Cancel();

        var error = await Assert.ThrowsAsync<SqlException>(() => blocked.WaitAsync(TimeSpan.FromSeconds(10)));
        Assert.Contains("Operation cancelled by user", error.Message, StringComparison.Ordinal);
        Assert.True(clock.Elapsed < TimeSpan.FromSeconds(5), $"took {clock.Elapsed}");
        Assert.Contains(server.Events, e => e.Message.Contains("DONE_ATTN", StringComparison.Ordinal));
        await reader.DisposeAsync();
        Assert.Equal(1, await connection.ExecuteScalarAsync<int>("select 1"));
    }

    [Fact]
    public async Task Cancelling_ReadAsync_with_a_token_stops_an_async_enumerable_stream()
    {
        var stopped = new TaskCompletionSource();
        await using var server = new TdsTestServer();
        server.When("fn_MSxe_read_event_stream", TdsResponse.Empty().StreamingResultSet(StreamColumns, Endless(stopped)));
        await using var connection = await Open.ConnectionAsync(server);
        await using var command = new SqlCommand(StreamQuery, connection) { CommandTimeout = 0 };
        using var cts = new CancellationTokenSource();
        await using var reader = await command.ExecuteReaderAsync(CommandBehavior.SequentialAccess, cts.Token);
        Assert.True(await reader.ReadAsync(cts.Token));

        var next = reader.ReadAsync(cts.Token);
        await Task.Delay(100);
        await cts.CancelAsync();

        var error = await Assert.ThrowsAsync<SqlException>(() => next.WaitAsync(TimeSpan.FromSeconds(10)));
        Assert.Contains("Operation cancelled by user", error.Message, StringComparison.Ordinal);
        await stopped.Task.WaitAsync(TimeSpan.FromSeconds(10)); // the server-side sequence saw the attention
    }

    private static async IAsyncEnumerable<object?[]> Endless(
        TaskCompletionSource stopped, [System.Runtime.CompilerServices.EnumeratorCancellation] CancellationToken token = default)
    {
        yield return [2, new byte[] { 1 }];
        try
        {
            await Task.Delay(Timeout.Infinite, token);
        }
        finally
        {
            stopped.TrySetResult();
        }

        yield break;
    }

    [Fact]
    public async Task Cancel_in_the_middle_of_an_endless_result_set_stops_the_server_sending_rows()
    {
        var produced = 0;
        IEnumerable<object?[]> Endless()
        {
            while (true)
            {
                Interlocked.Increment(ref produced);
                yield return [produced, "a row with some text to fill packets"];
            }
        }

        await using var server = new TdsTestServer();
        server.When("select everything", new TdsResponse().ResultSet([TdsColumn.Int("n"), TdsColumn.NVarChar("text")], Endless()));
        server.When("select 1", TdsResponse.Rows([TdsColumn.Int("n")], [1]));
        await using var connection = await Open.ConnectionAsync(server);
        await using var command = new SqlCommand("select everything", connection) { CommandTimeout = 0 };

        var error = await Assert.ThrowsAsync<SqlException>(() => Task.Run(() =>
        {
            using var reader = command.ExecuteReader();
            for (var i = 0; i < 1000 && reader.Read(); i++)
            {
            }

            command.Cancel();
            while (reader.Read())
            {
            }
        }).WaitAsync(TimeSpan.FromSeconds(20)));

        Assert.Contains("Operation cancelled by user", error.Message, StringComparison.Ordinal);
        var stoppedAt = Volatile.Read(ref produced);
        await Task.Delay(200);
        Assert.Equal(stoppedAt, Volatile.Read(ref produced));
        Assert.Equal(1, await connection.ExecuteScalarAsync<int>("select 1"));
    }

    [Fact]
    public async Task A_stream_completed_with_a_TdsErrorException_ends_with_that_error_after_its_rows()
    {
        var rows = Channel.CreateUnbounded<object?[]>();
        await using var server = new TdsTestServer();
        server.When("fn_MSxe_read_event_stream", TdsResponse.Empty().StreamingResultSet(StreamColumns, rows.Reader));
        server.When("select 1", TdsResponse.Rows([TdsColumn.Int("n")], [1]));
        await using var connection = await Open.ConnectionAsync(server);
        await using var command = new SqlCommand(StreamQuery, connection) { CommandTimeout = 0 };
        await rows.Writer.WriteAsync([2, new byte[] { 5 }]);
        await using var reader = await command.ExecuteReaderAsync(CommandBehavior.SequentialAccess);
        Assert.True(await reader.ReadAsync());
        Assert.Equal(new byte[] { 5 }, (byte[])reader.GetValue(1));

        rows.Writer.Complete(new TdsErrorException(25726, "The event stream was stopped: too many outstanding events."));

        var error = await Assert.ThrowsAsync<SqlException>(() => reader.ReadAsync().WaitAsync(TimeSpan.FromSeconds(10)));
        Assert.Equal(25726, error.Number);
        await reader.DisposeAsync();
        Assert.Equal(1, await connection.ExecuteScalarAsync<int>("select 1"));
    }

    [Fact]
    public async Task Delays_run_on_the_injected_TimeProvider()
    {
        var clock = new ManualTimeProvider();
        await using var server = new TdsTestServer(new TdsTestServerOptions { TimeProvider = clock });
        server.When("backoff", TdsResponse.Empty().Delay(TimeSpan.FromHours(1)).ResultSet([TdsColumn.Int("n")], [1]));
        await using var connection = await Open.ConnectionAsync(server);

        var query = connection.ExecuteScalarAsync<int>("backoff", commandTimeout: 0);
        var request = await server.WaitForRequestAsync(r => r.Text == "backoff");
        for (var i = 0; clock.PendingTimers == 0; i++)
        {
            Assert.True(i < 1000, "the server never started its delay");
            await Task.Delay(10);
        }

        Assert.False(query.IsCompleted);
        Assert.Equal(clock.GetUtcNow(), request.Timestamp);
        // The pending timer seen above may be another of the server's on the same clock, with the delay's registered just
        // after it (a flaky timeout under load): advance an hour at a time until the answer comes. An hour of real time
        // never passes here, so the answer coming at all is the injected clock's doing.
        for (var i = 0; i < 20 && !query.IsCompleted; i++)
        {
            clock.Advance(TimeSpan.FromHours(1));
            await Task.WhenAny(query, Task.Delay(500));
        }

        Assert.Equal(1, await query.WaitAsync(TimeSpan.FromSeconds(10)));
    }
}
