using System.Diagnostics;
using System.Globalization;
using LogFlushMonitor.SqlServer.Tests.Scripted;

namespace LogFlushMonitor.SqlServer.Tests.Capture;

/// <summary>
/// Issue 31, item 7: SIGTERM (what timeout, systemd, Kubernetes and docker stop send) and SIGINT (Ctrl+C) during
/// <c>check --capture</c> both drop the temporary <c>&lt;SessionName&gt;_check</c> session on the server before the
/// process ends, and leave no file. The executable runs as a process of its own: the signal is the point.
/// </summary>
public class CaptureSignalTests
{
    [SkippableTheory]
    [InlineData("TERM")]
    [InlineData("INT")]
    public async Task A_signal_during_a_capture_drops_its_session_and_writes_no_file(string signal)
    {
        Skip.IfNot(OperatingSystem.IsLinux() || OperatingSystem.IsMacOS(), "the signal is sent with kill(1)");
        await using var server = new ScriptedSqlServer();
        var path = CaptureRun.TempPath();
        using var cli = CliProcess.Start(
        [
            "check", "--capture", path, "--capture-poll-gap", "30s", "--capture-stream-time", "30s",
            "--Sources:SqlServer:Instances:0:Name=prod-1",
            $"--Sources:SqlServer:Instances:0:ConnectionString={server.ConnectionString(CaptureRun.Login, CaptureRun.Password)}",
            "--Sources:SqlServer:Instances:0:SessionName=lfm_cap",
            "--Sources:SqlServer:CommandTimeout=00:00:10",
        ]);
        await Eventually.Until(
            () => server.EventSession("lfm_cap_check").Running && server.RequestsFor("CREATE EVENT SESSION [lfm_cap_check]").Any(r => r.Text.Contains("log_flush_complete", StringComparison.Ordinal)),
            "the capture's temporary session started", TimeSpan.FromSeconds(60));

        using (var kill = Process.Start("kill", ["-" + signal, cli.Process.Id.ToString(CultureInfo.InvariantCulture)]))
        {
            await kill.WaitForExitAsync();
        }

        var exit = await cli.WaitAsync(TimeSpan.FromSeconds(30));

        Assert.True(exit == 1, $"exit {exit}: {cli.StdErr}");
        Assert.True(cli.StdErr.Contains("Capture cancelled: no file written.", StringComparison.Ordinal), cli.StdErr);
        Assert.Equal((false, false), server.EventSession("lfm_cap_check"));
        Assert.False(File.Exists(path));
    }
}
