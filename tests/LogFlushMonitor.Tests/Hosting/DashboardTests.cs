using System.Text.Json;
using LogFlushMonitor.Tests.EndToEnd;

namespace LogFlushMonitor.Tests.Hosting;

/// <summary>
/// The Grafana dashboard's queries run for real: the host on a simulated workload, a real Prometheus scraping it
/// (with the alert rules loaded), and every panel's PromQL asked through Prometheus's HTTP API; the spike shown by the
/// first panel in virtual time (the service's scrapes over the scenario, the query evaluated by promtool).
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
    public async Task Every_dashboard_query_runs_in_a_real_prometheus_and_every_panel_has_data()
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

        // Every panel's query is valid PromQL (Prometheus rejects it otherwise), and every panel gets data as soon as its
        // rate has two scrapes of a counter that moved: waited for, panel by panel, never for a fixed time.
        foreach (var (title, expr) in panels)
        {
            var query = Substitute(expr);
            await prometheus.WaitForAsync(query, r => r.GetArrayLength() > 0, $"data in panel '{title}'");
        }

        // Every recording and alerting rule in alerts.yml, over all its groups, is loaded.
        var expectedRules = File.ReadLines(RepoFile("deploy", "prometheus", "alerts.yml"))
            .Count(l => l.TrimStart().StartsWith("- alert:", StringComparison.Ordinal) || l.TrimStart().StartsWith("- record:", StringComparison.Ordinal));
        var rules = await prometheus.GetAsync("/api/v1/rules");
        Assert.Equal(expectedRules, rules.GetProperty("data").GetProperty("groups").EnumerateArray().Sum(g => g.GetProperty("rules").GetArrayLength()));
    }

    [Fact]
    public void Every_panel_title_promises_what_its_query_computes()
    {
        var dashboard = JsonDocument.Parse(File.ReadAllText(RepoFile("deploy", "grafana", "logflushmonitor.json"))).RootElement;
        foreach (var panel in dashboard.GetProperty("panels").EnumerateArray())
        {
            var title = panel.GetProperty("title").GetString()!;
            var expr = panel.GetProperty("targets")[0].GetProperty("expr").GetString()!;
            void Implies(string inTitle, string inQuery) =>
                Assert.True(!title.Contains(inTitle, StringComparison.Ordinal) || expr.Contains(inQuery, StringComparison.Ordinal), $"'{title}' promises {inTitle}, its query has no {inQuery}: {expr}");

            // A percentile in the title is the one computed, and a computed percentile is named in the title.
            Assert.Equal(title.Contains("p95", StringComparison.Ordinal), expr.Contains("histogram_quantile(0.95,", StringComparison.Ordinal));
            Assert.Equal(title.Contains("Median", StringComparison.Ordinal), expr.Contains("histogram_quantile(0.5,", StringComparison.Ordinal));
            Implies("per second", "rate(");
            Implies("per database", "sqlserver_database_name)");
            Implies("WRITELOG", "WRITELOG");
            Implies("(file stats)", "sqlserver_log_file_");
            Implies("(wait stats", "sqlserver_wait_");
            Implies("512 B", "le=\"512\"");
            Implies("Average", "/");
            Implies("over 10 ms", "le=\"0.01\"");
        }
    }

    // Virtual seconds since writelog-spike started: the last second before its ramp, and inside its plateau.
    private const int BeforeSpike = 29;
    private const int DuringSpike = 45;

    [SkippableFact]
    public async Task The_writelog_row_leads_with_pressure_per_database_and_it_shows_the_writelog_spike()
    {
        var dashboard = JsonDocument.Parse(File.ReadAllText(RepoFile("deploy", "grafana", "logflushmonitor.json"))).RootElement;
        var first = dashboard.GetProperty("panels").EnumerateArray()
            .OrderBy(p => p.GetProperty("gridPos").GetProperty("y").GetInt32()).ThenBy(p => p.GetProperty("gridPos").GetProperty("x").GetInt32())
            .First();
        Assert.StartsWith("WRITELOG pressure per database", first.GetProperty("title").GetString(), StringComparison.Ordinal);
        var expr = first.GetProperty("targets")[0].GetProperty("expr").GetString()!;
        Assert.Contains("rate(sqlserver_database_wait_duration_seconds_sum{", expr, StringComparison.Ordinal);
        Assert.Contains("sum by (sqlserver_instance_name, sqlserver_database_name)", expr, StringComparison.Ordinal);

        // writelog-spike in virtual time, scraped every virtual second (VirtualTimeScrapes: the service's own /metrics), the
        // panel's query evaluated by Prometheus's engine in promtool at past times: $__rate_interval is then 4 s in
        // Grafana (four scrapes). The first spike ramps up 30 s after start and holds ~30 ms from 33 s to 53 s.
        Skip.IfNot(PromtoolRuleEvaluation.IsInstalled, PromtoolRuleEvaluation.NotInstalledReason);
        var scrapes = await VirtualTimeScrapes.RunAsync("writelog-spike", TimeSpan.FromSeconds(BeforeSpike + 25), TimeSpan.FromSeconds(1));
        var query = Substitute(expr, "4s"); // one database: sql1/payments
        var promql = new PromtoolRuleEvaluation();
        promql.Probe(query, BeforeSpike);
        promql.Probe(query, DuringSpike);
        await promql.RunAsync(scrapes, 1);
        var before = PromtoolValue(promql, query, BeforeSpike);
        var during = PromtoolValue(promql, query, DuringSpike);
        // 50 sessions with think time: ~1.6 s of waiting per second on a fast log, ~40 during the plateau: over ten
        // sessions stuck on the log on average.
        Assert.True(before < 3, $"pressure {before} s/s before the spike");
        Assert.True(during > 10, $"pressure {during} s/s during the spike");
        Assert.True(during > 10 * before, $"pressure {during} s/s during the spike vs {before} s/s before");
    }

    private static double PromtoolValue(PromtoolRuleEvaluation promql, string query, int seconds) =>
        double.Parse(Assert.Single(promql.Results(query, seconds)).Value, System.Globalization.NumberStyles.Float, System.Globalization.CultureInfo.InvariantCulture);

    private static double Value(JsonElement result) =>
        double.Parse(result[0].GetProperty("value")[1].GetString()!, System.Globalization.CultureInfo.InvariantCulture);

    private static string Substitute(string expr, string rateInterval = "30s") =>
        expr.Replace("$__rate_interval", rateInterval, StringComparison.Ordinal)
            .Replace("$instance", ".*", StringComparison.Ordinal)
            .Replace("$database", ".*", StringComparison.Ordinal);
}
