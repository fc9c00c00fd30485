using Xunit.Abstractions;

namespace LogFlushMonitor.Tests.EndToEnd;

/// <summary>
/// Issue 32 item 4, end to end: the <c>log-full</c> scenario through the service's own /metrics in virtual time, scraped
/// and evaluated as the shipped deploy/prometheus/prometheus.yml does, and Prometheus's rule evaluation of the shipped
/// alerts.yml unchanged: SqlServerLogFullSoon pages before the simulated log is full, naming the reason and the
/// headroom. And <c>log-grows</c>, a log as full by percentage but free to grow onto a large volume: nothing pages, where
/// the old percentage rule would have.
/// </summary>
[Trait("Category", "EndToEnd")]
[Collection("host")]
public class LogFullAlertEndToEndTests(ITestOutputHelper output)
{
    private const string FullSoon = "ALERTS{alertname=\"SqlServerLogFullSoon\"}";

    // log-full (docs/simulate.md): 1 GiB active of a 5 GiB max at 2 MiB/s: full (5,120 - 1,024) / 2 = 2,048 s after the
    // start; under 30 minutes to full from 2,048 - 1,800 = 248 s.
    private const int FullAt = 2_048;
    private const int UnderThirtyMinutesFrom = FullAt - 1_800;

    // The shipped for: 5m.
    private const int ForSeconds = 300;

    [SkippableFact]
    public async Task A_log_that_will_be_full_pages_before_it_is_full_with_its_reason_and_its_headroom()
    {
        Skip.IfNot(PromtoolRuleEvaluation.IsInstalled, PromtoolRuleEvaluation.NotInstalledReason);
        var (scrape, evaluation, externalLabels) = PromtoolRuleEvaluation.ShippedPrometheus();
        var step = (int)evaluation.TotalSeconds;
        const int Observed = 720;
        var scrapes = await VirtualTimeScrapes.RunAsync("log-full", TimeSpan.FromSeconds(Observed), scrape);
        var rules = new PromtoolRuleEvaluation();
        var times = Enumerable.Range(0, (Observed / step) + 1).Select(i => i * step).ToArray();
        foreach (var t in times)
        {
            rules.Probe(FullSoon, t);
            rules.ProbeAlerts("SqlServerLogFullSoon", t);
            // The page is the log's: no other critical alert fires on the way.
            rules.ExpectNone("ALERTS{alertstate=\"firing\",severity=\"critical\",alertname!=\"SqlServerLogFullSoon\"}", t);
        }

        rules.Probe("sqlserver_log_time_to_full_seconds", 600);
        await rules.RunAsync(scrapes, factor: 1, evaluation, externalLabels);

        var states = times.Select(t => Assert.Single(rules.Results(FullSoon, t).Select(s => s.Labels["alertstate"]).DefaultIfEmpty(null).Distinct())).ToArray();
        var timeline = string.Join(", ", times.Zip(states).GroupBy(p => p.Second).Select(g => $"{g.Key ?? "none"} from {g.Min(p => p.First)} s"));
        output.WriteLine($"log-full, shipped rules (scrape {scrape.TotalSeconds} s, evaluation {step} s): SqlServerLogFullSoon {timeline}");
        var pendingFrom = times[Array.IndexOf(states, "pending")];
        var firingFrom = times[Array.IndexOf(states, "firing")];
        Assert.True(pendingFrom >= UnderThirtyMinutesFrom, $"pending at {pendingFrom} s, with more than 30 minutes to full: {timeline}");
        Assert.True(pendingFrom <= UnderThirtyMinutesFrom + (2 * step), $"pending only at {pendingFrom} s: {timeline}");
        Assert.InRange(firingFrom - pendingFrom, ForSeconds, ForSeconds + step);
        Assert.True(firingFrom < FullAt, $"fired at {firingFrom} s, after the log was full at {FullAt} s");
        Assert.All(states.SkipWhile(s => s != "firing"), s => Assert.Equal("firing", s));

        // At 600 s the time to full was 2,048 - 600 = 1,448 s (the prediction, within 10 %).
        var predicted = double.Parse(Assert.Single(rules.Results("sqlserver_log_time_to_full_seconds", 600)).Value, System.Globalization.CultureInfo.InvariantCulture);
        Assert.InRange(predicted, 1_448 * 0.9, 1_448 * 1.1);

        var page = Assert.Single(rules.AlertProbeResults[("SqlServerLogFullSoon", firingFrom)]);
        output.WriteLine($"annotations when it fired: {string.Join("; ", page.Annotations.Select(a => $"{a.Key}={a.Value}"))}");
        Assert.Equal(("sql1", "orders", "LOG_BACKUP", "critical"), (page.Labels["sqlserver_instance_name"], page.Labels["sqlserver_database_name"], page.Labels["log_reuse_wait"], page.Labels["severity"]));
        Assert.StartsWith("The log of sql1/orders will be full in ", page.Annotations["summary"], StringComparison.Ordinal);
        Assert.EndsWith(": LOG_BACKUP", page.Annotations["summary"], StringComparison.Ordinal);
        // No log backup for 90 minutes before the start and the minutes since; 5 GiB is what the log can reach.
        Assert.Matches(@"^It cannot be reused because of LOG_BACKUP: no log backup for 1h \d+m \d+s\. [0-9.]+GiB in use of the 5GiB the log can reach, growing 2MiB/s\.", page.Annotations["description"]);
        Assert.Equal(externalLabels["runbook_base_url"] + "#sqlserverlogfullsoon", page.Annotations["runbook_url"]);
    }

    [SkippableFact]
    public async Task A_log_95_percent_full_that_can_grow_onto_a_large_volume_does_not_page()
    {
        Skip.IfNot(PromtoolRuleEvaluation.IsInstalled, PromtoolRuleEvaluation.NotInstalledReason);
        var (scrape, evaluation, externalLabels) = PromtoolRuleEvaluation.ShippedPrometheus();
        var step = (int)evaluation.TotalSeconds;
        const int Observed = 900;
        var scrapes = await VirtualTimeScrapes.RunAsync("log-grows", TimeSpan.FromSeconds(Observed), scrape);
        var rules = new PromtoolRuleEvaluation();
        const string OldRule = "sqlserver_log_usage_ratio > 0.9";
        for (var t = 0; t <= Observed; t += step)
        {
            rules.ExpectNone("ALERTS{alertname=~\"SqlServerLogFullSoon|SqlServerLogAlmostFull\"}", t);
            rules.ExpectNone("ALERTS{severity=\"critical\"}", t);
            rules.Probe(OldRule, t);
        }

        const string NotTruncating = "ALERTS{alertname=\"SqlServerLogNotTruncating\"}";
        rules.Probe(NotTruncating, Observed);
        await rules.RunAsync(scrapes, factor: 1, evaluation, externalLabels);

        // The percentage the old rule read stayed over 90 % from the first poll on (the file grows in 64 MiB steps behind the
        // log): ten minutes of it would have paged.
        for (var t = step; t <= Observed; t += step)
        {
            Assert.True(rules.Results(OldRule, t).Count == 1, $"Percent Log Used was not over 90 % at {t} s");
        }

        // The backups stopped 90 minutes before the start: a warning is on its way (pending its 15 minutes), never a page.
        var warning = Assert.Single(rules.Results(NotTruncating, Observed));
        Assert.Equal(("pending", "warning", "LOG_BACKUP"), (warning.Labels["alertstate"], warning.Labels["severity"], warning.Labels["log_reuse_wait"]));
    }
}
