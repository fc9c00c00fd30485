using Xunit.Abstractions;

namespace LogFlushMonitor.Tests.EndToEnd;

/// <summary>
/// The spike alert from event to page: <c>run --simulate writelog-spike</c>, a real Prometheus with the shipped rules
/// (shortened by <see cref="AlertingStack.Factor"/>), a real Alertmanager with the shipped routing, a webhook receiver.
/// About 80 s: the spike begins 30 s after start, and Alertmanager reports the resolution at its next group interval.
/// </summary>
[Trait("Category", "EndToEnd")]
public class WritelogSpikeAlertEndToEndTests(ITestOutputHelper output)
{
    // The scenario's first spike (SimulationScenarios, writelog-spike): the ramp begins 30 s after start, the 30 ms
    // plateau holds from 33 s to 53 s, the ramp down ends at 56 s.
    private const double RampBegins = 30;
    private const double PlateauEnds = 53;

    [SkippableFact]
    public async Task A_writelog_spike_pages_with_instance_and_database_and_resolves_after_the_spike()
    {
        AlertingStack.SkipUnlessInstalled();
        await using var stack = await AlertingStack.StartAsync("writelog-spike");
        static bool IsSpike(DeliveredAlert a) =>
            a.Label("alertname") == "SqlServerWritelogSpike" && a.Label("sqlserver_instance_name") == "sql1" && a.Label("sqlserver_database_name") == "payments";

        var firing = await stack.WaitForDeliveryAsync(a => IsSpike(a) && a.Status == "firing", "the spike page for sql1/payments", TimeSpan.FromSeconds(150));
        // A fresh deployment: no baseline yet (its offset is 30 m / Factor = 150 s), so the floors decided, as shipped.
        var baseline = await stack.Prometheus.QueryAsync("sqlserver_database:writelog_average_wait_seconds:baseline");
        var firedAt = stack.SecondsSinceMonitorStart(firing.Arrived);
        output.WriteLine($"firing delivered {firedAt:0.0} s after the monitor started (ramp begins at {RampBegins} s); baseline series: {baseline}");
        Assert.Equal(0, baseline.GetArrayLength());

        // Routed by severity to the paging receiver, naming instance and database, linking its runbook section.
        Assert.Equal("page", firing.Receiver);
        Assert.Equal("critical", firing.Label("severity"));
        Assert.Contains("sql1/payments", firing.Annotations["summary"], StringComparison.Ordinal);
        Assert.EndsWith("docs/alerts.md#sqlserverwritelogspike", firing.Annotations["runbook_url"], StringComparison.Ordinal);
        // The scenario's virtual time runs no ahead of the wall clock since the start: a page before the ramp is not this spike.
        Assert.True(firedAt > RampBegins, $"the page came {firedAt:0.0} s after start, before the spike began. {stack.Diagnostics()}");

        var resolved = await stack.WaitForDeliveryAsync(a => IsSpike(a) && a.Status == "resolved", "the spike's resolution for sql1/payments", TimeSpan.FromSeconds(120));
        var resolvedAt = stack.SecondsSinceMonitorStart(resolved.Arrived);
        output.WriteLine($"resolved delivered {resolvedAt:0.0} s after the monitor started (plateau ends at {PlateauEnds} s)");
        Assert.Equal("page", resolved.Receiver);
        Assert.True(resolvedAt > PlateauEnds, $"resolved {resolvedAt:0.0} s after start, while the plateau still held. {stack.Diagnostics()}");

        // One page for one spike: it did not resolve and fire again on the way.
        Assert.Single(stack.Receiver.Alerts, a => IsSpike(a) && a.Status == "firing" && a.Arrived < resolved.Arrived);
        output.WriteLine(await AlertStatesAsync(stack));
    }

    /// <summary>When Prometheus had the spike alert pending and firing (1 s steps), in seconds since the monitor started.</summary>
    private static async Task<string> AlertStatesAsync(AlertingStack stack)
    {
        var end = TimeProvider.System.GetUtcNow();
        var start = stack.MonitorStarted;
        var range = await stack.Prometheus.GetAsync(
            "/api/v1/query_range?query=" + Uri.EscapeDataString("ALERTS{alertname=\"SqlServerWritelogSpike\"}")
            + $"&start={start.ToUnixTimeSeconds()}&end={end.ToUnixTimeSeconds()}&step=1");
        var parts = range.GetProperty("data").GetProperty("result").EnumerateArray().Select(series =>
        {
            var times = series.GetProperty("values").EnumerateArray().Select(v => v[0].GetDouble() - start.ToUnixTimeMilliseconds() / 1000.0).ToList();
            return $"{series.GetProperty("metric").GetProperty("alertstate").GetString()} from {times.Min():0} s to {times.Max():0} s";
        });
        return "Prometheus: SqlServerWritelogSpike " + string.Join(", ", parts) + " after the monitor started";
    }
}
