using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using LogFlushMonitor.SqlServer.Check;
using LogFlushMonitor.TdsTestServer;
using Xunit.Abstractions;

namespace LogFlushMonitor.SqlServer.Tests.Check;

/// <summary>`check` against servers that are not there or not SQL Server: a named kind, within the connect timeout.</summary>
public sealed class CheckFailureTests(ITestOutputHelper output)
{
    [Fact]
    public async Task Check_against_a_closed_port_answers_unreachable_within_its_connect_timeout()
    {
        var options = new SqlServerSourceOptions { ConnectTimeout = TimeSpan.FromSeconds(2) };
        var instance = new SqlServerInstanceOptions { Name = "gone", ConnectionString = $"Server=tcp:127.0.0.1,{ClosedPort()};User ID=monitor;Password={TestSecrets.Password};Encrypt=Optional" };

        var clock = Stopwatch.StartNew();
        var result = await InstanceChecker.CheckAsync(instance, options, null, CancellationToken.None);
        clock.Stop();

        output.WriteLine($"check against a closed port with ConnectTimeout 2 s: {clock.ElapsedMilliseconds} ms; {result.Problems[0]}");
        var problem = Assert.Single(result.Problems);
        Assert.StartsWith("cannot connect (unreachable): nothing answered at that address", problem, StringComparison.Ordinal);
        // Bounded by the connect timeout plus a second; the slack is for a loaded machine (the default of 15 s is far above).
        Assert.True(clock.Elapsed < TimeSpan.FromSeconds(6), $"took {clock.Elapsed}");
    }

    [Fact]
    public async Task Check_against_a_server_sending_random_bytes_names_a_protocol_error()
    {
        await using var garbage = GarbageServer.Start(seed: 7);
        var options = new SqlServerSourceOptions { ConnectTimeout = TimeSpan.FromSeconds(5) };
        var instance = new SqlServerInstanceOptions { Name = "noise", ConnectionString = $"Server=tcp:127.0.0.1,{garbage.Port};User ID=monitor;Password={TestSecrets.Password};Encrypt=Optional" };

        var result = await InstanceChecker.CheckAsync(instance, options, null, CancellationToken.None);

        output.WriteLine(result.Problems[0]);
        var problem = Assert.Single(result.Problems);
        Assert.StartsWith("cannot connect (protocol): the server's answer is not SQL Server's protocol (TDS)", problem, StringComparison.Ordinal);
        Assert.True(garbage.Connections > 0);
    }

    [Theory]
    [InlineData(3, false)]
    [InlineData(5, false)]
    [InlineData(3, true)]
    [InlineData(5, true)]
    [InlineData(7, true)]
    public async Task Check_against_a_server_answering_the_login_with_random_bytes_names_a_protocol_error(int seed, bool framed)
    {
        // PRELOGIN goes as SQL Server's would; the answer to LOGIN7 is noise, raw or in one well-formed TDS packet
        // (type 4, end of message), and the connection closes.
        var noise = new byte[framed ? 1024 : 4096];
        new Random(seed).NextBytes(noise);
        if (framed)
        {
            noise[0] = 0x04;
            noise[1] = 0x01;
            noise[2] = (byte)(noise.Length >> 8);
            noise[3] = (byte)noise.Length;
            noise[4] = noise[5] = 0;
            noise[6] = 1;
            noise[7] = 0;
        }

        await using var server = new TdsTestServer.TdsTestServer(new TdsTestServerOptions { LoginAnswerBytes = _ => noise });
        var options = new SqlServerSourceOptions { ConnectTimeout = TimeSpan.FromSeconds(5) };
        var instance = new SqlServerInstanceOptions { Name = "noise", ConnectionString = server.ConnectionString(password: TestSecrets.Password) };

        var result = await InstanceChecker.CheckAsync(instance, options, null, CancellationToken.None);

        output.WriteLine(string.Join(Environment.NewLine, result.Problems));
        var problem = Assert.Single(result.Problems);
        Assert.StartsWith("cannot connect (protocol)", problem, StringComparison.Ordinal);
        Assert.NotEmpty(server.Logins);
    }

