using System.Globalization;
using Xunit.Abstractions;

namespace LogFlushMonitor.Tests.EndToEnd;

/// <summary>
/// SqlServerSyncReplicaBehind (a page) from the simulated server to the alert, in virtual time, as
/// <see cref="ReplicaBehindAlertEndToEndTests"/>: the ag-sync-lost scenario (the synchronous secondary sql1-b loses its
/// connection 30 s after start, so its time behind grows a second every second and passes the 10 s default threshold at
/// 40 s) through the service's aggregation and /metrics, and Prometheus's evaluation of the shipped alerts.yml; and the
/// same run with a threshold of its own for sql1-b (Replicas:Behind), which the page follows. Commits stop waiting for
/// the lost secondary, so the slow-replica warning stays silent, and the asynchronous secondary never warns.
/// </summary>
[Trait("Category", "EndToEnd")]
[Collection("host")]
public class SyncReplicaBehindAlertEndToEndTests(ITestOutputHelper output)
{
    // SimulationScenarios, ag-sync-lost: the connection is lost 30 s after start.
    private const int LinkLost = 30;
    private const int ObservedSeconds = 100;

    // The shipped for: 2m, shortened as the real-time stack shortens it.
    private const double ForSeconds = 120 / AlertingStack.Factor;

    private const string Behind = "ALERTS{alertname=\"SqlServerSyncReplicaBehind\"}";

    private const string SyncBehind = "sqlserver_replica_commit_behind_seconds{sqlserver_replica_name=\"sql1-b\"}";

    private const string SyncThreshold = "sqlserver_replica_behind_threshold_seconds{sqlserver_replica_name=\"sql1-b\"}";

    [SkippableTheory]
    [InlineData(null, 10)]
    [InlineData("00:00:30", 30)]
    public async Task A_lost_synchronous_replica_pages_once_past_its_threshold_and_nothing_else_fires(string? ownThreshold, int thresholdSeconds)
    {
        Skip.IfNot(PromtoolRuleEvaluation.IsInstalled, PromtoolRuleEvaluation.NotInstalledReason);
        var settings = ownThreshold is null ? null : new Dictionary<string, string?> { ["Replicas:Behind:0:Replica"] = "SQL1-B", ["Replicas:Behind:0:Threshold"] = ownThreshold };
        var scrapes = await VirtualTimeScrapes.RunAsync("ag-sync-lost", TimeSpan.FromSeconds(ObservedSeconds), TimeSpan.FromSeconds(1), settings: settings);
        var rules = new PromtoolRuleEvaluation();
        for (var t = 0; t <= ObservedSeconds; t++)
        {
            rules.Probe(Behind, t);
            rules.ExpectNone("ALERTS{alertname=\"SqlServerAsyncReplicaBehind\"}", t);
            rules.ExpectNone("ALERTS{alertname=\"SqlServerSyncReplicaSlow\"}", t);
        }

        rules.ProbeAlerts("SqlServerSyncReplicaBehind", ObservedSeconds);
        rules.Probe(SyncBehind, LinkLost - 5);
        rules.Probe(SyncBehind, ObservedSeconds);
        rules.Probe(SyncThreshold, ObservedSeconds);
        await rules.RunAsync(scrapes, AlertingStack.Factor);

        var states = new string?[ObservedSeconds + 1];
        for (var t = 0; t <= ObservedSeconds; t++)
        {
            var series = rules.Results(Behind, t);
            foreach (var (labels, _) in series)
            {
                Assert.Equal(("sql1", "orders", "sql1-b", "SYNCHRONOUS_COMMIT", "critical"),
                    (labels["sqlserver_instance_name"], labels["sqlserver_database_name"], labels["sqlserver_replica_name"], labels["sqlserver_replica_availability_mode"], labels["severity"]));
            }

            states[t] = Assert.Single(series.Select(s => s.Labels["alertstate"]).DefaultIfEmpty(null).Distinct());
        }

        var timeline = PromtoolRuleEvaluation.Timeline(states);
        output.WriteLine($"SqlServerSyncReplicaBehind, threshold {thresholdSeconds} s (virtual seconds since the scenario started): {timeline}");
        var pendingFrom = Array.IndexOf(states, "pending");
        var firingFrom = Array.IndexOf(states, "firing");
        Assert.True(pendingFrom >= 0 && firingFrom >= 0, $"never went pending or never fired: {timeline}");
        // Behind the threshold from LinkLost + threshold on; the replica poll's interval (5 s) and the scrape add a few seconds.
        Assert.InRange(pendingFrom, LinkLost + thresholdSeconds, LinkLost + thresholdSeconds + 8);
        Assert.True(firingFrom - pendingFrom >= ForSeconds, $"fired {firingFrom - pendingFrom} s after going pending, under its for: of {ForSeconds} s: {timeline}");
        Assert.All(Enumerable.Range(firingFrom, ObservedSeconds - firingFrom + 1), t => Assert.Equal("firing", states[t]));

        // What the rule compared, from the service's own series: ~0 while connected (whole milliseconds of a 0.5 ms round
        // trip), then the time since the connection was lost.
        Assert.InRange(Value(rules, SyncBehind, LinkLost - 5), 0, 0.004);
        Assert.InRange(Value(rules, SyncBehind, ObservedSeconds), ObservedSeconds - LinkLost - 6, ObservedSeconds - LinkLost);
        Assert.Equal(thresholdSeconds, Value(rules, SyncThreshold, ObservedSeconds));

        var alert = Assert.Single(rules.AlertProbeResults[("SqlServerSyncReplicaBehind", ObservedSeconds)]);
        output.WriteLine($"annotations: {string.Join("; ", alert.Annotations.Select(a => $"{a.Key}={a.Value}"))}");
        Assert.StartsWith("Synchronous replica sql1-b of sql1/orders is ", alert.Annotations["summary"], StringComparison.Ordinal);
        Assert.StartsWith($"Its threshold is {thresholdSeconds}s", alert.Annotations["description"], StringComparison.Ordinal);
        Assert.EndsWith("docs/alerts.md#sqlserversyncreplicabehind", alert.Annotations["runbook_url"], StringComparison.Ordinal);
    }

    private static double Value(PromtoolRuleEvaluation rules, string expr, int t)
    {
        var result = Assert.Single(rules.Results(expr, t));
        return double.Parse(result.Value, NumberStyles.Float, CultureInfo.InvariantCulture);
    }
}
