using System.Diagnostics;
using System.Text;

namespace LogFlushMonitor.SqlServer.Tests.Workload;

/// <summary>The real logflushmonitor executable (its dll, through dotnet, copied here by the project reference), run as a user would.</summary>
internal sealed class Executable : IDisposable
{
    private readonly StringBuilder _stdout = new();
    private readonly StringBuilder _stderr = new();

    private Executable(Process process) => Process = process;

    public Process Process { get; }

    public string StdOut
    {
        get
        {
            lock (_stdout)
            {
                return _stdout.ToString();
            }
        }
    }

    public string StdErr
    {
        get
        {
            lock (_stderr)
            {
                return _stderr.ToString();
            }
        }
    }

    public static Executable Start(IEnumerable<string> args, IDictionary<string, string>? environment = null)
    {
        var psi = new ProcessStartInfo("dotnet")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
            WorkingDirectory = Path.GetTempPath(),
        };
        psi.ArgumentList.Add(Path.Combine(AppContext.BaseDirectory, "logflushmonitor.dll"));
        foreach (var a in args)
        {
            psi.ArgumentList.Add(a);
        }

        foreach (var key in psi.Environment.Keys.Where(k => k.StartsWith("LOGFLUSHMONITOR__", StringComparison.Ordinal)).ToList())
        {
            psi.Environment.Remove(key);
        }

        foreach (var (k, v) in environment ?? new Dictionary<string, string>())
        {
            psi.Environment[k] = v;
        }

        var process = new Process { StartInfo = psi };
        var run = new Executable(process);
        process.OutputDataReceived += (_, e) => Append(run._stdout, e.Data);
        process.ErrorDataReceived += (_, e) => Append(run._stderr, e.Data);
        process.Start();
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        return run;
    }

    /// <summary>Sends SIGINT, as Ctrl+C in a terminal does.</summary>
    public void Interrupt()
    {
        using var kill = Process.Start("kill", ["-INT", Process.Id.ToString(System.Globalization.CultureInfo.InvariantCulture)]);
        kill.WaitForExit();
    }

    /// <summary>Sends SIGTERM, as systemd, Docker and Kubernetes do to stop a service.</summary>
    public void Terminate()
    {
        using var kill = Process.Start("kill", ["-TERM", Process.Id.ToString(System.Globalization.CultureInfo.InvariantCulture)]);
        kill.WaitForExit();
    }

    public async Task<int> WaitAsync(TimeSpan timeout)
    {
        using var cts = new CancellationTokenSource(timeout);
        try
        {
            await Process.WaitForExitAsync(cts.Token);
        }
        catch (OperationCanceledException)
        {
            Process.Kill(entireProcessTree: true);
            throw new TimeoutException($"logflushmonitor did not exit within {timeout}. stdout: {StdOut} stderr: {StdErr}");
        }

        Process.WaitForExit(); // the redirected streams are read to their end
        return Process.ExitCode;
    }

    public void Dispose()
    {
        if (!Process.HasExited)
        {
            Process.Kill(entireProcessTree: true);
        }

        Process.Dispose();
    }

    private static void Append(StringBuilder sb, string? line)
    {
        if (line is not null)
        {
            lock (sb)
            {
                sb.AppendLine(line);
            }
        }
    }
}
