using System.Net;
using System.Net.Sockets;

namespace LogFlushMonitor.Tests.Cli;

/// <summary>
/// <c>logflushmonitor workload</c>'s usage errors (the command line in this process) and an unreachable server (through
/// the real executable: the connection string comes from its environment).
/// </summary>
public class WorkloadCliTests
{
    [Theory]
    [InlineData("--scenario", "nope", "--duration", "5s", "--connection-string-env", "PATH", "--scenario 'nope' is not known")]
    [InlineData("--scenario", "autocommit", "--duration", "soon", "--connection-string-env", "PATH", "--duration 'soon' is not a duration")]
    [InlineData("--scenario", "autocommit", "--batch-size", "10", "--duration", "5s", "--connection-string-env", "PATH", "--batch-size applies to batched")]
    [InlineData("--scenario", "batched", "--database", "master", "--duration", "5s", "--connection-string-env", "PATH", "--database master is a system database")]
    [InlineData("--scenario", "batched", "--connection-string-env", "PATH", "--duration is missing")]
    [InlineData("--scenario", "batched", "--duration", "5s", "--connection-string-env", "LFM_TEST_UNSET_VARIABLE", "the environment variable LFM_TEST_UNSET_VARIABLE is not set")]
    [InlineData("--scenario", "batched", "--duration", "5s", "Sources:SqlServer:Instances is empty")]
    [InlineData("--scenario", "batched", "--duration", "5s", "--Sources:SqlServer:Instances:0:Name=a", "Sources:SqlServer:Instances:0: set exactly one of ConnectionString")]
    [InlineData("--scenario", "batched", "--duration", "5s", "--instance", "b", "--Sources:SqlServer:Instances:0:Name=a", "--Sources:SqlServer:Instances:0:ConnectionString=Server=x", "--instance b: no instance of that name")]
    public async Task A_usage_error_exits_with_2_and_names_the_option(params string[] argsAndMessage)
    {
        var (code, stdout, stderr) = await InProcessCli.RunAsync(["workload", .. argsAndMessage[..^1]]);

        Assert.Equal(2, code);
        Assert.Contains(argsAndMessage[^1], stderr, StringComparison.Ordinal);
        Assert.Equal("", stdout);
    }

    [Fact]
    public async Task A_missing_scenario_is_a_usage_error_pointing_at_help()
    {
        var (code, _, stderr) = await InProcessCli.RunAsync("workload", "--duration", "5s");

        Assert.Equal(2, code);
        Assert.Contains("--scenario", stderr, StringComparison.Ordinal);
        Assert.Contains("logflushmonitor workload --help", stderr, StringComparison.Ordinal);
    }

    [Fact]
    public async Task An_unreachable_server_exits_with_1_and_says_so_without_a_stack_trace()
    {
        int port;
        using (var l = new TcpListener(IPAddress.Loopback, 0))
        {
            l.Start();
            port = ((IPEndPoint)l.LocalEndpoint).Port;
        }

        using var cli = CliProcess.Start(
            ["workload", "--scenario", "autocommit", "--duration", "5s", "--connect-attempts", "2", "--connection-string-env", "LFM_TEST_SQL"],
            new Dictionary<string, string> { ["LFM_TEST_SQL"] = $"Server=127.0.0.1,{port};User ID=x;Password={TestSecrets.Password};Encrypt=False;Connect Timeout=2" });
        var code = await cli.WaitAsync(TimeSpan.FromSeconds(60));

        Assert.Equal(1, code);
        Assert.Contains($"server 127.0.0.1,{port} unreachable after 2 attempt(s)", cli.StdErr, StringComparison.Ordinal);
        Assert.DoesNotContain("   at ", cli.StdErr, StringComparison.Ordinal);
        Assert.DoesNotContain(TestSecrets.Password, cli.StdErr + cli.StdOut, StringComparison.Ordinal);
        Assert.Equal("", cli.StdOut);
    }
}
