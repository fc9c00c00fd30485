using System.Globalization;

namespace LogFlushMonitor.Tests.EndToEnd;

/// <summary>
/// The same path as <see cref="WritelogSpikeAlertEndToEndTests"/> (virtual time, the service's /metrics, Prometheus's
/// rule evaluation in promtool) on the autocommit scenario (a fast log): no WRITELOG alert is even pending at any
/// evaluation over the same observation time, while the alert's own series has values all along.
/// </summary>
[Trait("Category", "EndToEnd")]
[Collection("host")]
public class AutocommitAlertEndToEndTests
{
    /// <summary>As long as the spike test observes (its alert has resolved well before).</summary>
    private const int ObservedSeconds = 90;

    private const string PerCommit = "sqlserver_database:writelog_average_wait_seconds:short{sqlserver_instance_name=\"sql1\",sqlserver_database_name=\"shop\"}";

    [SkippableFact]
    public async Task A_fast_log_raises_no_writelog_alert_over_the_same_observation_time()
    {
        Skip.IfNot(PromtoolRuleEvaluation.IsInstalled, PromtoolRuleEvaluation.NotInstalledReason);
        var scrapes = await VirtualTimeScrapes.RunAsync("autocommit", TimeSpan.FromSeconds(ObservedSeconds), TimeSpan.FromSeconds(1));
        var rules = new PromtoolRuleEvaluation();
        for (var t = 0; t <= ObservedSeconds; t++)
        {
            // promtool's own assertion at every evaluation: neither pending nor firing.
            rules.ExpectNone("ALERTS{alertname=~\"SqlServerWritelog.*\"}", t);
        }

        var window = $"[{ObservedSeconds}s]";
        rules.Probe($"max_over_time({PerCommit}{window})", ObservedSeconds);
        rules.Probe($"count_over_time({PerCommit}{window})", ObservedSeconds);
        rules.Probe("sum(rate(sqlserver_log_flushes_total{sqlserver_database_name=\"shop\"}[10s]))", ObservedSeconds);
        await rules.RunAsync(scrapes, AlertingStack.Factor);

        // Not silent for want of input: the alert's own series had values at (nearly) every evaluation and stayed under
        // the 10 ms floor, on a log flushing thousands of times a second.
        var max = Value(rules, $"max_over_time({PerCommit}{window})");
        var samples = Value(rules, $"count_over_time({PerCommit}{window})");
        var flushes = Value(rules, "sum(rate(sqlserver_log_flushes_total{sqlserver_database_name=\"shop\"}[10s]))");
        Assert.InRange(max, 0.00005, 0.001);
        Assert.True(samples >= ObservedSeconds - 10, $"the rule had data in only {samples} of {ObservedSeconds} evaluations");
        Assert.True(flushes > 1000, $"{flushes} flushes/s on the autocommit scenario");
    }

    private static double Value(PromtoolRuleEvaluation rules, string expr)
    {
        var result = Assert.Single(rules.Results(expr, ObservedSeconds));
        return double.Parse(result.Value, NumberStyles.Float, CultureInfo.InvariantCulture);
    }
}
