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

    [SkippableFact]
    public async Task Every_dashboard_query_runs_in_a_real_prometheus_and_the_workload_panels_have_data()
    {
        Skip.IfNot(RealPrometheus.IsInstalled, RealPrometheus.NotInstalledReason);
        var dashboard = JsonDocument.Parse(File.ReadAllText(RepoFile("deploy", "grafana", "logflushmonitor.json"))).RootElement;
        var panels = dashboard.GetProperty("panels").EnumerateArray()
            .Select(p => (Title: p.GetProperty("title").GetString()!, Expr: p.GetProperty("targets")[0].GetProperty("expr").GetString()!))
            .ToList();
        Assert.True(panels.Count >= 10);

        await using var host = await RunningHost.StartAsync(new() { ["Sources:Simulate:Scenario"] = "mixed", ["Sources:Simulate:Speed"] = "5" });
        await using var prometheus = await RealPrometheus.StartAsync(host.BaseAddress.Authority, [RepoFile("deploy", "prometheus", "alerts.yml")]);
        await prometheus.WaitForScrapeAsync();

        // Every panel's query is valid PromQL (Prometheus rejects it otherwise), and each workload panel gets data as
        // soon as its rate has two scrapes of a counter that moved: waited for, panel by panel, never for a fixed time.
        foreach (var (title, expr) in panels)
        {
            var query = Substitute(expr);
            if (expr.Contains("sqlserver_monitor_up", StringComparison.Ordinal))
            {
                await prometheus.QueryAsync(query);
                continue;
            }

            await prometheus.WaitForAsync(query, r => r.GetArrayLength() > 0, $"data in panel '{title}'");
        }

        // Every recording and alerting rule in alerts.yml, over all its groups, is loaded.
        var expectedRules = File.ReadLines(RepoFile("deploy", "prometheus", "alerts.yml"))
            .Count(l => l.TrimStart().StartsWith("- alert:", StringComparison.Ordinal) || l.TrimStart().StartsWith("- record:", StringComparison.Ordinal));
        var rules = await prometheus.GetAsync("/api/v1/rules");
        Assert.Equal(expectedRules, rules.GetProperty("data").GetProperty("groups").EnumerateArray().Sum(g => g.GetProperty("rules").GetArrayLength()));
    }

    private static string Substitute(string expr) =>
        expr.Replace("$__rate_interval", "30s", StringComparison.Ordinal)
            .Replace("$instance", ".*", StringComparison.Ordinal)
            .Replace("$database", ".*", StringComparison.Ordinal);
}
