using System.Diagnostics;
using System.Globalization;
using System.Text;
using System.Text.RegularExpressions;
using LogFlushMonitor.Tests.Cli;

namespace LogFlushMonitor.Tests.Hosting;

/// <summary>The signals an operator reads from the process itself: exit codes, log lines, what reaches a collector.</summary>
public partial class SignalCliTests
{
    private static string TempFile(string text)
    {
        var path = Path.Combine(Path.GetTempPath(), $"lfm-signal-{Guid.NewGuid():N}.ndjson");
        File.WriteAllText(path, text);
        return path;
    }

    private static async Task<Uri> ServingAsync(CliProcess cli)
    {
        await cli.WaitForOutputAsync("Serving metrics at", TimeSpan.FromSeconds(60));
        var m = ServingAt().Match(cli.StdOut + cli.StdErr);
        Assert.True(m.Success, cli.StdErr);
        return new Uri(m.Groups[1].Value);
    }

    private static async Task TerminateAsync(CliProcess cli)
    {
        using var kill = Process.Start("kill", ["-TERM", cli.Process.Id.ToString(CultureInfo.InvariantCulture)]);
        await kill.WaitForExitAsync();
    }

    [SkippableFact]
    public async Task Run_exits_1_when_its_replay_cannot_be_read()
    {
        Skip.IfNot(OperatingSystem.IsLinux(), "/proc/self/mem exists on Linux only");
        var (code, stdout, stderr) = await InProcessCli.RunAsync("run", "--replay", "/proc/self/mem", "--urls", "http://127.0.0.1:0");

        Assert.Equal(1, code);
        Assert.Contains("Replay of /proc/self/mem failed", stdout + stderr, StringComparison.Ordinal);
    }

    [SkippableFact]
    public async Task Names_with_newlines_and_ansi_escapes_are_written_escaped_in_text_and_json_logs()
    {
        Skip.IfNot(OperatingSystem.IsLinux() || OperatingSystem.IsMacOS(), "SIGTERM is sent with kill(1)");
        var instance = "sql1\n[12:00:00 ERR] FAKE LOG LINE";
        var database = "shop\u001b[2J\u001b[31mred";
        var line = JsonLine(instance, database);
        var file = TempFile(line + "\n" + line + "\n");
        try
        {
            foreach (var format in new[] { "text", "json" })
            {
                using var cli = CliProcess.Start(["run", "--replay", file, "--speed", "0", "--urls", "http://127.0.0.1:0", "--Log:SummaryInterval=00:00:01", $"--Log:Format={format}"]);
                await cli.WaitForOutputAsync("FAKE LOG LINE", TimeSpan.FromSeconds(60));
                await TerminateAsync(cli);
                Assert.Equal(0, await cli.WaitAsync(TimeSpan.FromSeconds(30)));
                var output = cli.StdOut + cli.StdErr;

                Assert.DoesNotContain('\u001b', output);
                Assert.DoesNotContain(output.Split('\n'), l => l.StartsWith("[12:00:00 ERR] FAKE", StringComparison.Ordinal));
                Assert.Contains(format == "json" ? @"sql1\\n[12:00:00 ERR] FAKE LOG LINE" : @"sql1\n[12:00:00 ERR] FAKE LOG LINE", output, StringComparison.Ordinal);
                Assert.Contains(format == "json" ? @"shop\\u001B[2J\\u001B[31mred" : @"shop\u001B[2J\u001B[31mred", output, StringComparison.Ordinal);
            }
        }
        finally
        {
            File.Delete(file);
        }
    }

    [SkippableFact]
    public async Task Sigterm_without_otlp_stops_with_0_and_no_flush_warning()
    {
        Skip.IfNot(OperatingSystem.IsLinux() || OperatingSystem.IsMacOS(), "SIGTERM is sent with kill(1)");
        using var cli = CliProcess.Start(["run", "--simulate", "autocommit", "--urls", "http://127.0.0.1:0"]);
        await ServingAsync(cli);
        await TerminateAsync(cli);

        Assert.Equal(0, await cli.WaitAsync(TimeSpan.FromSeconds(30)));
        Assert.DoesNotContain("did not finish", cli.StdOut + cli.StdErr, StringComparison.Ordinal);
        Assert.DoesNotContain(" WRN]", cli.StdOut + cli.StdErr, StringComparison.Ordinal);
    }

