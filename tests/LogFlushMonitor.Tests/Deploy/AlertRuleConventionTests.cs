using System.Text.RegularExpressions;

namespace LogFlushMonitor.Tests.Deploy;

/// <summary>
/// deploy/prometheus/alerts.yml keeps its promises to the operator: every alert has a severity that routes, a
/// summary naming instance (and database), a runbook section in docs/alerts.md, metrics that exist in
/// docs/metrics.md; prometheus.yml sends alerts to Alertmanager; the rules can be shortened mechanically for tests.
/// (promtool check/test rules: Hosting/AlertRuleTests.)
/// </summary>
public partial class AlertRuleConventionTests
{
    private static readonly string RulesFile = DeployFiles.Path("deploy", "prometheus", "alerts.yml");

    internal static List<Dictionary<string, object?>> Rules(string? text = null) =>
    [
        .. DeployFiles.List(DeployFiles.ReadYaml(text ?? File.ReadAllText(RulesFile))["groups"], "groups")
            .SelectMany(g => DeployFiles.List(DeployFiles.At(g, "rules"), "rules"))
            .Select(r => DeployFiles.Map(r, "rule")),
    ];

    private static IEnumerable<Dictionary<string, object?>> Alerts() => Rules().Where(r => r.ContainsKey("alert"));

    [Fact]
    public void Every_alert_has_a_severity_a_summary_naming_instance_and_database_and_a_runbook_link()
    {
        var alerts = Alerts().ToList();
        Assert.Contains(alerts, a => (string?)a["alert"] == "SqlServerWritelogSpike");
        foreach (var alert in alerts)
        {
            var name = (string)alert["alert"]!;
            Assert.Contains(DeployFiles.Text(alert, "labels", "severity"), new[] { "critical", "warning", "info" });
            var summary = DeployFiles.Text(alert, "annotations", "summary") ?? "";
            Assert.True(summary.Contains("$labels.sqlserver_instance_name", StringComparison.Ordinal) || summary.Contains("$labels.instance", StringComparison.Ordinal), $"{name}: the summary does not name the instance: {summary}");
            if (name.StartsWith("SqlServer", StringComparison.Ordinal))
            {
                Assert.True(summary.Contains("$labels.sqlserver_database_name", StringComparison.Ordinal), $"{name}: the summary does not name the database: {summary}");
            }

            var runbook = DeployFiles.Text(alert, "annotations", "runbook_url") ?? "";
            Assert.EndsWith("#" + name.ToLowerInvariant(), runbook, StringComparison.Ordinal);
            Assert.Contains("docs/alerts.md", runbook, StringComparison.Ordinal);
        }
    }

    [Fact]
    public void Every_alert_has_its_section_in_docs_alerts_md()
    {
        var headings = File.ReadLines(DeployFiles.Path("docs", "alerts.md"))
            .Where(l => l.StartsWith("### ", StringComparison.Ordinal))
            .Select(l => l[4..].Trim())
            .ToHashSet(StringComparer.Ordinal);
        foreach (var alert in Alerts())
        {
            Assert.Contains((string)alert["alert"]!, headings);
        }
    }

    [Fact]
    public void Every_metric_the_rules_read_is_documented_in_docs_metrics_md()
    {
        var documented = File.ReadAllText(DeployFiles.Path("docs", "metrics.md"));
        var used = Rules()
            .SelectMany(r => MetricRegex().Matches((string)r["expr"]!).Select(m => m.Value))
            .Select(m => HistogramSuffixRegex().Replace(m, ""))
            .Distinct()
            .ToList();
        Assert.Contains("sqlserver_database_wait_duration_seconds", used);
        foreach (var metric in used)
        {
            Assert.True(documented.Contains(metric, StringComparison.Ordinal), $"{metric} is used by alerts.yml but not in docs/metrics.md");
        }

        // Recording rules are documented too (the dashboard and docs/alerts.md name them).
        foreach (var record in Rules().Where(r => r.ContainsKey("record")).Select(r => (string)r["record"]!))
        {
            Assert.True(documented.Contains(record, StringComparison.Ordinal), $"recording rule {record} is not in docs/metrics.md");
        }
    }

