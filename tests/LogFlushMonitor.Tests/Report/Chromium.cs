using System.Diagnostics;

namespace LogFlushMonitor.Tests.Report;

/// <summary>Headless Chromium (Debian package <c>chromium</c>) with a fresh profile per run and nothing but the page.</summary>
internal static class Chromium
{
    public const string Path = "/usr/bin/chromium";

    public static bool Available => File.Exists(Path);

    /// <summary>Renders <paramref name="url"/> and writes a screenshot of the first 1280 × <paramref name="height"/> pixels.</summary>
    public static Task<(int Code, string StdOut, string StdErr)> ScreenshotAsync(string url, string png, int height = 2000) =>
        RunAsync($"--screenshot={png}", $"--window-size=1280,{height}", url);

    /// <summary>
    /// The page's DOM after it loaded (stdout) and every console message (stderr lines with <c>:CONSOLE</c>: Chromium logs
    /// console.log, console.error and uncaught exceptions alike at this level).
    /// </summary>
    public static async Task<(string Dom, IReadOnlyList<string> Console)> DumpDomAsync(string url)
    {
        var (code, stdout, stderr) = await RunAsync("--enable-logging=stderr", "--v=0", "--dump-dom", url);
        Assert.True(code == 0, $"chromium exited with {code}: {stderr}");
        var console = stderr.Split('\n').Where(l => l.Contains(":CONSOLE", StringComparison.Ordinal)).ToList();
        return (stdout, console);
    }

    private static async Task<(int Code, string StdOut, string StdErr)> RunAsync(params string[] args)
    {
        var profile = Directory.CreateTempSubdirectory("lfm-chromium-");
        try
        {
            var psi = new ProcessStartInfo(Path) { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
            foreach (var a in (string[])["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", $"--user-data-dir={profile.FullName}", .. args])
            {
                psi.ArgumentList.Add(a);
            }

            using var process = Process.Start(psi)!;
            var stdout = process.StandardOutput.ReadToEndAsync();
            var stderr = process.StandardError.ReadToEndAsync();
            using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(90));
            try
            {
                await process.WaitForExitAsync(timeout.Token);
            }
            catch (OperationCanceledException)
            {
                process.Kill(entireProcessTree: true);
                throw new TimeoutException($"chromium {string.Join(' ', args)} did not finish within 90 s.");
            }

            return (process.ExitCode, await stdout, await stderr);
        }
        finally
        {
            try
            {
                profile.Delete(recursive: true);
            }
            catch (IOException)
            {
                // Chromium's helpers may still hold a file for a moment; the temp folder is cleaned later.
            }
        }
    }
}
