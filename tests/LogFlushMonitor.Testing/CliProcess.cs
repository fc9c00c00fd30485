using System.Diagnostics;
using System.Text;

namespace LogFlushMonitor.Testing;

/// <summary>
/// Runs the real logflushmonitor executable (its dll beside the test assembly, copied there by the test project's
/// reference, through dotnet) as a user would, without the LOGFLUSHMONITOR__ settings or the systemd socket of the
/// environment the tests run in.
/// </summary>
public sealed class CliProcess : IDisposable
{
    private readonly StringBuilder _stdout = new();
    private readonly StringBuilder _stderr = new();

    private CliProcess(Process process) => Process = process;

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

    public static string DllPath => Path.Combine(AppContext.BaseDirectory, "logflushmonitor.dll");

    /// <summary>The stand-alone analyzer's dll (src/LogFlushMonitor.AnalyzeTool), beside the test assembly when the test project references it.</summary>
    public static string AnalyzeToolDllPath => Path.Combine(AppContext.BaseDirectory, "logflushmonitor-analyze.dll");

    public static CliProcess Start(IEnumerable<string> args, IDictionary<string, string>? environment = null, string? workingDirectory = null) =>
        Start(DllPath, args, environment, workingDirectory);

    /// <summary>Runs another program of the repository by its dll (e.g. <see cref="AnalyzeToolDllPath"/>).</summary>
    public static CliProcess Start(string dllPath, IEnumerable<string> args, IDictionary<string, string>? environment = null, string? workingDirectory = null)
    {
        // A child inherits an ignored SIGINT, and job runners start the tests with SIGINT ignored (a background job of
        // a non-interactive shell): the Ctrl+C tests then failed there. GNU env resets it to the default for the child.
        var resetSigint = OperatingSystem.IsLinux() && File.Exists("/usr/bin/env");
        var psi = new ProcessStartInfo(resetSigint ? "/usr/bin/env" : "dotnet")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
            WorkingDirectory = workingDirectory ?? Path.GetTempPath(),
        };
        if (resetSigint)
        {
            psi.ArgumentList.Add("--default-signal=INT");
            psi.ArgumentList.Add("dotnet");
        }

        psi.ArgumentList.Add(dllPath);
        foreach (var a in args)
        {
            psi.ArgumentList.Add(a);
        }

        psi.Environment.Remove("NOTIFY_SOCKET");
        foreach (var key in psi.Environment.Keys.Where(k => k.StartsWith("LOGFLUSHMONITOR__", StringComparison.Ordinal)).ToList())
        {
            psi.Environment.Remove(key);
        }

        foreach (var (k, v) in environment ?? new Dictionary<string, string>())
        {
            psi.Environment[k] = v;
        }

        var p = new Process { StartInfo = psi, EnableRaisingEvents = true };
        var cli = new CliProcess(p);
        p.OutputDataReceived += (_, e) =>
        {
            if (e.Data is not null)
            {
                lock (cli._stdout)
                {
                    cli._stdout.AppendLine(e.Data);
                }
            }
        };
        p.ErrorDataReceived += (_, e) =>
        {
            if (e.Data is not null)
            {
                lock (cli._stderr)
                {
                    cli._stderr.AppendLine(e.Data);
                }
            }
        };
        p.Start();
        p.BeginOutputReadLine();
        p.BeginErrorReadLine();
        return cli;
    }

    public static Task<(int ExitCode, string StdOut, string StdErr)> RunAsync(params string[] args) => RunDllAsync(DllPath, args);

    /// <summary>Runs <paramref name="dllPath"/> to its end (60 s at most).</summary>
    public static async Task<(int ExitCode, string StdOut, string StdErr)> RunDllAsync(string dllPath, params string[] args)
    {
        using var cli = Start(dllPath, args);
        var code = await cli.WaitAsync(TimeSpan.FromSeconds(60));
        return (code, cli.StdOut, cli.StdErr);
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

        Process.WaitForExit(); // flush the redirected streams
        return Process.ExitCode;
    }

    public async Task WaitForOutputAsync(string text, TimeSpan timeout)
    {
        bool Appeared() => StdOut.Contains(text, StringComparison.Ordinal) || StdErr.Contains(text, StringComparison.Ordinal);
        try
        {
            await Eventually.Until(() => Appeared() || Process.HasExited, $"'{text}' in the output", timeout);
        }
        catch (TimeoutException)
        {
        }

        if (!Appeared())
        {
            throw new TimeoutException($"'{text}' did not appear. stdout: {StdOut} stderr: {StdErr}");
        }
    }

    /// <summary>Sends SIGINT, as Ctrl+C in a terminal does.</summary>
    public void Interrupt() => Signal("-INT");

    /// <summary>Sends SIGTERM, as systemd, Docker and Kubernetes do to stop a service.</summary>
    public void Terminate() => Signal("-TERM");

    public void Dispose()
    {
        if (!Process.HasExited)
        {
            Process.Kill(entireProcessTree: true);
        }

        Process.Dispose();
    }

    private void Signal(string signal)
    {
        using var kill = Process.Start("kill", [signal, Process.Id.ToString(System.Globalization.CultureInfo.InvariantCulture)]);
        kill.WaitForExit();
    }
}
