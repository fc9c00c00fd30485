using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Text;
using System.Text.Json;

namespace LogFlushMonitor.Tests.Hosting;

/// <summary>
/// The Grafana dashboard's queries run for real: the host on a simulated workload, a real Prometheus scraping it
/// (with the alert rules loaded), and every panel's PromQL asked through Prometheus's HTTP API.
/// </summary>
[Collection("host")]
public class DashboardTests
{
    private static string RepoFile(params string[] parts)
    {
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            if (File.Exists(Path.Combine(dir.FullName, "LogFlushMonitor.sln")))
            {
                return Path.Combine([dir.FullName, .. parts]);
            }
        }

        throw new InvalidOperationException("LogFlushMonitor.sln not found above " + AppContext.BaseDirectory);
    }

    private static int FreePort()
    {
        using var l = new TcpListener(IPAddress.Loopback, 0);
        l.Start();
        return ((IPEndPoint)l.LocalEndpoint).Port;
    }

    [SkippableFact]
    public async Task Every_dashboard_query_runs_in_a_real_prometheus_and_the_workload_panels_have_data()
    {
        var prometheusPath = Environment.GetEnvironmentVariable("PROMETHEUS") ?? "/usr/bin/prometheus";
        Skip.IfNot(File.Exists(prometheusPath), $"prometheus not found at {prometheusPath} (Debian package prometheus; .ci/run installs it)");
        var dashboard = JsonDocument.Parse(File.ReadAllText(RepoFile("deploy", "grafana", "logflushmonitor.json"))).RootElement;
        var panels = dashboard.GetProperty("panels").EnumerateArray()
            .Select(p => (Title: p.GetProperty("title").GetString()!, Expr: p.GetProperty("targets")[0].GetProperty("expr").GetString()!))
            .ToList();
        Assert.True(panels.Count >= 10);

        await using var host = await RunningHost.StartAsync(new() { ["Sources:Simulate:Scenario"] = "mixed", ["Sources:Simulate:Speed"] = "5" });
        var work = Directory.CreateTempSubdirectory("lfm-dashboard-");
        File.Copy(RepoFile("deploy", "prometheus", "alerts.yml"), Path.Combine(work.FullName, "alerts.yml"));
        var config = Path.Combine(work.FullName, "prometheus.yml");
        await File.WriteAllTextAsync(config, $"""
            global:
              scrape_interval: 1s
              evaluation_interval: 1s
            rule_files:
              - alerts.yml
            scrape_configs:
              - job_name: logflushmonitor
                static_configs:
                  - targets: ['{host.BaseAddress.Authority}']
            """);
        var apiPort = FreePort();
        var stderr = new StringBuilder();
        using var prometheus = new Process
        {
            StartInfo = new ProcessStartInfo(prometheusPath,
                ["--config.file=" + config, "--storage.tsdb.path=" + Path.Combine(work.FullName, "data"), $"--web.listen-address=127.0.0.1:{apiPort}", "--log.level=warn"])
            {
                RedirectStandardError = true,
                RedirectStandardOutput = true,
            },
        };
        prometheus.ErrorDataReceived += (_, e) =>
        {
            lock (stderr)
            {
                stderr.AppendLine(e.Data);
            }
        };
        prometheus.OutputDataReceived += (_, _) => { };
        try
        {
            prometheus.Start();
            prometheus.BeginErrorReadLine();
            prometheus.BeginOutputReadLine();
            using var api = new HttpClient { BaseAddress = new Uri($"http://127.0.0.1:{apiPort}"), Timeout = TimeSpan.FromSeconds(5) };

            // Rates need two scrapes of a counter that moved: wait until the first panel has data.
            var first = Substitute(panels[0].Expr);
            var deadline = DateTime.UtcNow + TimeSpan.FromSeconds(40);
            while (!await HasDataAsync(api, first))
            {
                Assert.False(prometheus.HasExited, "prometheus exited: " + stderr);
                Assert.True(DateTime.UtcNow < deadline, "no data for the first panel: " + stderr);
                await Task.Delay(500);
            }

            await Task.Delay(3000);
            foreach (var (title, expr) in panels)
            {
                var result = await QueryAsync(api, Substitute(expr)); // an invalid query fails here
                if (!expr.Contains("sqlserver_monitor_up", StringComparison.Ordinal))
                {
                    Assert.True(result.GetArrayLength() > 0, $"panel '{title}' has no data: {Substitute(expr)}");
                }
            }

            // Every recording and alerting rule in alerts.yml, over all its groups, is loaded.
            var expectedRules = File.ReadLines(RepoFile("deploy", "prometheus", "alerts.yml"))
                .Count(l => l.TrimStart().StartsWith("- alert:", StringComparison.Ordinal) || l.TrimStart().StartsWith("- record:", StringComparison.Ordinal));
            var rules = JsonDocument.Parse(await api.GetStringAsync("/api/v1/rules")).RootElement;
            Assert.Equal(expectedRules, rules.GetProperty("data").GetProperty("groups").EnumerateArray().Sum(g => g.GetProperty("rules").GetArrayLength()));
        }
        finally
        {
            if (!prometheus.HasExited)
            {
                prometheus.Kill(entireProcessTree: true);
            }

            await prometheus.WaitForExitAsync(new CancellationTokenSource(TimeSpan.FromSeconds(10)).Token);
            work.Delete(recursive: true);
        }
    }

    private static string Substitute(string expr) =>
        expr.Replace("$__rate_interval", "30s", StringComparison.Ordinal)
            .Replace("$instance", ".*", StringComparison.Ordinal)
            .Replace("$database", ".*", StringComparison.Ordinal);

    private static async Task<bool> HasDataAsync(HttpClient api, string query)
    {
        try
        {
            return (await QueryAsync(api, query)).GetArrayLength() > 0;
        }
        catch (HttpRequestException)
        {
            return false; // Prometheus is still starting
        }
    }

    private static async Task<JsonElement> QueryAsync(HttpClient api, string query)
    {
        using var response = await api.GetAsync(new Uri("/api/v1/query?query=" + Uri.EscapeDataString(query), UriKind.Relative));
        var json = await response.Content.ReadAsStringAsync();
        Assert.True(response.IsSuccessStatusCode, $"{query}: {json}");
        var root = JsonDocument.Parse(json).RootElement;
        Assert.Equal("success", root.GetProperty("status").GetString());
        return root.GetProperty("data").GetProperty("result").Clone();
    }
}
