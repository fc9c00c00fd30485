using System.Globalization;
using Xunit.Abstractions;

namespace LogFlushMonitor.Tests.EndToEnd;

/// <summary>
/// SqlServerSyncReplicaSlow from event to alert, in virtual time, as <see cref="WritelogSpikeAlertEndToEndTests"/>: the
/// ag-sync scenario (a synchronous secondary that slows from ~0.5 ms to ~25 ms per commit 30 s after start, while the
/// local log stays at ~0.15 ms) through the service's aggregation and /metrics, and Prometheus's rule evaluation of the
/// shipped alerts.yml over those scrapes. Before, the alert was tested only on series written by hand (promtool cases):
/// nothing showed that the service's own series, named and labelled as it exports them, make it fire.
/// </summary>
[Trait("Category", "EndToEnd")]
[Collection("host")]
public class SyncReplicaAlertEndToEndTests(ITestOutputHelper output)
{
    // SimulationScenarios, ag-sync: the secondary begins to slow 30 s after start (10 s ramp, then a 6-minute plateau).
    private const int SlowdownBegins = 30;
    private const int ObservedSeconds = 110;

    // The shipped for: 5m, shortened as the real-time stack shortens it.
    private const double ForSeconds = 300 / AlertingStack.Factor;

    private const string Slow = "ALERTS{alertname=\"SqlServerSyncReplicaSlow\"}";

    private const string LocalFlush =
        "sum(rate(sqlserver_log_flush_duration_seconds_sum{sqlserver_database_name=\"orders\"}[25s])) / sum(rate(sqlserver_log_flush_duration_seconds_count{sqlserver_database_name=\"orders\"}[25s]))";

    private const string SyncCommit =
        "sum(rate(sqlserver_database_wait_duration_seconds_sum{wait_type=\"HADR_SYNC_COMMIT\",sqlserver_database_name=\"orders\"}[25s])) / sum(rate(sqlserver_database_wait_duration_seconds_count{wait_type=\"HADR_SYNC_COMMIT\",sqlserver_database_name=\"orders\"}[25s]))";

    [SkippableFact]
    public async Task A_slow_synchronous_secondary_fires_the_alert_for_its_database_while_no_writelog_alert_does()
    {
        Skip.IfNot(PromtoolRuleEvaluation.IsInstalled, PromtoolRuleEvaluation.NotInstalledReason);
        var scrapes = await VirtualTimeScrapes.RunAsync("ag-sync", TimeSpan.FromSeconds(ObservedSeconds), TimeSpan.FromSeconds(1));
        var rules = new PromtoolRuleEvaluation();
        for (var t = 0; t <= ObservedSeconds; t++)
        {
            rules.Probe(Slow, t);
            // The local log is fast throughout: the alerts about it stay silent (the page is about the replica).
            rules.ExpectNone("ALERTS{alertname=~\"SqlServerWritelog.*\"}", t);
        }

        rules.ProbeAlerts("SqlServerSyncReplicaSlow", ObservedSeconds);
        rules.Probe(LocalFlush, ObservedSeconds);
        rules.Probe(SyncCommit, ObservedSeconds);
        rules.Probe(SyncCommit, SlowdownBegins);
        await rules.RunAsync(scrapes, AlertingStack.Factor);

        var states = new string?[ObservedSeconds + 1];
        for (var t = 0; t <= ObservedSeconds; t++)
        {
            var series = rules.Results(Slow, t);
            foreach (var (labels, _) in series)
            {
                Assert.Equal("sql1", labels["sqlserver_instance_name"]);
                Assert.Equal("orders", labels["sqlserver_database_name"]);
                Assert.Equal("warning", labels["severity"]);
            }

            states[t] = Assert.Single(series.Select(s => s.Labels["alertstate"]).DefaultIfEmpty(null).Distinct());
        }

        var timeline = PromtoolRuleEvaluation.Timeline(states);
        output.WriteLine($"SqlServerSyncReplicaSlow (virtual seconds since the scenario started): {timeline}");
        var pendingFrom = Array.IndexOf(states, "pending");
        var firingFrom = Array.IndexOf(states, "firing");
        Assert.True(pendingFrom >= 0 && firingFrom >= 0, $"never went pending or never fired: {timeline}");
        // Silent while the secondary is fast (sync commits of ~0.5 ms), pending only once it has slowed.
        Assert.True(pendingFrom > SlowdownBegins, $"pending at {pendingFrom} s, before the secondary slowed: {timeline}");
        Assert.True(firingFrom - pendingFrom >= ForSeconds, $"fired {firingFrom - pendingFrom} s after going pending, under its for: of {ForSeconds} s: {timeline}");
        Assert.All(Enumerable.Range(pendingFrom, firingFrom - pendingFrom), t => Assert.Equal("pending", states[t]));
        Assert.All(Enumerable.Range(firingFrom, ObservedSeconds - firingFrom + 1), t => Assert.Equal("firing", states[t]));

        // Not a coincidence of the rule: what it compares, from the service's own series.
        Assert.InRange(Value(rules, SyncCommit, SlowdownBegins), 0.0002, 0.002); // ~0.5 ms before the slowdown
        Assert.InRange(Value(rules, SyncCommit, ObservedSeconds), 0.015, 0.040); // ~25 ms on the plateau
        Assert.InRange(Value(rules, LocalFlush, ObservedSeconds), 0.00005, 0.001); // ~0.15 ms throughout

        var alert = Assert.Single(rules.AlertProbeResults[("SqlServerSyncReplicaSlow", ObservedSeconds)]);
        Assert.Contains("Commits on sql1/orders wait", alert.Annotations["summary"], StringComparison.Ordinal);
        Assert.EndsWith("docs/alerts.md#sqlserversyncreplicaslow", alert.Annotations["runbook_url"], StringComparison.Ordinal);
    }

    private static double Value(PromtoolRuleEvaluation rules, string expr, int t)
    {
        var result = Assert.Single(rules.Results(expr, t));
        return double.Parse(result.Value, NumberStyles.Float, CultureInfo.InvariantCulture);
    }
}
