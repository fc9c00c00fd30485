using Xunit.Abstractions;

namespace LogFlushMonitor.Tests.EndToEnd;

/// <summary>
/// The spike alert from event to alert, in virtual time: the writelog-spike scenario through the service's real
/// aggregation and /metrics (<see cref="VirtualTimeScrapes"/>, a scrape every virtual second), Prometheus's own rule
/// evaluation over those scrapes (<see cref="PromtoolRuleEvaluation"/>) with the shipped rules shortened by
/// <see cref="AlertingStack.Factor"/>, as the real-time stack shortens them. A few seconds instead of the 80 s the
/// real-time version waited; routing through a real Alertmanager stays covered by <see cref="LogStallAlertEndToEndTests"/>.
/// </summary>
[Trait("Category", "EndToEnd")]
[Collection("host")]
public class WritelogSpikeAlertEndToEndTests(ITestOutputHelper output)
{
    // The scenario's first spike (SimulationScenarios, writelog-spike): the ramp begins 30 s after start, the 30 ms
    // plateau holds from 33 s to 53 s, the ramp down ends at 56 s; the next spike begins at 150 s.
    private const int RampBegins = 30;
    private const int PlateauBegins = 33;
    private const int PlateauEnds = 53;
    private const int ObservedSeconds = 90;

    // The shipped for: 2m, shortened.
    private const double ForSeconds = 120 / AlertingStack.Factor;

    private const string Spike = "ALERTS{alertname=\"SqlServerWritelogSpike\"}";

    [SkippableFact]
    public async Task A_writelog_spike_fires_with_instance_and_database_and_resolves_after_the_spike()
    {
        Skip.IfNot(PromtoolRuleEvaluation.IsInstalled, PromtoolRuleEvaluation.NotInstalledReason);
        var scrapes = await VirtualTimeScrapes.RunAsync("writelog-spike", TimeSpan.FromSeconds(ObservedSeconds), TimeSpan.FromSeconds(1));
        var rules = new PromtoolRuleEvaluation();
        for (var t = 0; t <= ObservedSeconds; t++)
        {
            rules.Probe(Spike, t);
            rules.ProbeAlerts("SqlServerWritelogSpike", t);
            // A fresh deployment: no baseline yet (its offset is 30 m / Factor = 150 s), so the floors decide, as shipped.
            rules.ExpectNone("sqlserver_database:writelog_average_wait_seconds:baseline", t);
        }

        await rules.RunAsync(scrapes, AlertingStack.Factor);

        // The alert's state each second: every series is sql1/payments and critical; one state at a time.
        var states = new string?[ObservedSeconds + 1];
        for (var t = 0; t <= ObservedSeconds; t++)
        {
            var series = rules.Results(Spike, t);
            foreach (var (labels, _) in series)
            {
                Assert.Equal("sql1", labels["sqlserver_instance_name"]);
                Assert.Equal("payments", labels["sqlserver_database_name"]);
                Assert.Equal("critical", labels["severity"]);
            }

            states[t] = Assert.Single(series.Select(s => s.Labels["alertstate"]).DefaultIfEmpty(null).Distinct());
        }

        var timeline = PromtoolRuleEvaluation.Timeline(states);
        output.WriteLine($"SqlServerWritelogSpike (virtual seconds since the scenario started): {timeline}");
        var pendingFrom = Array.IndexOf(states, "pending");
        var firingFrom = Array.IndexOf(states, "firing");
        var firingTo = Array.LastIndexOf(states, "firing");
        Assert.True(pendingFrom >= 0 && firingFrom >= 0, $"never went pending or never fired: {timeline}");
        Assert.True(pendingFrom > RampBegins, $"pending at {pendingFrom} s, before the spike began: {timeline}");
        // It waits out its for: before firing, and fires while the plateau holds (the page is about this spike).
        Assert.True(firingFrom - pendingFrom >= ForSeconds, $"fired {firingFrom - pendingFrom} s after going pending, under its for: of {ForSeconds} s: {timeline}");
        Assert.InRange(firingFrom, PlateauBegins, PlateauEnds);
        // One alert for one spike: pending, then firing without a gap, then nothing once the plateau has ended.
        Assert.All(Enumerable.Range(pendingFrom, firingFrom - pendingFrom), t => Assert.Equal("pending", states[t]));
        Assert.All(Enumerable.Range(firingFrom, firingTo - firingFrom + 1), t => Assert.Equal("firing", states[t]));
        Assert.True(firingTo >= PlateauEnds, $"resolved at {firingTo + 1} s, while the plateau still held: {timeline}");
        Assert.All(Enumerable.Range(firingTo + 1, ObservedSeconds - firingTo), t => Assert.Null(states[t]));
        Assert.True(firingTo < ObservedSeconds - 10, $"still firing {ObservedSeconds - PlateauEnds} s after the plateau: {timeline}");

        // What the page says while it fires: instance and database, no baseline yet, its runbook section.
        var alert = Assert.Single(rules.AlertProbeResults[("SqlServerWritelogSpike", firingFrom)]);
        output.WriteLine($"annotations when it fired: {string.Join("; ", alert.Annotations.Select(a => $"{a.Key}={a.Value}"))}");
        Assert.Contains("WRITELOG spike on sql1/payments", alert.Annotations["summary"], StringComparison.Ordinal);
        Assert.StartsWith("There is no baseline yet", alert.Annotations["description"], StringComparison.Ordinal);
        // The commit budget's largest part, from the service's own series: a WRITELOG spike on a log device is the local flush.
        Assert.Contains("Largest part of commit time: local_flush (", alert.Annotations["description"], StringComparison.Ordinal);
        Assert.EndsWith("docs/alerts.md#sqlserverwritelogspike", alert.Annotations["runbook_url"], StringComparison.Ordinal);
    }
}