    [Fact]
    public async Task A_login_answered_by_three_bytes_and_a_reset_is_a_lost_connection_retried_as_such()
    {
        // Too little to tell noise from a cut: SqlClient reports only that the connection broke during login.
        await using var server = new TdsTestServer.TdsTestServer(new TdsTestServerOptions { LoginAnswerBytes = _ => [0x17, 0x03, 0x03] });
        var options = new SqlServerSourceOptions { ConnectTimeout = TimeSpan.FromSeconds(5) };
        var instance = new SqlServerInstanceOptions { Name = "cut", ConnectionString = server.ConnectionString(password: TestSecrets.Password) };

        var result = await InstanceChecker.CheckAsync(instance, options, null, CancellationToken.None);

        var problem = Assert.Single(result.Problems);
        Assert.StartsWith("cannot connect (disconnected)", problem, StringComparison.Ordinal);
        Assert.Contains("during the login process", problem, StringComparison.Ordinal);
    }

    [Fact]
    public async Task The_check_command_against_random_bytes_exits_1_with_one_line_and_no_stack_trace()
    {
        await using var garbage = GarbageServer.Start(seed: 11);
        var (exit, stdout, stderr) = await InProcessProgram.RunAsync(Program.InvokeAsync,
            "check", "--Sources:SqlServer:ConnectTimeout=00:00:05", "--Sources:SqlServer:Instances:0:Name=noise",
            $"--Sources:SqlServer:Instances:0:ConnectionString=Server=tcp:127.0.0.1,{garbage.Port};User ID=monitor;Password={TestSecrets.Password};Encrypt=Optional");

        output.WriteLine(stdout + stderr);
        Assert.Equal(1, exit);
        Assert.Contains("noise: PROBLEMS", stdout, StringComparison.Ordinal);
        Assert.Contains("cannot connect (protocol)", stdout, StringComparison.Ordinal);
        Assert.DoesNotContain("   at ", stdout + stderr, StringComparison.Ordinal);
        Assert.DoesNotContain(TestSecrets.Password, stdout + stderr, StringComparison.Ordinal);
    }

    private static int ClosedPort()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        var port = ((IPEndPoint)listener.LocalEndpoint).Port;
        listener.Stop();
        return port;
    }

    /// <summary>A TCP listener that answers whatever it receives with 4 KB of seeded random bytes, then hangs up.</summary>
    private sealed class GarbageServer : IAsyncDisposable
    {
        private readonly TcpListener _listener = new(IPAddress.Loopback, 0);
        private readonly CancellationTokenSource _stop = new();
        private readonly Task _loop;
        private int _connections;

        private GarbageServer(int seed)
        {
            _listener.Start();
            _loop = AcceptAsync(new Random(seed));
        }

        public int Port => ((IPEndPoint)_listener.LocalEndpoint).Port;

        public int Connections => Volatile.Read(ref _connections);

        public static GarbageServer Start(int seed) => new(seed);

        public async ValueTask DisposeAsync()
        {
            await _stop.CancelAsync();
            _listener.Stop();
            await _loop.ContinueWith(_ => { }, TaskScheduler.Default);
            _stop.Dispose();
        }

        private async Task AcceptAsync(Random random)
        {
            while (!_stop.IsCancellationRequested)
            {
                using var client = await _listener.AcceptTcpClientAsync(_stop.Token);
                Interlocked.Increment(ref _connections);
                var stream = client.GetStream();
                var request = new byte[8192];
                _ = await stream.ReadAsync(request, _stop.Token); // the client's pre-login
                var noise = new byte[4096];
                random.NextBytes(noise);
                await stream.WriteAsync(noise, _stop.Token);
            }
        }
    }
}
