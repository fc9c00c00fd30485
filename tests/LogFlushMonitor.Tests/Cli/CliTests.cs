using System.Diagnostics;
using System.Globalization;
using System.Net.Sockets;
using System.Text.RegularExpressions;

namespace LogFlushMonitor.Tests.Cli;

public partial class CliTests
{
    [Fact]
    public async Task Run_without_a_source_fails_fast_and_says_what_to_configure()
    {
        var (code, _, err) = await InProcessCli.RunAsync("run", "--urls", $"http://127.0.0.1:{TestPorts.Free()}");
        Assert.Equal(2, code);
        Assert.Contains("No source is configured", err, StringComparison.Ordinal);
        Assert.Contains("--simulate", err, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Run_with_an_unknown_scenario_names_the_setting()
    {
        var (code, _, err) = await InProcessCli.RunAsync("run", "--simulate", "nope", "--urls", $"http://127.0.0.1:{TestPorts.Free()}");
        Assert.Equal(2, code);
        Assert.Contains("Sources:Simulate:Scenario", err, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_configuration_key_on_the_command_line_is_validated_too()
    {
        var (code, _, err) = await InProcessCli.RunAsync("run", "--simulate", "mixed", "--Log:Format=xml", "--urls", $"http://127.0.0.1:{TestPorts.Free()}");
        Assert.Equal(2, code);
        Assert.Contains("Log:Format", err, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_serilog_sink_in_configuration_stops_the_start_naming_the_key()
    {
        // Sinks are not loaded by name (docs/aot.md): a WriteTo is a configuration error, not silently ignored.
        var (code, _, err) = await InProcessCli.RunAsync("run", "--simulate", "mixed", "--Serilog:WriteTo:0:Name=File", "--urls", $"http://127.0.0.1:{TestPorts.Free()}");
        Assert.Equal(2, code);
        Assert.Contains("Serilog:WriteTo is not supported", err, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_port_in_use_exits_with_2_and_says_which_setting_to_change()
    {
        using var taken = new TcpListener(System.Net.IPAddress.Loopback, 0);
        taken.Start();
        var port = ((System.Net.IPEndPoint)taken.LocalEndpoint).Port;
        var (code, _, err) = await InProcessCli.RunAsync("run", "--simulate", "mixed", "--urls", $"http://127.0.0.1:{port}");
        Assert.Equal(2, code);
        Assert.Contains("address already in use", err, StringComparison.Ordinal);
        Assert.Contains("Http:Urls (--urls)", err, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_bad_shard_names_the_setting()
    {
        var (code, _, err) = await InProcessCli.RunAsync("run", "--shard", "3/2", "--urls", $"http://127.0.0.1:{TestPorts.Free()}",
            "--Sources:SqlServer:Instances:0:Name=prod1", $"--Sources:SqlServer:Instances:0:ConnectionString=Server=127.0.0.1,1;User ID=x;Password={TestSecrets.Password}");
        Assert.Equal(2, code);
        Assert.Contains("Sources:SqlServer:Shard", err, StringComparison.Ordinal);
    }

    [Fact]
    public async Task An_unknown_argument_is_rejected_with_a_hint()
    {
        var (code, _, err) = await InProcessCli.RunAsync("run", "--simulate", "mixed", "stray");
        Assert.Equal(2, code);
        Assert.Contains("Unknown argument 'stray'", err, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_usage_error_exits_with_2_and_points_at_help()
    {
        var (code, _, err) = await InProcessCli.RunAsync("simulate", "--out", "x.ndjson");
        Assert.Equal(2, code);
        Assert.Contains("--scenario", err, StringComparison.Ordinal);
        Assert.Contains("logflushmonitor simulate --help", err, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Simulate_writes_an_ndjson_file_and_rejects_a_bad_duration()
    {
        var file = Path.Combine(Path.GetTempPath(), "lfm-sim-" + Guid.NewGuid().ToString("N")[..8] + ".ndjson");
        try
        {
            var (code, _, err) = await InProcessCli.RunAsync("simulate", "--scenario", "autocommit", "--duration", "2s", "--out", file);
            Assert.True(code == 0, err);
            var lines = File.ReadLines(file).ToList();
            Assert.True(lines.Count > 1000, $"only {lines.Count} lines");
            Assert.Contains(lines, l => l.Contains("\"type\":\"flush\"", StringComparison.Ordinal));
            Assert.Contains("Replay it with", err, StringComparison.Ordinal);

            var (bad, _, badErr) = await InProcessCli.RunAsync("simulate", "--scenario", "autocommit", "--duration", "soon", "--out", file);
            Assert.Equal(2, bad);
            Assert.Contains("--duration 'soon'", badErr, StringComparison.Ordinal);
        }
        finally
        {
            File.Delete(file);
        }
    }

    [Fact]
    public async Task Simulate_says_about_how_much_it_writes_before_writing()
    {
        // Before: 5 minutes of mixed wrote 1.35 GB without a word. The estimate comes from the first simulated seconds
        // scaled to the duration; for a steady scenario it is near the file's size.
        var file = Path.Combine(Path.GetTempPath(), "lfm-sim-" + Guid.NewGuid().ToString("N")[..8] + ".ndjson");
        try
        {
            var (code, _, err) = await InProcessCli.RunAsync("simulate", "--scenario", "autocommit", "--duration", "8s", "--out", file);
            Assert.True(code == 0, err);
            var said = AboutSize().Match(err);
            Assert.True(said.Success, err);
            Assert.True(said.Index < err.IndexOf("Wrote ", StringComparison.Ordinal), "the size is said before the file is written: " + err);
            var estimate = double.Parse(said.Groups[1].Value, CultureInfo.InvariantCulture) * (said.Groups[2].Value == "GB" ? 1 << 30 : 1 << 20);
            var actual = new FileInfo(file).Length;
            Assert.InRange(estimate / actual, 0.8, 1.25);
        }
        finally
        {
            File.Delete(file);
        }
    }

    [GeneratedRegex(@"Writing about ([0-9.]+) (MB|GB) \(")]
    private static partial Regex AboutSize();

    [SkippableFact]
    public async Task Run_stops_cleanly_with_exit_code_0_on_sigterm()
    {
        Skip.IfNot(OperatingSystem.IsLinux() || OperatingSystem.IsMacOS(), "SIGTERM is sent with kill(1)");
        var port = TestPorts.Free();
        using var cli = CliProcess.Start(["run", "--simulate", "mixed", "--urls", $"http://127.0.0.1:{port}"]);
        await cli.WaitForOutputAsync("Serving metrics at", TimeSpan.FromSeconds(30));
        using var http = new HttpClient();
        var metrics = await http.GetStringAsync($"http://127.0.0.1:{port}/metrics");
        Assert.Contains("target_info", metrics, StringComparison.Ordinal);

        var watch = Stopwatch.StartNew();
        using (var kill = Process.Start("kill", ["-TERM", cli.Process.Id.ToString(System.Globalization.CultureInfo.InvariantCulture)]))
        {
            await kill.WaitForExitAsync();
        }

        Assert.Equal(0, await cli.WaitAsync(TimeSpan.FromSeconds(20)));
        Assert.True(watch.Elapsed < TimeSpan.FromSeconds(15), $"took {watch.Elapsed}");
    }
}
