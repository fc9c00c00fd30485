using System.Globalization;
using Xunit.Abstractions;

namespace LogFlushMonitor.Tests.EndToEnd;

/// <summary>
/// SqlServerLogRateAtCap from the simulated server to the alert, in virtual time: the azure-log-cap scenario (an Azure
/// SQL Database, General Purpose, whose loaders want 16 MiB/s from 30 s after start against a live cap of 9.375 MB/s)
/// through the service's aggregation and /metrics, and Prometheus's evaluation of the shipped alerts.yml. Before the load
/// it writes ~43 % of the cap and nothing fires; at the cap the commit budget's largest part is the log-rate governor.
/// </summary>
[Trait("Category", "EndToEnd")]
[Collection("host")]
public class LogRateCapAlertEndToEndTests(ITestOutputHelper output)
{
    // SimulationScenarios, azure-log-cap: the load begins 30 s after start.
    private const int LoadBegins = 30;
    private const int ObservedSeconds = 130;

    // The shipped for: 10m, shortened as the real-time stack shortens it.
    private const double ForSeconds = 600 / AlertingStack.Factor;

    private const string AtCap = "ALERTS{alertname=\"SqlServerLogRateAtCap\"}";

    private const string Share = "sqlserver_log_rate_used_bytes_per_second / on (sqlserver_instance_name, sqlserver_database_name) group_left sqlserver_log_rate_limit_bytes_per_second";

    private const string Largest = "topk(1, sqlserver_database_part:commit_wait_seconds:rate5m)";

    [SkippableFact]
    public async Task An_Azure_database_held_at_its_tiers_cap_fires_the_alert_naming_the_tier_and_the_cap()
    {
        Skip.IfNot(PromtoolRuleEvaluation.IsInstalled, PromtoolRuleEvaluation.NotInstalledReason);
        var scrapes = await VirtualTimeScrapes.RunAsync("azure-log-cap", TimeSpan.FromSeconds(ObservedSeconds), TimeSpan.FromSeconds(1));
        var rules = new PromtoolRuleEvaluation();
        for (var t = 0; t <= ObservedSeconds; t++)
        {
            rules.Probe(AtCap, t);
        }

        rules.ProbeAlerts("SqlServerLogRateAtCap", ObservedSeconds);
        rules.Probe(Share, LoadBegins - 5);
        rules.Probe(Share, ObservedSeconds);
        rules.Probe(Largest, ObservedSeconds);
        await rules.RunAsync(scrapes, AlertingStack.Factor);

        var states = new string?[ObservedSeconds + 1];
        for (var t = 0; t <= ObservedSeconds; t++)
        {
            var series = rules.Results(AtCap, t);
            foreach (var (labels, _) in series)
            {
                Assert.Equal(("azure-gp", "ingest", "GeneralPurpose", "SQLDB_GP_Gen5_2", "warning"),
                    (labels["sqlserver_instance_name"], labels["sqlserver_database_name"], labels["sqlserver_service_tier"], labels["sqlserver_service_objective"], labels["severity"]));
            }

            states[t] = Assert.Single(series.Select(s => s.Labels["alertstate"]).DefaultIfEmpty(null).Distinct());
        }

        var timeline = PromtoolRuleEvaluation.Timeline(states);
        output.WriteLine($"SqlServerLogRateAtCap (virtual seconds since the scenario started): {timeline}");
        var pendingFrom = Array.IndexOf(states, "pending");
        var firingFrom = Array.IndexOf(states, "firing");
        Assert.True(pendingFrom >= 0 && firingFrom >= 0, $"never went pending or never fired: {timeline}");
        Assert.True(pendingFrom > LoadBegins, $"pending at {pendingFrom} s, before the load began: {timeline}");
        Assert.True(firingFrom - pendingFrom >= ForSeconds, $"fired {firingFrom - pendingFrom} s after going pending, under its for: of {ForSeconds} s: {timeline}");
        Assert.All(Enumerable.Range(firingFrom, ObservedSeconds - firingFrom + 1), t => Assert.Equal("firing", states[t]));

        // What it compares: ~43 % of the cap before the load (4 MiB/s of 9.375 MB/s), the cap once the governor holds it.
        Assert.InRange(Value(rules, Share, LoadBegins - 5), 0.35, 0.5);
        Assert.InRange(Value(rules, Share, ObservedSeconds), 0.9, 1.1);
        var largest = Assert.Single(rules.Results(Largest, ObservedSeconds));
        Assert.Equal("log_rate_governor", largest.Labels["part"]);

        var alert = Assert.Single(rules.AlertProbeResults[("SqlServerLogRateAtCap", ObservedSeconds)]);
        output.WriteLine($"annotations: {string.Join("; ", alert.Annotations.Select(a => $"{a.Key}={a.Value}"))}");
        Assert.StartsWith("azure-gp/ingest writes log at ", alert.Annotations["summary"], StringComparison.Ordinal);
        Assert.EndsWith("of its GeneralPurpose SQLDB_GP_Gen5_2 log-rate cap", alert.Annotations["summary"], StringComparison.Ordinal);
        Assert.StartsWith("The cap is 9.38 MB/s", alert.Annotations["description"], StringComparison.Ordinal);
        Assert.EndsWith("docs/alerts.md#sqlserverlograteatcap", alert.Annotations["runbook_url"], StringComparison.Ordinal);
    }

    private static double Value(PromtoolRuleEvaluation rules, string expr, int t)
    {
        var result = Assert.Single(rules.Results(expr, t));
        return double.Parse(result.Value, NumberStyles.Float, CultureInfo.InvariantCulture);
    }
}
