using System.Buffers.Binary;
using System.Data;
using System.Net.Sockets;
using Dapper;
using Microsoft.Data.SqlClient;

namespace LogFlushMonitor.TdsTestServer.Tests;

public sealed class FaultTests
{
    [Fact]
    public async Task An_immediate_cut_surfaces_as_an_exception_and_the_next_connection_works()
    {
        await using var server = new TdsTestServer();
        server.When("die", TdsResponse.Empty().Cut());
        server.When("select 1", TdsResponse.Rows([TdsColumn.Int("n")], [1]));
        await using (var connection = await Open.ConnectionAsync(server))
        {
            await Assert.ThrowsAsync<SqlException>(() => connection.ExecuteAsync("die"));
        }

        await using var next = await Open.ConnectionAsync(server);
        Assert.Equal(1, await next.ExecuteScalarAsync<int>("select 1"));
        Assert.Contains(server.Events, e => e.Message == "connection cut on demand");
    }

    [Fact]
    public async Task A_cut_in_the_middle_of_a_PLP_value_fails_the_sequential_read()
    {
        var payload = new byte[2 * 1024 * 1024];
        new Random(3).NextBytes(payload);
        await using var server = new TdsTestServer();
        server.When("event_stream", TdsResponse.Empty().Cut(afterBytes: 300_000).ResultSet([TdsColumn.VarBinaryMax("data")], [payload]));
        await using var connection = await Open.ConnectionAsync(server);
        await using var command = new SqlCommand("select data from event_stream", connection);

        var read = 0L;
        var error = await Record.ExceptionAsync(async () =>
        {
            await using var reader = await command.ExecuteReaderAsync(CommandBehavior.SequentialAccess);
            Assert.True(await reader.ReadAsync());
            await using var stream = reader.GetStream(0);
            var buffer = new byte[8192];
            int n;
            while ((n = await stream.ReadAsync(buffer)) > 0)
            {
                read += n;
            }
        });

        Assert.NotNull(error);
        Assert.True(read is > 0 and < 300_000, $"read {read} bytes before the cut");
        server.When("select 1", TdsResponse.Rows([TdsColumn.Int("n")], [1]));
        await using var next = await Open.ConnectionAsync(server);
        Assert.Equal(1, await next.ExecuteScalarAsync<int>("select 1"));
    }

    [Fact]
    public async Task DropConnections_breaks_open_connections_while_new_ones_still_work()
    {
        await using var server = new TdsTestServer();
        server.When("select 1", TdsResponse.Rows([TdsColumn.Int("n")], [1]));
        await using var victim = await Open.ConnectionAsync(server);

        server.DropConnections();

        await Assert.ThrowsAsync<SqlException>(() => victim.ExecuteScalarAsync<int>("select 1"));
        await using var next = await Open.ConnectionAsync(server);
        Assert.Equal(1, await next.ExecuteScalarAsync<int>("select 1"));
    }

    [Fact]
    public async Task A_malformed_packet_closes_only_that_connection_and_is_logged()
    {
        await using var server = new TdsTestServer();
        server.When("select 1", TdsResponse.Rows([TdsColumn.Int("n")], [1]));
        using (var client = new TcpClient())
        {
            await client.ConnectAsync("127.0.0.1", server.Port);
            var stream = client.GetStream();
            var junk = new byte[] { 0x12, 0x01, 0, 0, 0, 0, 1, 0 };
            BinaryPrimitives.WriteUInt16BigEndian(junk.AsSpan(2), 4); // length shorter than the header
            await stream.WriteAsync(junk);
            var buffer = new byte[16];
            var closed = await Record.ExceptionAsync(async () => Assert.Equal(0, await stream.ReadAsync(buffer).AsTask().WaitAsync(TimeSpan.FromSeconds(10))));
            Assert.True(closed is null or IOException, $"expected a close or a reset, got {closed}");
        }

        Assert.Contains(server.Events, e => e.Message.StartsWith("malformed request", StringComparison.Ordinal));
        await using var next = await Open.ConnectionAsync(server);
        Assert.Equal(1, await next.ExecuteScalarAsync<int>("select 1"));
    }

    [Fact]
    public async Task A_truncated_RPC_after_login_closes_that_connection_and_is_logged()
    {
        await using var server = new TdsTestServer();
        server.When("select 1", TdsResponse.Rows([TdsColumn.Int("n")], [1]));
        await using var good = await Open.ConnectionAsync(server);
        using var raw = await RawClient.LoginAsync(server.Port, "raw", "pw");
        byte[] rpc =
        [
            .. RawClient.AllHeaders,
            0xFF, 0xFF, 10, 0, // ProcID 10: sp_executesql
            0, 0, // option flags
            0, 0, 0x26, // unnamed parameter, INTN ... and then the message ends
        ];
        await raw.SendAsync(0x03, rpc);
        Assert.Null(await raw.ReadMessageAsync());

        Assert.Contains(server.Events, e => e.Message.StartsWith("malformed request", StringComparison.Ordinal));
        Assert.Equal(1, await good.ExecuteScalarAsync<int>("select 1"));
    }
}
