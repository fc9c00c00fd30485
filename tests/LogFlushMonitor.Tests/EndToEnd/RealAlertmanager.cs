using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Text;

namespace LogFlushMonitor.Tests.EndToEnd;

/// <summary>
/// A real Alertmanager (Debian's <c>prometheus-alertmanager</c>) for a test: on a free port of 127.0.0.1, clustering
/// off, its own storage folder, with the configuration text it is given; killed with its data at the end.
/// </summary>
internal sealed class RealAlertmanager : IAsyncDisposable
{
    private readonly Process _process;
    private readonly DirectoryInfo _work;
    private readonly StringBuilder _stderr = new();
    private readonly HttpClient _api;

    private RealAlertmanager(Process process, DirectoryInfo work, int port)
    {
        _process = process;
        _work = work;
        Port = port;
        _api = new HttpClient { BaseAddress = new Uri($"http://127.0.0.1:{port}"), Timeout = TimeSpan.FromSeconds(10) };
    }

    /// <summary>The binary: $ALERTMANAGER, else Debian's /usr/bin/prometheus-alertmanager.</summary>
    public static string BinaryPath => Environment.GetEnvironmentVariable("ALERTMANAGER") ?? "/usr/bin/prometheus-alertmanager";

    /// <summary>Whether the binary is there.</summary>
    public static bool IsInstalled => File.Exists(BinaryPath);

    /// <summary>Why a test skips without it.</summary>
    public static string NotInstalledReason => $"alertmanager not found at {BinaryPath} (Debian package 'prometheus-alertmanager'; .ci/run installs it)";

    /// <summary>host:port for Prometheus's alerting configuration.</summary>
    public string Target => $"127.0.0.1:{Port}";

    public int Port { get; }

    public string Stderr
    {
        get
        {
            lock (_stderr)
            {
                return _stderr.ToString();
            }
        }
    }

    /// <summary>Starts Alertmanager with <paramref name="configuration"/> (YAML text) and waits until it is ready.</summary>
    public static async Task<RealAlertmanager> StartAsync(string configuration)
    {
        var work = Directory.CreateTempSubdirectory("lfm-alertmanager-");
        var config = Path.Combine(work.FullName, "alertmanager.yml");
        await File.WriteAllTextAsync(config, configuration);

        // A free port can be taken by another process between asking and binding: try a few.
        for (var attempt = 1; ; attempt++)
        {
            var port = FreePort();
            var process = new Process
            {
                StartInfo = new ProcessStartInfo(BinaryPath,
                [
                    "--config.file=" + config,
                    "--storage.path=" + Path.Combine(work.FullName, "data-" + attempt),
                    $"--web.listen-address=127.0.0.1:{port}",
                    // Empty: no gossip port, no peers (several test stacks run at once on this machine).
                    "--cluster.listen-address=",
                    "--log.level=warn",
                ])
                {
                    RedirectStandardError = true,
                    RedirectStandardOutput = true,
                },
            };
            var alertmanager = new RealAlertmanager(process, work, port);
            process.ErrorDataReceived += (_, e) =>
            {
                lock (alertmanager._stderr)
                {
                    alertmanager._stderr.AppendLine(e.Data);
                }
            };
            process.OutputDataReceived += (_, _) => { };
            process.Start();
            process.BeginErrorReadLine();
            process.BeginOutputReadLine();
            try
            {
                await Eventually.Until(alertmanager.IsReadyAsync, "alertmanager to answer on /-/ready");
                return alertmanager;
            }
            catch (Exception e) when (e is TimeoutException or InvalidOperationException && attempt < 3)
            {
                await alertmanager.StopAsync(deleteData: false);
            }
            catch
            {
                await alertmanager.DisposeAsync();
                throw;
            }
        }
    }

    public async ValueTask DisposeAsync() => await StopAsync(deleteData: true);

    private async Task<bool> IsReadyAsync()
    {
        if (_process.HasExited)
        {
            throw new InvalidOperationException($"alertmanager exited with code {_process.ExitCode}: {Stderr}");
        }

        try
        {
            using var response = await _api.GetAsync(new Uri("/-/ready", UriKind.Relative));
            return response.IsSuccessStatusCode;
        }
        catch (HttpRequestException)
        {
            return false; // still starting
        }
    }

    private async Task StopAsync(bool deleteData)
    {
        _api.Dispose();
        if (!_process.HasExited)
        {
            _process.Kill(entireProcessTree: true);
        }

        using var exit = new CancellationTokenSource(TimeSpan.FromSeconds(10));
        await _process.WaitForExitAsync(exit.Token);
        _process.Dispose();
        if (deleteData)
        {
            _work.Delete(recursive: true);
        }
    }

    private static int FreePort()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }
}