    [SkippableFact]
    public async Task Prometheus_configuration_is_valid_loads_the_rules_and_sends_alerts_to_alertmanager()
    {
        var promtool = Tool.Require("promtool", "prometheus");
        var (code, stdout, stderr) = await Tool.RunAsync(promtool, ["check", "config", "prometheus.yml"], DeployFiles.Path("deploy", "prometheus"));
        Assert.True(code == 0, stdout + stderr);

        var config = DeployFiles.ReadYaml(File.ReadAllText(DeployFiles.Path("deploy", "prometheus", "prometheus.yml")));
        Assert.Contains("alerts.yml", DeployFiles.List(config["rule_files"], "rule_files"));
        var alertmanagers = DeployFiles.List(DeployFiles.At(config, "alerting", "alertmanagers"), "alertmanagers");
        var targets = alertmanagers.SelectMany(a => DeployFiles.List(DeployFiles.At(a, "static_configs"), "static_configs"))
            .SelectMany(s => DeployFiles.List(DeployFiles.At(s, "targets"), "targets"));
        Assert.Contains("alertmanager:9093", targets);

        // LogFlushMonitorDown watches up{job="logflushmonitor"}: the scrape job must carry that name.
        var jobs = DeployFiles.List(config["scrape_configs"], "scrape_configs").Select(s => DeployFiles.Text(s, "job_name"));
        Assert.Contains("logflushmonitor", jobs);
        Assert.Contains(Alerts(), a => ((string)a["expr"]!).Contains("up{job=\"logflushmonitor\"}", StringComparison.Ordinal));
    }

    [SkippableFact]
    public async Task Rules_shortened_by_one_factor_stay_valid_with_every_duration_divided()
    {
        var promtool = Tool.Require("promtool", "prometheus");
        var shipped = File.ReadAllText(RulesFile);
        var shortened = RuleScaling.Shorten(shipped, 12);

        var before = RuleScaling.Durations(shipped);
        var after = RuleScaling.Durations(shortened);
        Assert.True(before.Count >= 15, $"only {before.Count} durations found");
        Assert.Equal(before.Count, after.Count);
        Assert.All(before.Zip(after), p => Assert.Equal(Math.Round(p.First / 12.0), p.Second));
        Assert.Contains("[5s]", shortened, StringComparison.Ordinal);
        Assert.Contains("offset 150s", shortened, StringComparison.Ordinal);
        Assert.Contains("for: 10s", shortened, StringComparison.Ordinal);

        // The logic stays the shipped one: the same rules, names, labels and thresholds.
        Assert.Equal(
            Rules().Select(r => (r.GetValueOrDefault("alert") ?? r["record"], DeployFiles.Text(r, "labels", "severity"))),
            Rules(shortened).Select(r => (r.GetValueOrDefault("alert") ?? r["record"], DeployFiles.Text(r, "labels", "severity"))));

        var work = Directory.CreateTempSubdirectory("lfm-rules-");
        try
        {
            await File.WriteAllTextAsync(Path.Combine(work.FullName, "alerts.yml"), shortened);
            var (code, stdout, stderr) = await Tool.RunAsync(promtool, ["check", "rules", "alerts.yml"], work.FullName);
            Assert.True(code == 0, stdout + stderr);
            Assert.Contains($"SUCCESS: {Rules().Count} rules found", stdout, StringComparison.Ordinal);
        }
        finally
        {
            work.Delete(recursive: true);
        }
    }

    // Metric (and label) names; recording rule names (with colons) are checked separately.
    [GeneratedRegex(@"\bsqlserver_[a-z_]+\b(?!:)")]
    private static partial Regex MetricRegex();

    [GeneratedRegex(@"_(bucket|sum|count)$")]
    private static partial Regex HistogramSuffixRegex();
}
