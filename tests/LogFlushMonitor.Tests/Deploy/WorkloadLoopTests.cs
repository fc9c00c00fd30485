using System.Diagnostics;

namespace LogFlushMonitor.Tests.Deploy;

/// <summary>
/// deploy/compose/workload-loop.sh, the workload container's PID 1, run for real by /bin/sh with a stand-in for the
/// executable: a stop signal reaches the running workload, and the loop ends with it.
/// </summary>
public sealed class WorkloadLoopTests
{
    // The trap is set before "started" is written: the test sends TERM as soon as it reads that line, and a TERM
    // before the trap killed the stand-in without its "got TERM" (a flaky failure under load).
    private const string StandIn = """
        #!/bin/sh
        sleeper=
        trap 'echo "got TERM" >> "$STAND_IN_LOG"; [ -n "$sleeper" ] && kill $sleeper; exit 143' TERM
        echo "started $*" >> "$STAND_IN_LOG"
        sleep 60 &
        sleeper=$!
        wait $sleeper
        """;

    [SkippableFact]
    public async Task Sigterm_stops_the_running_workload_and_the_loop()
    {
        Skip.If(OperatingSystem.IsWindows(), "the workload loop is a /bin/sh script for the Linux container");
        var directory = Directory.CreateTempSubdirectory("lfm-workload-loop-");
        try
        {
            var standIn = Path.Combine(directory.FullName, "logflushmonitor");
            await File.WriteAllTextAsync(standIn, StandIn.Replace("\r", "", StringComparison.Ordinal) + "\n");
            if (!OperatingSystem.IsWindows())
            {
                File.SetUnixFileMode(standIn, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute);
            }

            var log = Path.Combine(directory.FullName, "log.txt");

            var psi = new ProcessStartInfo("/bin/sh") { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
            psi.ArgumentList.Add(DeployFiles.Path("deploy", "compose", "workload-loop.sh"));
            psi.Environment["LOGFLUSHMONITOR_EXECUTABLE"] = standIn;
            psi.Environment["STAND_IN_LOG"] = log;
            psi.Environment["WORKLOAD_SCENARIOS"] = "autocommit batched";
            using var loop = Process.Start(psi)!;
            var stderr = loop.StandardError.ReadToEndAsync();
            _ = loop.StandardOutput.ReadToEndAsync();
            try
            {
                var deadline = DateTime.UtcNow.AddSeconds(20);
                while (!(File.Exists(log) && (await File.ReadAllTextAsync(log)).Contains("started workload --scenario autocommit", StringComparison.Ordinal)))
                {
                    Assert.True(DateTime.UtcNow < deadline, "the loop never started the first scenario");
                    await Task.Delay(50);
                }

                using (var kill = Process.Start("kill", ["-TERM", loop.Id.ToString(System.Globalization.CultureInfo.InvariantCulture)]))
                {
                    await kill.WaitForExitAsync();
                }

                using var stopped = new CancellationTokenSource(TimeSpan.FromSeconds(15));
                await loop.WaitForExitAsync(stopped.Token);

                Assert.Equal(143, loop.ExitCode);
                var lines = await File.ReadAllLinesAsync(log);
                Assert.Equal(["started workload --scenario autocommit --duration 2m --sessions 4", "got TERM"], lines);
                Assert.Contains("workload: stopping", await stderr, StringComparison.Ordinal);
            }
            finally
            {
                if (!loop.HasExited)
                {
                    loop.Kill(entireProcessTree: true);
                }
            }
        }
        finally
        {
            directory.Delete(recursive: true);
        }
    }
}
