using System.Diagnostics;
using System.Text.RegularExpressions;
using LogFlushMonitor.Tests.Hosting;

namespace LogFlushMonitor.Tests.Cli;

/// <summary>
/// Settings that passed validation and then crashed the host (exit 1 and a stack trace), and files read without a
/// bound (issue 20 item 6): through the real executable where a signal or the environment is the point, the command
/// line in this process otherwise.
/// </summary>
public partial class HostileSettingsCliTests
{
    private const string StackFrame = "   at ";

    [Theory]
    [InlineData("--Log:RetainedFiles=0", "Log:RetainedFiles is 0")]
    [InlineData("--Log:SummaryInterval=00:00:00.0001", "Log:SummaryInterval is 00:00:00.0001")]
    [InlineData("--Sources:Simulate:Duration=10675199.02:48:05.4775807", "Sources:Simulate:Duration is 10675199.02:48:05.4775807")]
    [InlineData("--Exporters:Otlp:Enabled=true --Exporters:Otlp:Interval=10675199.02:48:05.4775807", "Exporters:Otlp:Interval is")]
    [InlineData("--Sources:SqlServer:PollInterval=10000.00:00:00", "Sources:SqlServer:PollInterval is 10000.00:00:00")]
    public async Task A_setting_that_used_to_crash_after_validation_exits_2_naming_it(string settings, string message)
    {
        var log = Path.Combine(Path.GetTempPath(), $"lfm-hostile-{Guid.NewGuid():N}", "monitor.log");
        var (code, _, err) = await InProcessCli.RunAsync(["run", "--simulate", "mixed", "--urls", "http://127.0.0.1:0", $"--Log:File={log}", .. settings.Split(' ')]);
        Assert.True(code == 2, $"exit {code}: {err}");
        Assert.Contains(message, err, StringComparison.Ordinal);
        Assert.DoesNotContain(StackFrame, err, StringComparison.Ordinal);
    }

