using System.Diagnostics;
using System.Globalization;
using System.Text.RegularExpressions;

namespace LogFlushMonitor.Tests.Hosting;

/// <summary>How the service stops and what it says while it runs, through the real executable (issue 20 items 9 and 4).</summary>
public partial class ShutdownCliTests
{
    private static async Task<Uri> ServingAsync(CliProcess cli)
    {
        await cli.WaitForOutputAsync("Serving metrics at", TimeSpan.FromSeconds(60));
        var m = ServingAt().Match(cli.StdOut + cli.StdErr);
        Assert.True(m.Success, cli.StdErr);
        return new Uri(m.Groups[1].Value);
    }

    private static void Signal(CliProcess cli, string signal)
    {
        using var kill = Process.Start("kill", [signal, cli.Process.Id.ToString(CultureInfo.InvariantCulture)]);
        kill.WaitForExit();
    }

    [SkippableFact]
    public async Task With_prometheus_and_otlp_both_on_a_successful_last_push_raises_no_warning()
    {
        Skip.IfNot(OperatingSystem.IsLinux() || OperatingSystem.IsMacOS(), "SIGTERM is sent with kill(1)");
        await using var receiver = await FakeOtlpReceiver.StartAsync(grpc: false);
        using var cli = CliProcess.Start(
        [
            "run", "--simulate", "autocommit", "--urls", "http://127.0.0.1:0",
            "--Exporters:Otlp:Enabled=true", $"--Exporters:Otlp:Endpoint={receiver.Address}", "--Exporters:Otlp:Protocol=http/protobuf", "--Exporters:Otlp:Interval=00:00:01",
        ]);
        await ServingAsync(cli);
        Assert.True(await receiver.WaitForAsync(r => r.Path == "/v1/metrics", TimeSpan.FromSeconds(60)), cli.StdErr);
        var before = receiver.Requests.Count;
        Signal(cli, "-TERM");

        Assert.Equal(0, await cli.WaitAsync(TimeSpan.FromSeconds(30)));
        Assert.True(receiver.Requests.Count > before, "no push at shutdown");
        Assert.DoesNotContain("The last metric export did not finish", cli.StdOut + cli.StdErr, StringComparison.Ordinal);
    }

    [SkippableFact]
    public async Task With_both_on_a_last_push_the_collector_refuses_is_still_reported()
    {
        Skip.IfNot(OperatingSystem.IsLinux() || OperatingSystem.IsMacOS(), "SIGTERM is sent with kill(1)");
        await using var receiver = await FakeOtlpReceiver.StartAsync(grpc: false);
        using var cli = CliProcess.Start(
        [
            "run", "--simulate", "autocommit", "--urls", "http://127.0.0.1:0",
            "--Exporters:Otlp:Enabled=true", $"--Exporters:Otlp:Endpoint={receiver.Address}", "--Exporters:Otlp:Protocol=http/protobuf", "--Exporters:Otlp:Interval=00:01:00",
        ]);
        await ServingAsync(cli);
        receiver.Status = 503;
        Signal(cli, "-TERM");

        Assert.Equal(0, await cli.WaitAsync(TimeSpan.FromSeconds(30)));
        Assert.Contains("The last metric export did not finish within 5 s at shutdown, or the collector refused it", cli.StdOut + cli.StdErr, StringComparison.Ordinal);
    }

    [SkippableFact]
    public async Task Sighup_stops_gracefully_like_sigterm()
    {
        Skip.IfNot(OperatingSystem.IsLinux() || OperatingSystem.IsMacOS(), "SIGHUP is sent with kill(1)");
        using var cli = CliProcess.Start(["run", "--simulate", "autocommit", "--urls", "http://127.0.0.1:0"]);
        await ServingAsync(cli);
        Signal(cli, "-HUP");

        // Before: the default action ended the process at once (exit 129, nothing logged).
        Assert.Equal(0, await cli.WaitAsync(TimeSpan.FromSeconds(30)));
        Assert.Contains("SIGHUP received: stopping as for SIGTERM", cli.StdOut + cli.StdErr, StringComparison.Ordinal);
        Assert.Contains("Application is shutting down", cli.StdOut + cli.StdErr, StringComparison.Ordinal);
    }

