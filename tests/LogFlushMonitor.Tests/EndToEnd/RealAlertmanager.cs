namespace LogFlushMonitor.Tests.EndToEnd;

/// <summary>
/// A real Alertmanager (Debian's <c>prometheus-alertmanager</c>) for a test: on a free port of 127.0.0.1, clustering
/// off, its own storage folder, with the configuration text it is given; killed with its data at the end.
/// </summary>
internal sealed class RealAlertmanager : IAsyncDisposable
{
    private readonly LocalServerProcess _server;

    private RealAlertmanager(LocalServerProcess server) => _server = server;

    /// <summary>The binary: $ALERTMANAGER, else Debian's /usr/bin/prometheus-alertmanager.</summary>
    public static string BinaryPath => Environment.GetEnvironmentVariable("ALERTMANAGER") ?? "/usr/bin/prometheus-alertmanager";

    /// <summary>Whether the binary is there.</summary>
    public static bool IsInstalled => File.Exists(BinaryPath);

    /// <summary>Why a test skips without it.</summary>
    public static string NotInstalledReason => $"alertmanager not found at {BinaryPath} (Debian package 'prometheus-alertmanager'; .ci/run installs it)";

    /// <summary>host:port for Prometheus's alerting configuration.</summary>
    public string Target => $"127.0.0.1:{Port}";

    public int Port => _server.Port;

    public string Stderr => _server.Stderr;

    /// <summary>Starts Alertmanager with <paramref name="configuration"/> (YAML text) and waits until it is ready.</summary>
    public static async Task<RealAlertmanager> StartAsync(string configuration)
    {
        var work = Directory.CreateTempSubdirectory("lfm-alertmanager-");
        var config = Path.Combine(work.FullName, "alertmanager.yml");
        await File.WriteAllTextAsync(config, configuration);

        var server = await LocalServerProcess.StartAsync("alertmanager", BinaryPath, work, (port, attempt) =>
        [
            "--config.file=" + config,
            "--storage.path=" + Path.Combine(work.FullName, "data-" + attempt),
            $"--web.listen-address=127.0.0.1:{port}",
            // Empty: no gossip port, no peers (several test stacks run at once on this machine).
            "--cluster.listen-address=",
            "--log.level=warn",
        ]);
        return new RealAlertmanager(server);
    }

    public ValueTask DisposeAsync() => _server.DisposeAsync();
}
