using System.Globalization;
using Xunit.Abstractions;

namespace LogFlushMonitor.Tests.EndToEnd;

/// <summary>
/// SqlServerAsyncReplicaBehind from the simulated server to the alert, in virtual time, as
/// <see cref="SyncReplicaAlertEndToEndTests"/>: the ag-async-lag scenario (the link to the asynchronous secondary sql1-dr
/// carries 200 KiB/s from 30 s after start while the primary writes ~0.9 MB/s, so it falls behind ~0.78 s per second and
/// passes the default 60 s threshold about 103 s after start) through the service's aggregation and /metrics, and
/// Prometheus's evaluation of the shipped alerts.yml. The synchronous secondary stays ~0.5 ms behind (0 in whole milliseconds): its page never fires.
/// </summary>
[Trait("Category", "EndToEnd")]
[Collection("host")]
public class ReplicaBehindAlertEndToEndTests(ITestOutputHelper output)
{
    // SimulationScenarios, ag-async-lag: the link slows 30 s after start.
    private const int LinkSlows = 30;
    private const int ObservedSeconds = 160;

    // The shipped for: 5m, shortened as the real-time stack shortens it.
    private const double ForSeconds = 300 / AlertingStack.Factor;

    private const string Behind = "ALERTS{alertname=\"SqlServerAsyncReplicaBehind\"}";

    private const string DrBehind = "sqlserver_replica_commit_behind_seconds{sqlserver_replica_name=\"sql1-dr\"}";

    private const string SyncBehind = "sqlserver_replica_commit_behind_seconds{sqlserver_replica_name=\"sql1-b\"}";

    private const string DrThreshold = "sqlserver_replica_behind_threshold_seconds{sqlserver_replica_name=\"sql1-dr\"}";

    [SkippableFact]
    public async Task An_asynchronous_replica_over_a_slow_link_fires_its_warning_once_past_its_threshold_and_the_synchronous_one_never_pages()
    {
        Skip.IfNot(PromtoolRuleEvaluation.IsInstalled, PromtoolRuleEvaluation.NotInstalledReason);
        var scrapes = await VirtualTimeScrapes.RunAsync("ag-async-lag", TimeSpan.FromSeconds(ObservedSeconds), TimeSpan.FromSeconds(1));
        var rules = new PromtoolRuleEvaluation();
        for (var t = 0; t <= ObservedSeconds; t++)
        {
            rules.Probe(Behind, t);
            rules.ExpectNone("ALERTS{alertname=\"SqlServerSyncReplicaBehind\"}", t);
        }

        rules.ProbeAlerts("SqlServerAsyncReplicaBehind", ObservedSeconds);
        rules.Probe(DrBehind, LinkSlows - 5);
        rules.Probe(DrBehind, 90);
        rules.Probe(DrBehind, ObservedSeconds);
        rules.Probe(SyncBehind, ObservedSeconds);
        rules.Probe(DrThreshold, ObservedSeconds);
        await rules.RunAsync(scrapes, AlertingStack.Factor);

        var states = new string?[ObservedSeconds + 1];
        for (var t = 0; t <= ObservedSeconds; t++)
        {
            var series = rules.Results(Behind, t);
            foreach (var (labels, _) in series)
            {
                Assert.Equal(("sql1", "orders", "sql1-dr", "ASYNCHRONOUS_COMMIT", "warning"),
                    (labels["sqlserver_instance_name"], labels["sqlserver_database_name"], labels["sqlserver_replica_name"], labels["sqlserver_replica_availability_mode"], labels["severity"]));
            }

            states[t] = Assert.Single(series.Select(s => s.Labels["alertstate"]).DefaultIfEmpty(null).Distinct());
        }

        var timeline = PromtoolRuleEvaluation.Timeline(states);
        output.WriteLine($"SqlServerAsyncReplicaBehind (virtual seconds since the scenario started): {timeline}");
        var pendingFrom = Array.IndexOf(states, "pending");
        var firingFrom = Array.IndexOf(states, "firing");
        Assert.True(pendingFrom >= 0 && firingFrom >= 0, $"never went pending or never fired: {timeline}");
        // Behind 60 s (the default threshold) about 103 s after start: not before it is past it.
        Assert.InRange(pendingFrom, 95, 115);
        Assert.True(firingFrom - pendingFrom >= ForSeconds, $"fired {firingFrom - pendingFrom} s after going pending, under its for: of {ForSeconds} s: {timeline}");
        Assert.All(Enumerable.Range(firingFrom, ObservedSeconds - firingFrom + 1), t => Assert.Equal("firing", states[t]));

        // What the rule compared, from the service's own series: ~3 s behind while the link keeps up, then ~0.78 s more a second.
        Assert.InRange(Value(rules, DrBehind, LinkSlows - 5), 2, 4);
        Assert.InRange(Value(rules, DrBehind, 90), 3 + (0.6 * 60), 3 + (0.9 * 60));
        Assert.InRange(Value(rules, DrBehind, ObservedSeconds), 3 + (0.6 * 130), 3 + (0.9 * 130));
        // ~0.5 ms behind, but last_commit_time is a datetime (ticks of 1/300 s) and the difference whole milliseconds:
        // a copy that close shows 0 or a tick, far under the synchronous threshold.
        Assert.InRange(Value(rules, SyncBehind, ObservedSeconds), 0, 0.004);
        Assert.Equal(60, Value(rules, DrThreshold, ObservedSeconds)); // Replicas:AsynchronousBehind's default

        var alert = Assert.Single(rules.AlertProbeResults[("SqlServerAsyncReplicaBehind", ObservedSeconds)]);
        Assert.StartsWith("Asynchronous replica sql1-dr of sql1/orders is ", alert.Annotations["summary"], StringComparison.Ordinal);
        Assert.StartsWith("Its threshold is 1m 0s", alert.Annotations["description"], StringComparison.Ordinal);
        Assert.Contains("Its send queue drains in ", alert.Annotations["description"], StringComparison.Ordinal);
        Assert.EndsWith("docs/alerts.md#sqlserverasyncreplicabehind", alert.Annotations["runbook_url"], StringComparison.Ordinal);
    }

    private static double Value(PromtoolRuleEvaluation rules, string expr, int t)
    {
        var result = Assert.Single(rules.Results(expr, t));
        return double.Parse(result.Value, NumberStyles.Float, CultureInfo.InvariantCulture);
    }
}
