using System.Text.Json;
using System.Text.RegularExpressions;
using LogFlushMonitor.Tests.Deploy;
using LogFlushMonitor.Tests.EndToEnd;

namespace LogFlushMonitor.Tests.Hosting;

/// <summary>
/// The Grafana dashboard's queries run for real: the host on a simulated workload, a real Prometheus scraping it
/// (with the alert rules loaded), and every panel's PromQL asked through Prometheus's HTTP API; the spike shown by the
/// WRITELOG row and the first row's answers ("is anything wrong now, and where?") in virtual time (the service's scrapes
/// over the scenario, the query evaluated by promtool).
/// </summary>
[Collection("host")]
public partial class DashboardTests
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
        var panels = DashboardFile.Panels(DashboardFile.Root()).Select(p => (Title: DashboardFile.Title(p), Expr: DashboardFile.Expr(p))).ToList();
        Assert.True(panels.Count >= 30);

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
        foreach (var panel in DashboardFile.Panels(DashboardFile.Root()))
        {
            var title = DashboardFile.Title(panel);
            var expr = DashboardFile.Expr(panel);
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
            Implies("top 5 databases", "topk(5,");
            Implies("stalled log", "sqlserver_log_flush_outstanding_age_seconds");
            Implies("alerts", "ALERTS{");
            Implies("Sources down", "sqlserver_monitor_up");

            // A rate is per second, and its unit says so: seconds waited per second are "s/s", never "s" (issue 35 item 7:
            // "Seconds waiting for log writes by application" was in "s").
            if (expr.Contains("rate(sqlserver_database_writelog_application_time_seconds_total", StringComparison.Ordinal)
                || expr.Contains("wait_duration_seconds_sum{", StringComparison.Ordinal) && !expr.Contains(" / ", StringComparison.Ordinal))
            {
                Assert.Equal("suffix: s/s", Unit(panel));
            }
        }
    }

    private static string? Unit(JsonElement panel)
    {
        var defaults = panel.GetProperty("fieldConfig");
        foreach (var o in defaults.GetProperty("overrides").EnumerateArray())
        {
            foreach (var property in o.GetProperty("properties").EnumerateArray())
            {
                if (property.GetProperty("id").GetString() == "unit")
                {
                    return property.GetProperty("value").GetString();
                }
            }
        }

        return defaults.GetProperty("defaults").TryGetProperty("unit", out var unit) ? unit.GetString() : null;
    }

    [Fact]
    public void The_first_row_answers_is_anything_wrong_now_and_where_and_links_to_the_rest()
    {
        // Issue 35 item 5: a flat list of 31 time series; at night a DBA asks "is anything wrong now, and where?".
        var root = DashboardFile.Root();
        var rows = DashboardFile.Rows(root);
        var now = rows[0];
        Assert.False(now.Collapsed);
        Assert.Equal(
            ["Databases with a stalled log now", "Worst WRITELOG wait per commit now (top 5 databases)", "Worst WRITELOG pressure now (top 5 databases, seconds waiting per second)", "Firing LogFlushMonitor alerts", "Sources down or monitors not scraped"],
            now.Panels.Select(DashboardFile.Title));
        // Answers, not histories: stat and table panels of the value now, side by side in one screen's height.
        Assert.All(now.Panels, p => Assert.Contains(p.GetProperty("type").GetString(), (string[])["stat", "table"]));
        Assert.All(now.Panels, p => Assert.True(p.GetProperty("targets")[0].GetProperty("instant").GetBoolean(), DashboardFile.Title(p)));
        Assert.Single(now.Panels.Select(p => p.GetProperty("gridPos").GetProperty("y").GetInt32()).Distinct());
        // Where: each table's rows link to the dashboard filtered on that database; every other answer links to the panel
        // that explains it; every link to a panel names one the dashboard has.
        var ids = DashboardFile.Panels(root).Select(p => p.GetProperty("id").GetInt32()).ToHashSet();
        foreach (var panel in now.Panels)
        {
            var links = panel.GetProperty("links").EnumerateArray().Select(l => l.GetProperty("url").GetString()!).ToList();
            if (panel.GetProperty("type").GetString() == "table")
            {
                var dataLink = Assert.Single(panel.GetProperty("fieldConfig").GetProperty("defaults").GetProperty("links").EnumerateArray()).GetProperty("url").GetString()!;
                Assert.Contains("var-database=${__data.fields.sqlserver_database_name}", dataLink, StringComparison.Ordinal);
                Assert.Contains("var-instance=${__data.fields.sqlserver_instance_name}", dataLink, StringComparison.Ordinal);
            }

            Assert.True(links.Count > 0 || DashboardFile.Title(panel).StartsWith("Firing", StringComparison.Ordinal), $"'{DashboardFile.Title(panel)}' links nowhere");
            foreach (var link in links)
            {
                Assert.Contains(int.Parse(ViewPanelRegex().Match(link).Groups[1].Value, System.Globalization.CultureInfo.InvariantCulture), ids);
            }
        }

        // The rest grouped in rows; the monitor's own health collapsed.
        Assert.Equal(
            ["Now: is anything wrong, and where?", "WRITELOG: how long commits wait for the log", "In flight: a stalled log", "Write sizes and flushes", "Synchronous replicas", "Log space", "Where commit time goes", "Azure: the log-rate cap", "The monitor itself"],
            rows.Select(r => r.Title));
        Assert.Equal([false, false, false, false, false, false, false, false, true], rows.Select(r => r.Collapsed));
        Assert.All(rows.Skip(1), r => Assert.NotEmpty(r.Panels));
    }

    [SkippableFact]
    public async Task The_first_row_counts_a_stalled_log_and_ranks_the_spiking_database_first_from_the_service_s_metrics()
    {
        Skip.IfNot(PromtoolRuleEvaluation.IsInstalled, PromtoolRuleEvaluation.NotInstalledReason);
        var now = DashboardFile.Rows(DashboardFile.Root())[0].Panels;
        var stalled = Substitute(DashboardFile.Expr(now[0]));
        var worstWait = Substitute(DashboardFile.Expr(now[1]), "4s");

        // log-stall: the device completes nothing from 30 s; the stat reads 0 before and 1 once the stall is 15 s old.
        var stall = await VirtualTimeScrapes.RunAsync("log-stall", TimeSpan.FromSeconds(60), TimeSpan.FromSeconds(1));
        var promql = new PromtoolRuleEvaluation();
        promql.Probe(stalled, 25);
        promql.Probe(stalled, 55);
        await promql.RunAsync(stall, 1);
        Assert.Equal(0, PromtoolValue(promql, stalled, 25));
        Assert.Equal(1, PromtoolValue(promql, stalled, 55));

        // writelog-spike: inside the plateau the worst wait per commit is sql1/payments's, over 10 ms (red); before it,
        // the same database is first with well under a millisecond.
        var spike = await VirtualTimeScrapes.RunAsync("writelog-spike", TimeSpan.FromSeconds(DuringSpike), TimeSpan.FromSeconds(1));
        promql = new PromtoolRuleEvaluation();
        promql.Probe(worstWait, BeforeSpike);
        promql.Probe(worstWait, DuringSpike);
        await promql.RunAsync(spike, 1);
        // master, model and msdb are ranked too (their Log Flush Wait Time: the simulator flushes them as a real server does).
        var during = promql.Results(worstWait, DuringSpike).MaxBy(r => double.Parse(r.Value, System.Globalization.CultureInfo.InvariantCulture));
        Assert.Equal(("sql1", "payments"), (during.Labels["sqlserver_instance_name"], during.Labels["sqlserver_database_name"]));
        Assert.True(PromtoolValue(promql, worstWait, DuringSpike, "payments") > 0.010, $"worst wait {PromtoolValue(promql, worstWait, DuringSpike, "payments")} s inside the spike");
        Assert.True(PromtoolValue(promql, worstWait, BeforeSpike, "payments") < 0.001, $"worst wait {PromtoolValue(promql, worstWait, BeforeSpike, "payments")} s before the spike");
    }

    [GeneratedRegex(@"viewPanel=(\d+)")]
    private static partial Regex ViewPanelRegex();

    // Virtual seconds since writelog-spike started: the last second before its ramp, and inside its plateau.
    private const int BeforeSpike = 29;
    private const int DuringSpike = 45;

    [SkippableFact]
    public async Task The_writelog_row_leads_with_pressure_per_database_and_it_shows_the_writelog_spike()
    {
        var row = DashboardFile.Rows(DashboardFile.Root()).Single(r => r.Title.StartsWith("WRITELOG", StringComparison.Ordinal));
        var first = row.Panels
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
        var query = Substitute(expr, "4s"); // sql1/payments waits; master, model and msdb flush too (counters) and read 0
        var promql = new PromtoolRuleEvaluation();
        promql.Probe(query, BeforeSpike);
        promql.Probe(query, DuringSpike);
        await promql.RunAsync(scrapes, 1);
        var before = PromtoolValue(promql, query, BeforeSpike, "payments");
        var during = PromtoolValue(promql, query, DuringSpike, "payments");
        // 50 sessions with think time: ~1.6 s of waiting per second on a fast log, ~40 during the plateau: over ten
        // sessions stuck on the log on average.
        Assert.True(before < 3, $"pressure {before} s/s before the spike");
        Assert.True(during > 10, $"pressure {during} s/s during the spike");
        Assert.True(during > 10 * before, $"pressure {during} s/s during the spike vs {before} s/s before");
    }

    private static double PromtoolValue(PromtoolRuleEvaluation promql, string query, int seconds, string? database = null) =>
        double.Parse(Assert.Single(promql.Results(query, seconds), r => database is null || r.Labels.GetValueOrDefault("sqlserver_database_name") == database).Value,
            System.Globalization.NumberStyles.Float, System.Globalization.CultureInfo.InvariantCulture);

    private static double Value(JsonElement result) =>
        double.Parse(result[0].GetProperty("value")[1].GetString()!, System.Globalization.CultureInfo.InvariantCulture);

    private static string Substitute(string expr, string rateInterval = "30s") =>
        expr.Replace("$__rate_interval", rateInterval, StringComparison.Ordinal)
            .Replace("$instance", ".*", StringComparison.Ordinal)
            .Replace("$database", ".*", StringComparison.Ordinal);
}