    [Fact]
    public async Task An_http_address_this_host_does_not_have_exits_2_naming_http_urls()
    {
        // 192.0.2.1 is reserved for documentation (RFC 5737): no host has it.
        var (code, _, err) = await InProcessCli.RunAsync("run", "--simulate", "mixed", "--Http:Urls=http://192.0.2.1:9464");
        Assert.True(code == 2, $"exit {code}: {err}");
        Assert.Contains("Http:Urls cannot be listened on", err, StringComparison.Ordinal);
        Assert.DoesNotContain(StackFrame, err, StringComparison.Ordinal);
        Assert.DoesNotContain("Hosting failed to start", err, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_health_timeout_past_the_range_of_a_duration_exits_2()
    {
        var (code, _, err) = await InProcessCli.RunAsync("health", "--timeout", "99999999h");
        Assert.True(code == 2, $"exit {code}: {err}");
        Assert.Contains("--timeout '99999999h' is not a duration from 1ms to 1h", err, StringComparison.Ordinal);
        Assert.DoesNotContain(StackFrame, err, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("OTEL_EXPORTER_OTLP_HEADERS", "=,,==,a", "OTEL_EXPORTER_OTLP_HEADERS is not a list of key=value pairs")]
    [InlineData("OTEL_EXPORTER_OTLP_HEADERS", "authorization=Bearer SECRET\r\nx-forged: 1", "OTEL_EXPORTER_OTLP_HEADERS holds a control character")]
    [InlineData("OTEL_EXPORTER_OTLP_METRICS_HEADERS", "api-key=SECRET\n", "OTEL_EXPORTER_OTLP_METRICS_HEADERS holds a control character")]
    [InlineData("OTEL_EXPORTER_OTLP_ENDPOINT", "ftp://collector:4317", "OTEL_EXPORTER_OTLP_ENDPOINT is a ftp:// URL")]
    [InlineData("OTEL_EXPORTER_OTLP_ENDPOINT", "not a url", "OTEL_EXPORTER_OTLP_ENDPOINT is not an absolute URL")]
    public async Task An_otlp_variable_that_would_export_nothing_exits_2_naming_it_without_its_value(string variable, string value, string message)
    {
        using var cli = CliProcess.Start(["run", "--simulate", "mixed", "--urls", "http://127.0.0.1:0", "--Exporters:Otlp:Enabled=true"], new Dictionary<string, string> { [variable] = value });
        var code = await cli.WaitAsync(TimeSpan.FromSeconds(60));
        Assert.True(code == 2, $"exit {code}: {cli.StdErr}");
        Assert.Contains(message, cli.StdErr, StringComparison.Ordinal);
        Assert.DoesNotContain(StackFrame, cli.StdErr, StringComparison.Ordinal);
        Assert.DoesNotContain("SECRET", cli.StdOut + cli.StdErr, StringComparison.Ordinal);
    }

    [SkippableTheory]
    [InlineData("OTEL_EXPORTER_OTLP_PROTOCOL", "carrier-pigeon", "OTEL_EXPORTER_OTLP_PROTOCOL is 'carrier-pigeon', which this exporter does not support: grpc is used")]
    [InlineData("OTEL_EXPORTER_OTLP_TIMEOUT", "soon", "OTEL_EXPORTER_OTLP_TIMEOUT is 'soon', which is not a whole number of milliseconds")]
    public async Task A_junk_otlp_protocol_or_timeout_is_a_warning_naming_the_variable_and_the_default_used(string variable, string value, string message)
    {
        Skip.IfNot(OperatingSystem.IsLinux() || OperatingSystem.IsMacOS(), "SIGTERM is sent with kill(1)");
        using var cli = CliProcess.Start(["run", "--simulate", "mixed", "--urls", "http://127.0.0.1:0", "--Exporters:Otlp:Enabled=true"], new Dictionary<string, string> { [variable] = value });
        await cli.WaitForOutputAsync(message, TimeSpan.FromSeconds(60));
        await cli.WaitForOutputAsync("Serving metrics at", TimeSpan.FromSeconds(60));
        cli.Terminate();
        Assert.Equal(0, await cli.WaitAsync(TimeSpan.FromSeconds(30)));
    }

    [SkippableFact]
    public async Task Otlp_without_prometheus_exports_and_serves_health_and_readiness()
    {
        Skip.IfNot(OperatingSystem.IsLinux() || OperatingSystem.IsMacOS(), "SIGTERM is sent with kill(1)");
        await using var receiver = await FakeOtlpReceiver.StartAsync(grpc: false);
        using var cli = CliProcess.Start(
        [
            "run", "--simulate", "autocommit", "--urls", "http://127.0.0.1:0", "--Exporters:Prometheus:Enabled=false",
            "--Exporters:Otlp:Enabled=true", $"--Exporters:Otlp:Endpoint={receiver.Address}", "--Exporters:Otlp:Protocol=http/protobuf", "--Exporters:Otlp:Interval=00:00:01",
        ]);
        await cli.WaitForOutputAsync("Serving health at", TimeSpan.FromSeconds(60));
        var root = new Uri(HealthAt().Match(cli.StdOut + cli.StdErr).Groups[1].Value);
        using var http = new HttpClient();
        Assert.Equal("ok\n", await http.GetStringAsync(new Uri(root, "/healthz")));
        await Eventually.Until(async () => (await http.GetAsync(new Uri(root, "/readyz"))).IsSuccessStatusCode, "/readyz ready", TimeSpan.FromSeconds(60));
        using (var metrics = await http.GetAsync(new Uri(root, "/metrics")))
        {
            Assert.Equal(System.Net.HttpStatusCode.NotFound, metrics.StatusCode);
        }

        Assert.True(await receiver.WaitForAsync(r => r.Path == "/v1/metrics", TimeSpan.FromSeconds(60)), cli.StdErr);
        cli.Terminate();
        Assert.Equal(0, await cli.WaitAsync(TimeSpan.FromSeconds(30)));
        Assert.DoesNotContain(StackFrame, cli.StdErr, StringComparison.Ordinal);
    }

    [SkippableTheory]
    [InlineData("run", "/dev/zero")]
    [InlineData("check", "/dev/zero")]
    [InlineData("check", "fifo")]
    [InlineData("run", "fifo")]
    [InlineData("check", "huge")]
    public async Task A_connection_string_file_that_is_a_device_a_pipe_or_huge_exits_2_at_once(string command, string kind)
    {
        Skip.IfNot(OperatingSystem.IsLinux(), "/dev/zero and mkfifo; the file kind is asked of Linux");
        var directory = Directory.CreateTempSubdirectory("lfm-files-");
        try
        {
            var file = kind switch
            {
                "fifo" => MakeFifo(Path.Combine(directory.FullName, "secret.fifo")),
                "huge" => Sparse(Path.Combine(directory.FullName, "secret.txt"), 200L << 20),
                _ => kind,
            };
            List<string> args = [command, "--Sources:SqlServer:Instances:0:Name=prod1", $"--Sources:SqlServer:Instances:0:ConnectionStringFile={file}"];
            if (command == "run")
            {
                args.AddRange(["--urls", "http://127.0.0.1:0"]);
            }

            var started = Stopwatch.StartNew();
            var (code, _, stderr) = await InProcessCli.RunAsync([.. args]);
            Assert.True(code == 2, $"exit {code}: {stderr}");
            Assert.Contains($"Instance 'prod1': cannot read ConnectionStringFile {file}: it is ", stderr, StringComparison.Ordinal);
            Assert.Contains(kind switch { "fifo" => "a named pipe (FIFO), not a regular file", "huge" => "more than the 65536 bytes", _ => "a character device, not a regular file" }, stderr, StringComparison.Ordinal);
            Assert.DoesNotContain(StackFrame, stderr, StringComparison.Ordinal);
            Assert.True(started.Elapsed < TimeSpan.FromSeconds(30), $"took {started.Elapsed}");
        }
        finally
        {
            directory.Delete(recursive: true);
        }
    }

    [SkippableTheory]
    [InlineData("OTEL_EXPORTER_OTLP_CERTIFICATE", "/dev/zero")]
    [InlineData("OTEL_EXPORTER_OTLP_CERTIFICATE", "fifo")]
    [InlineData("OTEL_EXPORTER_OTLP_CLIENT_KEY", "/dev/zero")]
    public async Task An_otlp_certificate_that_is_a_device_or_a_pipe_exits_2_at_once(string variable, string kind)
    {
        Skip.IfNot(OperatingSystem.IsLinux(), "/dev/zero and mkfifo; the file kind is asked of Linux");
        var directory = Directory.CreateTempSubdirectory("lfm-files-");
        try
        {
            var file = kind == "fifo" ? MakeFifo(Path.Combine(directory.FullName, "ca.fifo")) : kind;
            var environment = new Dictionary<string, string> { [variable] = file };
            if (variable == "OTEL_EXPORTER_OTLP_CLIENT_KEY")
            {
                environment["OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE"] = "/dev/zero";
            }

            using var cli = CliProcess.Start(["run", "--simulate", "mixed", "--urls", "http://127.0.0.1:0", "--Exporters:Otlp:Enabled=true"], environment);
            var code = await cli.WaitAsync(TimeSpan.FromSeconds(60));
            Assert.True(code == 2, $"exit {code}: {cli.StdErr}");
            Assert.Contains(variable, cli.StdErr, StringComparison.Ordinal);
            Assert.Contains("not a regular file", cli.StdErr, StringComparison.Ordinal);
            Assert.DoesNotContain(StackFrame, cli.StdErr, StringComparison.Ordinal);
        }
        finally
        {
            directory.Delete(recursive: true);
        }
    }

    private static string MakeFifo(string path)
    {
        using var mkfifo = Process.Start("mkfifo", [path]);
        mkfifo.WaitForExit();
        Assert.Equal(0, mkfifo.ExitCode);
        return path;
    }

    /// <summary>A file of <paramref name="length"/> bytes that takes no space on disk.</summary>
    private static string Sparse(string path, long length)
    {
        using var stream = new FileStream(path, FileMode.CreateNew);
        stream.SetLength(length);
        return path;
    }

    [GeneratedRegex(@"Serving health at (http://\S+?)/healthz")]
    private static partial Regex HealthAt();
}
