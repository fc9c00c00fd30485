using System.Text.Json;

namespace LogFlushMonitor.Testing;

/// <summary>
/// A real <c>prometheus</c> server for a test: started on a free port of 127.0.0.1 against one scrape target (every
/// second), with optional rule files, asked through its HTTP API, and killed with its data at the end. Tests skip
/// when it is not installed (<see cref="NotInstalledReason"/>).
/// </summary>
public sealed class RealPrometheus : IAsyncDisposable
{
    private const string Job = "logflushmonitor";
    private readonly LocalServerProcess _server;

    private RealPrometheus(LocalServerProcess server) => _server = server;

    /// <summary>The binary: $PROMETHEUS, else Debian's /usr/bin/prometheus.</summary>
    public static string BinaryPath => Environment.GetEnvironmentVariable("PROMETHEUS") ?? "/usr/bin/prometheus";

    /// <summary>Whether the binary is there.</summary>
    public static bool IsInstalled => File.Exists(BinaryPath);

    /// <summary>Why a test skips without it.</summary>
    public static string NotInstalledReason => $"prometheus not found at {BinaryPath} (Debian package 'prometheus'; .ci/run installs it)";

    /// <summary>The port of its HTTP API.</summary>
    public int Port => _server.Port;

    /// <summary>What it wrote to stderr so far (for failure messages).</summary>
    public string Stderr => _server.Stderr;

    /// <summary>
    /// Starts Prometheus scraping <paramref name="target"/> (host:port) every second as job "logflushmonitor", with the
    /// given rule files evaluated every second, sending alerts to <paramref name="alertmanager"/> (host:port) when
    /// given, and waits until its API answers. <paramref name="features"/> go to <c>--enable-feature</c> (e.g.
    /// <c>native-histograms</c>, with which it asks for the protobuf exposition).
    /// </summary>
    public static async Task<RealPrometheus> StartAsync(string target, IEnumerable<string>? ruleFiles = null, string? alertmanager = null, IEnumerable<string>? features = null)
    {
        var enabled = features?.ToList() ?? [];
        var work = Directory.CreateTempSubdirectory("lfm-prometheus-");
        var rules = new List<string>();
        foreach (var file in ruleFiles ?? [])
        {
            var copy = Path.Combine(work.FullName, Path.GetFileName(file));
            File.Copy(file, copy);
            rules.Add(Path.GetFileName(copy));
        }

        var config = Path.Combine(work.FullName, "prometheus.yml");
        await File.WriteAllTextAsync(config, $"""
            global:
              scrape_interval: 1s
              scrape_timeout: 1s
              evaluation_interval: 1s
            rule_files: [{string.Join(", ", rules.Select(r => $"'{r}'"))}]
            alerting:
              alertmanagers: [{(alertmanager is null ? "" : $"{{ static_configs: [{{ targets: ['{alertmanager}'] }}] }}")}]
            scrape_configs:
              - job_name: {Job}
                static_configs:
                  - targets: ['{target}']
            """).ConfigureAwait(false);

        var server = await LocalServerProcess.StartAsync("prometheus", BinaryPath, work, (port, attempt) =>
        [
            "--config.file=" + config,
            "--storage.tsdb.path=" + Path.Combine(work.FullName, "data-" + attempt),
            $"--web.listen-address=127.0.0.1:{port}",
            "--log.level=warn",
            .. enabled.Select(f => "--enable-feature=" + f),
        ]).ConfigureAwait(false);
        return new RealPrometheus(server);
    }

    /// <summary>Completes once Prometheus has scraped the target successfully (its <c>up</c> series is 1).</summary>
    public Task WaitForScrapeAsync(TimeSpan? timeout = null) =>
        WaitForAsync($"up{{job=\"{Job}\"}} == 1", r => r.GetArrayLength() > 0, "a successful scrape of the target", timeout);

    /// <summary>
    /// Runs <paramref name="promql"/> until <paramref name="done"/> holds for its result (the <c>data.result</c> array)
    /// and returns that result.
    /// </summary>
    /// <exception cref="TimeoutException">When it never holds; the message has the last result and Prometheus's stderr.</exception>
    public async Task<JsonElement> WaitForAsync(string promql, Func<JsonElement, bool> done, string what, TimeSpan? timeout = null)
    {
        ArgumentNullException.ThrowIfNull(done);
        JsonElement last = default;
        var lastText = "nothing yet";
        try
        {
            await Eventually.Until(
                async () =>
                {
                    try
                    {
                        last = await QueryAsync(promql).ConfigureAwait(false);
                        lastText = last.ToString();
                        return done(last);
                    }
                    catch (HttpRequestException e)
                    {
                        lastText = e.Message;
                        return false;
                    }
                },
                what,
                timeout).ConfigureAwait(false);
        }
        catch (TimeoutException e)
        {
            throw new TimeoutException($"{e.Message} Query: {promql}; last result: {lastText}; prometheus stderr: {Stderr}", e);
        }

        return last;
    }

    /// <summary>Runs an instant query; returns <c>data.result</c>.</summary>
    /// <exception cref="InvalidOperationException">When Prometheus rejects the query (the message has its error) or has exited.</exception>
    public async Task<JsonElement> QueryAsync(string promql)
    {
        _server.ThrowIfExited();
        using var response = await _server.Api.GetAsync(new Uri("/api/v1/query?query=" + Uri.EscapeDataString(promql), UriKind.Relative)).ConfigureAwait(false);
        var json = await response.Content.ReadAsStringAsync().ConfigureAwait(false);
        using var document = JsonDocument.Parse(json);
        var root = document.RootElement;
        if (!response.IsSuccessStatusCode || root.GetProperty("status").GetString() != "success")
        {
            throw new InvalidOperationException($"Prometheus rejected {promql}: {json}");
        }

        return root.GetProperty("data").GetProperty("result").Clone();
    }

    /// <summary>GETs an API path (e.g. /api/v1/rules) and returns its JSON.</summary>
    public async Task<JsonElement> GetAsync(string path)
    {
        _server.ThrowIfExited();
        using var document = JsonDocument.Parse(await _server.Api.GetStringAsync(new Uri(path, UriKind.Relative)).ConfigureAwait(false));
        return document.RootElement.Clone();
    }

    /// <summary>Kills Prometheus and deletes its configuration and data.</summary>
    public ValueTask DisposeAsync() => _server.DisposeAsync();
}
