using System.Globalization;
using Xunit.Abstractions;

namespace LogFlushMonitor.Tests.EndToEnd;

/// <summary>
/// A stalled log device from event to page: <c>run --simulate log-stall</c> (sql1/shop: 30 s after start the device
/// completes nothing for 105 s; eight flushes outstanding, eight sessions waiting), the shipped rules in a real Prometheus
/// (shortened by <see cref="AlertingStack.Factor"/>), the shipped routing in a real Alertmanager. The simulator runs at
/// <see cref="Speed"/>: its eight sessions are light. The one alert test kept in real time (about 80 s): the page that
/// matters most, through Prometheus on the wall clock and Alertmanager's routing to a receiver.
/// </summary>
/// <remarks>
/// The stall thresholds are ages in the scenario's own seconds (15 s), not windows: they do not scale with the rules.
/// At speed 3 the stall lasts 35 s of wall time, goes pending 5 s in, fires 2.5 s (30 s / 12) later and resolves when
/// the flushes complete; Alertmanager reports the resolution at its next group interval (25 s scaled).
/// </remarks>
[Trait("Category", "EndToEnd")]
public class LogStallAlertEndToEndTests(ITestOutputHelper output)
{
    private const double Speed = 3;
    private const double StallSeconds = 105;

    [SkippableFact]
    public async Task A_log_stall_goes_pending_within_a_minute_pages_while_it_lasts_and_resolves_when_flushes_complete()
    {
        AlertingStack.SkipUnlessInstalled();
        await using var stack = await AlertingStack.StartAsync("log-stall", Speed);
        static bool IsStall(DeliveredAlert a) =>
            a.Label("alertname") == "SqlServerLogStalled" && a.Label("sqlserver_instance_name") == "sql1" && a.Label("sqlserver_database_name") == "shop";

        var firing = await stack.WaitForDeliveryAsync(a => IsStall(a) && a.Status == "firing", "the stall page for sql1/shop", TimeSpan.FromSeconds(150));
        var stallStart = await StallStartAsync(stack);
        var stallEnd = stallStart.AddSeconds(StallSeconds / Speed);
        output.WriteLine($"stall from {stack.SecondsSinceMonitorStart(stallStart):0.0} s to {stack.SecondsSinceMonitorStart(stallEnd):0.0} s after the monitor started; page at {stack.SecondsSinceMonitorStart(firing.Arrived):0.0} s");

        // Routed to the paging receiver, naming instance and database and what is in flight, linking its runbook section.
        Assert.Equal("page", firing.Receiver);
        Assert.Equal("critical", firing.Label("severity"));
        Assert.Contains("sql1/shop", firing.Annotations["summary"], StringComparison.Ordinal);
        Assert.StartsWith("8 flushes outstanding; 8 sessions waiting on WRITELOG; nothing can commit.", firing.Annotations["description"], StringComparison.Ordinal);
        Assert.EndsWith("docs/alerts.md#sqlserverlogstalled", firing.Annotations["runbook_url"], StringComparison.Ordinal);
        // While it lasts: after the stall began, before it ended.
        Assert.True(firing.Arrived > stallStart && firing.Arrived < stallEnd, $"the page came outside the stall. {stack.Diagnostics()}");

        // Pending within the stall's first minute (in the scenario's seconds).
        var pendingFrom = await FirstAsync(stack, "ALERTS{alertname=\"SqlServerLogStalled\",alertstate=\"pending\",sqlserver_database_name=\"shop\"}");
        var pendingAfter = (pendingFrom - stallStart).TotalSeconds * Speed;
        output.WriteLine($"pending {pendingAfter:0.0} s (scenario time) into the stall");
        Assert.InRange(pendingAfter, 0, 60);

        var resolved = await stack.WaitForDeliveryAsync(a => IsStall(a) && a.Status == "resolved", "the stall's resolution for sql1/shop", TimeSpan.FromSeconds(150));
        output.WriteLine($"resolved delivered {stack.SecondsSinceMonitorStart(resolved.Arrived):0.0} s after the monitor started");
        Assert.Equal("page", resolved.Receiver);
        Assert.True(resolved.Arrived > stallEnd, $"resolved while the stall still held. {stack.Diagnostics()}");
        Assert.Single(stack.Receiver.Alerts, a => IsStall(a) && a.Status == "firing" && a.Arrived < resolved.Arrived);
    }

    /// <summary>When the stall began on the wall clock: the first scrape that saw shop's oldest flush ageing, minus its age.</summary>
    private static async Task<DateTimeOffset> StallStartAsync(AlertingStack stack)
    {
        var (at, age) = await FirstSampleAsync(stack, "sqlserver_log_flush_outstanding_age_seconds{sqlserver_database_name=\"shop\"} > 1");
        return at.AddSeconds(-age / Speed);
    }

    private static async Task<DateTimeOffset> FirstAsync(AlertingStack stack, string query) => (await FirstSampleAsync(stack, query)).At;

    private static async Task<(DateTimeOffset At, double Value)> FirstSampleAsync(AlertingStack stack, string query)
    {
        var start = stack.MonitorStarted;
        var range = await stack.Prometheus.GetAsync(
            "/api/v1/query_range?query=" + Uri.EscapeDataString(query)
            + $"&start={start.ToUnixTimeSeconds()}&end={TimeProvider.System.GetUtcNow().ToUnixTimeSeconds()}&step=1");
        var values = range.GetProperty("data").GetProperty("result").EnumerateArray().SelectMany(s => s.GetProperty("values").EnumerateArray()).ToList();
        Assert.True(values.Count > 0, $"no sample of {query}. {stack.Diagnostics()}");
        var first = values.MinBy(v => v[0].GetDouble());
        return (DateTimeOffset.FromUnixTimeMilliseconds((long)(first[0].GetDouble() * 1000)), double.Parse(first[1].GetString()!, CultureInfo.InvariantCulture));
    }
}
