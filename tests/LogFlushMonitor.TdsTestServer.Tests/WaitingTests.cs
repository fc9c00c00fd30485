using Dapper;

namespace LogFlushMonitor.TdsTestServer.Tests;

public sealed class WaitingTests
{
    [Fact]
    public async Task WaitForRequestAsync_returns_a_request_that_arrives_later_and_one_already_received()
    {
        var events = new List<TdsServerEvent>();
        await using var server = new TdsTestServer(new TdsTestServerOptions { OnEvent = e => { lock (events) { events.Add(e); } } });
        server.When(_ => true, _ => TdsResponse.Empty());
        await using var connection = await Open.ConnectionAsync(server);

        var later = server.WaitForRequestAsync(r => r.Text == "second");
        Assert.False(later.IsCompleted);
        await connection.ExecuteAsync("first");
        await connection.ExecuteAsync("second");

        Assert.Equal("second", (await later).Text);
        Assert.Equal("first", (await server.WaitForRequestAsync(r => r.Text == "first")).Text);
        lock (events)
        {
            Assert.Contains(events, e => e.Message.StartsWith("logged in as 'monitor'", StringComparison.Ordinal));
        }
    }

    [Fact]
    public async Task WaitForRequestAsync_times_out_listing_what_arrived()
    {
        await using var server = new TdsTestServer();
        server.When(_ => true, _ => TdsResponse.Empty());
        await using var connection = await Open.ConnectionAsync(server);
        await connection.ExecuteAsync("something else");

        var error = await Assert.ThrowsAsync<TimeoutException>(() => server.WaitForRequestAsync(r => r.Text == "never", TimeSpan.FromMilliseconds(100)));

        Assert.Contains("something else", error.Message, StringComparison.Ordinal);
    }
}
