using System.Text.Json;
using Xunit.Abstractions;

namespace LogFlushMonitor.Tests.EndToEnd;

/// <summary>
/// The same stack as <see cref="WritelogSpikeAlertEndToEndTests"/> on <c>run --simulate autocommit</c> (a fast log):
/// no WRITELOG alert reaches the receiver, nor is one even pending in Prometheus, over the same observation time.
/// </summary>
[Trait("Category", "EndToEnd")]
public class AutocommitAlertEndToEndTests(ITestOutputHelper output)
{
    /// <summary>The spike test's page resolved 77 s after start (measured); observe the fast log as long as that.</summary>
    private const int ObservedSeconds = 80;

    // autocommit's one session targets 5,000 commits (flushes) per simulated second, jitter averaging out over
    // hundreds of thousands: this many flushes mean at least ObservedSeconds of the scenario's time has passed,
    // however slowly the loaded machine ran it.
    private const long FlushesAfterObservedTime = 5_100L * ObservedSeconds;

    [SkippableFact]
    public async Task A_fast_log_sends_no_writelog_alert_over_the_same_observation_time()
    {
        AlertingStack.SkipUnlessInstalled();
        await using var stack = await AlertingStack.StartAsync("autocommit");

        await stack.Prometheus.WaitForAsync(
            "sum(sqlserver_log_flushes_total{sqlserver_database_name=\"shop\"})",
            r => r.GetArrayLength() == 1 && double.Parse(r[0].GetProperty("value")[1].GetString()!, System.Globalization.CultureInfo.InvariantCulture) >= FlushesAfterObservedTime,
            $"{ObservedSeconds} s of the autocommit scenario",
            TimeSpan.FromSeconds(ObservedSeconds * 3));
        // The alerts are evaluated every second: let them evaluate what was just scraped and Alertmanager's scaled group
        // wait (about 1 s) pass; waited for through the rule group's own last evaluation time, not a sleep.
        var after = TimeProvider.System.GetUtcNow().AddSeconds(2);
        await Eventually.Until(async () => await LastEvaluationAsync(stack.Prometheus, "logflushmonitor") > after, "the alerts' evaluation 2 s later", TimeSpan.FromSeconds(30));
        var observedFor = stack.SecondsSinceMonitorStart(TimeProvider.System.GetUtcNow());
        output.WriteLine($"observed {observedFor:0.0} s after the monitor started");

        Assert.DoesNotContain(stack.Receiver.Alerts, a => a.Label("alertname").StartsWith("SqlServerWritelog", StringComparison.Ordinal));
        var everPendingOrFiring = await stack.Prometheus.QueryAsync("count_over_time(ALERTS{alertname=~\"SqlServerWritelog.*\"}[10m])");
        Assert.True(everPendingOrFiring.GetArrayLength() == 0, $"WRITELOG alerts were pending or firing: {everPendingOrFiring}");

        // Not silent for want of input: the alert's own series had values all along and stayed under the 10 ms floor,
        // and Prometheus was sending to the Alertmanager.
        var perCommit = await stack.Prometheus.QueryAsync("max_over_time(sqlserver_database:writelog_average_wait_seconds:short{sqlserver_instance_name=\"sql1\",sqlserver_database_name=\"shop\"}[10m])");
        var samples = await stack.Prometheus.QueryAsync("count_over_time(sqlserver_database:writelog_average_wait_seconds:short{sqlserver_instance_name=\"sql1\",sqlserver_database_name=\"shop\"}[10m])");
        output.WriteLine($"average wait per commit, max over the run: {perCommit}; evaluations with data: {samples}");
        Assert.InRange(Value(perCommit), 0.00005, 0.001);
        Assert.True(Value(samples) >= ObservedSeconds - 30, $"the rule had data in only {Value(samples)} evaluations");
        var alertmanagers = await stack.Prometheus.GetAsync("/api/v1/alertmanagers");
        Assert.Equal(1, alertmanagers.GetProperty("data").GetProperty("activeAlertmanagers").GetArrayLength());
    }

    private static double Value(JsonElement result) =>
        double.Parse(Assert.Single(result.EnumerateArray()).GetProperty("value")[1].GetString()!, System.Globalization.CultureInfo.InvariantCulture);

    private static async Task<DateTimeOffset> LastEvaluationAsync(RealPrometheus prometheus, string group)
    {
        var rules = await prometheus.GetAsync("/api/v1/rules");
        var g = rules.GetProperty("data").GetProperty("groups").EnumerateArray().Single(x => x.GetProperty("name").GetString() == group);
        return DateTimeOffset.Parse(g.GetProperty("lastEvaluation").GetString()!, System.Globalization.CultureInfo.InvariantCulture);
    }
}