    [SkippableFact]
    public async Task A_log_file_on_a_full_disk_is_reported_on_stderr_and_counted()
    {
        Skip.IfNot(OperatingSystem.IsLinux(), "a tmpfs is mounted to fill a disk");
        var mount = Directory.CreateTempSubdirectory("lfm-full-").FullName;
        using (var mounting = Process.Start("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", mount]))
        {
            await mounting.WaitForExitAsync();
            Skip.If(mounting.ExitCode != 0, "mounting a tmpfs needs root (or CAP_SYS_ADMIN); this run has neither");
        }

        try
        {
            // Fill it: only the metadata of new files still fits.
            try
            {
                await using var filler = new FileStream(Path.Combine(mount, "filler"), FileMode.CreateNew);
                var block = new byte[4096];
                while (true)
                {
                    filler.Write(block);
                    filler.Flush(flushToDisk: true);
                }
            }
            catch (IOException)
            {
            }

            using var cli = CliProcess.Start(["run", "--simulate", "autocommit", "--urls", "http://127.0.0.1:0", $"--Log:File={Path.Combine(mount, "monitor.log")}", "--Log:Level=Debug"]);
            var root = await ServingAsync(cli);
            await cli.WaitForOutputAsync("cannot be written", TimeSpan.FromSeconds(60));
            using var http = new HttpClient();
            var text = "";
            await Eventually.Until(
                async () => LogFailures().Match(text = await http.GetStringAsync(new Uri(root, "/metrics"))) is { Success: true } m && long.Parse(m.Groups[1].Value, CultureInfo.InvariantCulture) > 0,
                "sqlserver_monitor_log_failures_total above 0",
                TimeSpan.FromSeconds(30));
            Signal(cli, "-TERM");
            Assert.Equal(0, await cli.WaitAsync(TimeSpan.FromSeconds(30)));
            Assert.True(Regex.IsMatch(cli.StdErr, $"Log:File {Regex.Escape(Path.Combine(mount, "monitor.log"))} cannot be written \\(IOException: No space left on device"), cli.StdErr);
        }
        finally
        {
            using var unmount = Process.Start("umount", [mount]);
            await unmount.WaitForExitAsync();
            Directory.Delete(mount, recursive: true);
        }
    }

    [SkippableTheory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Sigterm_while_the_replay_waits_on_a_fifo_stops_at_once_with_exit_0(bool writerStallsMidLine)
    {
        Skip.IfNot(OperatingSystem.IsLinux() || OperatingSystem.IsMacOS(), "mkfifo and kill(1)");
        var directory = Directory.CreateTempSubdirectory("lfm-fifo-");
        var fifo = Path.Combine(directory.FullName, "replay.ndjson");
        using (var mkfifo = Process.Start("mkfifo", [fifo]))
        {
            await mkfifo.WaitForExitAsync();
        }

        FileStream? writer = null;
        try
        {
            using var cli = CliProcess.Start(["run", "--replay", fifo, "--urls", "http://127.0.0.1:0"]);
            await ServingAsync(cli);
            if (writerStallsMidLine)
            {
                // The writer opens, sends half a line and then says nothing, without closing.
                writer = await Task.Run(() => new FileStream(fifo, FileMode.Open, FileAccess.Write)).WaitAsync(TimeSpan.FromSeconds(30));
                await writer.WriteAsync("{\"type\":\"flush\",\"t\":\"2026-11-22T12:00"u8.ToArray());
                await writer.FlushAsync();
            }

            await Task.Delay(500);
            var stopping = Stopwatch.StartNew();
            Signal(cli, "-TERM");

            // Before: the replay blocked in open() or read(), which ignore cancellation: 16 s, exit 1, nothing logged.
            Assert.Equal(0, await cli.WaitAsync(TimeSpan.FromSeconds(30)));
            Assert.True(stopping.Elapsed < TimeSpan.FromSeconds(8), $"stopping took {stopping.Elapsed}");
            Assert.DoesNotContain("   at ", cli.StdOut + cli.StdErr, StringComparison.Ordinal);
        }
        finally
        {
            writer?.Dispose();
            directory.Delete(recursive: true);
        }
    }

    [GeneratedRegex(@"Serving metrics at (http://\S+?)/metrics")]
    private static partial Regex ServingAt();

    [GeneratedRegex(@"^sqlserver_monitor_log_failures_total\{[^}]*\} (\d+)", RegexOptions.Multiline)]
    private static partial Regex LogFailures();
}
