using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using Xunit.Abstractions;

namespace LogFlushMonitor.SqlServer.Tests.Host;

/// <summary>
/// SIGTERM to the real executable watching four SQL Server instances where nothing listens: cancellation must reach
/// every connection attempt and every backoff delay. The measured time is written to the test output; the bound
/// asserted is generous (a loaded machine), far below the 11 s it took when connection attempts ignored cancellation.
/// </summary>
public sealed class ShutdownWithDeadServersTests(ITestOutputHelper output)
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(6);

    [Fact]
    public async Task Sigterm_while_four_instances_are_connecting_to_closed_ports_exits_quickly()
    {
        using var run = Start(connectTimeout: "00:00:15"); // SqlClient retries a refused port for the whole connect timeout
        await Eventually.Until(() => Count(run.StdOut + run.StdErr, "polling every") == 4, "the four instances to start connecting");

        var took = await StopAsync(run);

        output.WriteLine($"SIGTERM while connecting: exit after {took.TotalMilliseconds:N0} ms");
        Assert.True(took < Bound, $"took {took}; stdout: {run.StdOut}");
    }

    [Fact]
    public async Task Sigterm_while_four_instances_sleep_in_their_backoff_exits_quickly()
    {
        using var run = Start(connectTimeout: "00:00:01");
        // Each instance's poller and stream failed once and now waits its backoff.
        await Eventually.Until(() => Count(run.StdOut + run.StdErr, "unreachable, transient") >= 8, "the first failures of the four instances", TimeSpan.FromSeconds(60));

        var took = await StopAsync(run);

        output.WriteLine($"SIGTERM during backoff: exit after {took.TotalMilliseconds:N0} ms");
        Assert.True(took < Bound, $"took {took}; stdout: {run.StdOut}");
        Assert.DoesNotContain("could not stop or drop event session", run.StdOut + run.StdErr, StringComparison.Ordinal); // nothing was created
    }

    private static CliProcess Start(string connectTimeout)
    {
        var args = new List<string> { "run", "--Http:Urls=http://127.0.0.1:0", "--Log:SummaryInterval=00:00:00", $"--Sources:SqlServer:ConnectTimeout={connectTimeout}" };
        var environment = new Dictionary<string, string>();
        for (var i = 0; i < 4; i++)
        {
            args.Add($"--Sources:SqlServer:Instances:{i}:Name=dead{i}");
            args.Add($"--Sources:SqlServer:Instances:{i}:ConnectionStringEnvironmentVariable=LFM_DEAD_{i}");
            environment[$"LFM_DEAD_{i}"] = $"Server=tcp:127.0.0.1,{ClosedPort()};User ID=monitor;Password={TestSecrets.Password};Encrypt=Optional";
        }

        return CliProcess.Start(args, environment);
    }

    private static async Task<TimeSpan> StopAsync(CliProcess run)
    {
        var clock = Stopwatch.StartNew();
        run.Terminate();
        var exit = await run.WaitAsync(TimeSpan.FromSeconds(60));
        clock.Stop();
        Assert.Equal(0, exit);
        return clock.Elapsed;
    }

    /// <summary>A port nothing listens on: asked of the OS, then closed.</summary>
    private static int ClosedPort()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        var port = ((IPEndPoint)listener.LocalEndpoint).Port;
        listener.Stop();
        return port;
    }

    private static int Count(string text, string what)
    {
        var n = 0;
        for (var i = text.IndexOf(what, StringComparison.Ordinal); i >= 0; i = text.IndexOf(what, i + what.Length, StringComparison.Ordinal))
        {
            n++;
        }

        return n;
    }
}

/// <summary>The Sources:SqlServer settings are checked when `run` starts: a value out of range exits 2 naming the key.</summary>
public sealed class SqlServerSettingsAtStartTests
{
    [Theory]
    [InlineData("HistogramSlots", "8")]
    [InlineData("ShutdownTimeout", "00:01:00")]
    [InlineData("FallbackErrorCount", "0")]
    public async Task Run_with_a_source_setting_out_of_range_exits_2_naming_the_key(string key, string value)
    {
        using var run = CliProcess.Start(
            ["run", "--Http:Urls=http://127.0.0.1:0", $"--Sources:SqlServer:{key}={value}", "--Sources:SqlServer:Instances:0:Name=a",
                "--Sources:SqlServer:Instances:0:ConnectionStringEnvironmentVariable=LFM_UNUSED"]);

        var exit = await run.WaitAsync(TimeSpan.FromSeconds(60));

        Assert.Equal(2, exit);
        Assert.Contains($"Sources:SqlServer:{key} is {value}", run.StdOut + run.StdErr, StringComparison.Ordinal);
    }
}