    [SkippableFact]
    public async Task Otlp_export_to_a_closed_port_is_logged_once_and_counted()
    {
        Skip.IfNot(OperatingSystem.IsLinux() || OperatingSystem.IsMacOS(), "SIGTERM is sent with kill(1)");
        var closed = ClosedPort();
        using var cli = CliProcess.Start(
        [
            "run", "--simulate", "autocommit", "--urls", "http://127.0.0.1:0",
            "--Exporters:Otlp:Enabled=true", $"--Exporters:Otlp:Endpoint=http://127.0.0.1:{closed}", "--Exporters:Otlp:Protocol=http/protobuf",
            "--Exporters:Otlp:Interval=00:00:01",
        ]);
        var metrics = new Uri(await ServingAsync(cli), "/metrics");
        using var http = new HttpClient();
        var text = "";
        await Eventually.Until(
            async () => (text = await http.GetStringAsync(metrics)).Contains("sqlserver_monitor_export_failures_total{", StringComparison.Ordinal)
                && ExportFailures().Match(text) is { Success: true } m && long.Parse(m.Groups[1].Value, CultureInfo.InvariantCulture) >= 3,
            "three failed exports counted",
            TimeSpan.FromSeconds(60));
        await TerminateAsync(cli);
        await cli.WaitAsync(TimeSpan.FromSeconds(30));

        Assert.Matches(ExportFailures(), text);
        Assert.Contains("error_type=\"unreachable\"", text, StringComparison.Ordinal);
        var warnings = Regex.Matches(cli.StdOut + cli.StdErr, "OTLP export to http://127.0.0.1:[0-9]+/v1/metrics failed \\(unreachable");
        Assert.Single(warnings); // at most once a minute, however many exports failed
    }

    [Fact]
    public async Task The_standard_otel_variables_configure_the_exporter_when_our_settings_are_empty()
    {
        await using var receiver = await FakeOtlpReceiver.StartAsync(grpc: false);
        var environment = new Dictionary<string, string>
        {
            ["OTEL_EXPORTER_OTLP_ENDPOINT"] = receiver.Address.ToString().TrimEnd('/'),
            ["OTEL_EXPORTER_OTLP_PROTOCOL"] = "http/protobuf",
            ["OTEL_EXPORTER_OTLP_HEADERS"] = "x-api-key=from-env",
            ["OTEL_RESOURCE_ATTRIBUTES"] = "service.name=from-env,deployment.environment.name=staging",
        };
        using (var cli = CliProcess.Start(["run", "--simulate", "autocommit", "--urls", "http://127.0.0.1:0", "--Exporters:Otlp:Enabled=true", "--Exporters:Otlp:Interval=00:00:01"], environment))
        {
            var arrived = await receiver.WaitForAsync(r => r.Path == "/v1/metrics" && Holds(r.Body, "from-env") && Holds(r.Body, "staging"), TimeSpan.FromSeconds(60));
            Assert.True(arrived, $"no export with the environment's resource reached {receiver.Address}: {cli.StdErr}");
            Assert.Contains(receiver.Headers, h => h == "x-api-key=from-env");
        }

        // Our own settings, when given, win over the variables.
        receiver.Requests.Clear();
        environment["LOGFLUSHMONITOR__ServiceName"] = "ours"; // a top-level key: not accepted as --Key=value
        using (var cli = CliProcess.Start(["run", "--simulate", "autocommit", "--urls", "http://127.0.0.1:0", "--Exporters:Otlp:Enabled=true", "--Exporters:Otlp:Interval=00:00:01", "--Exporters:Otlp:Headers=x-api-key=ours"], environment))
        {
            var arrived = await receiver.WaitForAsync(r => r.Path == "/v1/metrics" && Holds(r.Body, "ours") && Holds(r.Body, "staging"), TimeSpan.FromSeconds(60));
            Assert.True(arrived, cli.StdErr);
            Assert.Contains(receiver.Headers, h => h == "x-api-key=ours");
        }
    }

    private static bool Holds(byte[] body, string text) => body.AsSpan().IndexOf(Encoding.UTF8.GetBytes(text)) >= 0;

    private static string JsonLine(string instance, string database) =>
        "{\"type\":\"flush\",\"t\":\"2026-11-22T12:00:00Z\",\"instance\":" + System.Text.Json.JsonSerializer.Serialize(instance)
        + ",\"db_id\":5,\"db\":" + System.Text.Json.JsonSerializer.Serialize(database) + ",\"write_size\":512}";

    private static int ClosedPort()
    {
        // A port the OS just handed out and nobody listens on any more.
        using var l = new System.Net.Sockets.TcpListener(System.Net.IPAddress.Loopback, 0);
        l.Start();
        return ((System.Net.IPEndPoint)l.LocalEndpoint).Port;
    }

    [GeneratedRegex(@"Serving metrics at (http://\S+?)/metrics")]
    private static partial Regex ServingAt();

    [GeneratedRegex(@"^sqlserver_monitor_export_failures_total\{[^}]*exporter=""otlp""[^}]*\} (\d+)", RegexOptions.Multiline)]
    private static partial Regex ExportFailures();
}
