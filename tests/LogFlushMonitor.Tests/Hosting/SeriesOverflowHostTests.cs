using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;

namespace LogFlushMonitor.Tests.Hosting;

/// <summary>Issue 23 item 2: past Exporters:CardinalityLimit the overflow is exported per metric and logged once, naming the setting.</summary>
[Collection("host")]
public sealed class SeriesOverflowHostTests
{
    [Fact]
    public async Task Series_past_the_limit_are_exported_per_metric_and_logged_once_with_the_setting_to_change()
    {
        var dir = Directory.CreateTempSubdirectory("lfm-overflow-");
        try
        {
            var text = "";
            await using (var host = await RunningHost.StartAsync(
                new()
                {
                    ["Sources:Simulate:Scenario"] = "autocommit",
                    ["Exporters:CardinalityLimit"] = "100",
                    ["Log:File"] = Path.Combine(dir.FullName, "monitor.log"),
                },
                beforeStart: services =>
                {
                    // 150 databases on one instance: one Log Flushes/sec series each, 50 past the limit.
                    var aggregator = services.GetRequiredService<LogFlushAggregator>();
                    var t = DateTime.UtcNow;
                    for (var d = 0; d < 150; d++)
                    {
                        aggregator.OnBatch(SignalRegistry.Counters.Row("big", t, new CounterRow("Databases", "Log Flushes/sec", "db" + d, 10, PerfCounterType.BulkCount)));
                    }
                }))
            {
                text = await host.ScrapeUntilAsync(t => t.Contains("sqlserver_monitor_series_overflow{", StringComparison.Ordinal), TimeSpan.FromSeconds(30));
                await host.Http.GetStringAsync("/metrics"); // a second collect must not log again
            }

            Assert.Contains("otel_metric_overflow=\"true\"", text, StringComparison.Ordinal);
            var folded = System.Text.RegularExpressions.Regex.Match(text, """sqlserver_monitor_series_overflow\{metric_name="sqlserver\.log\.flushes"[^}]*\} (\d+)""");
            Assert.True(folded.Success, text);
            Assert.True(int.Parse(folded.Groups[1].Value, System.Globalization.CultureInfo.InvariantCulture) >= 50, folded.Value); // and the simulated databases

            var log = string.Concat(dir.EnumerateFiles("monitor*.log").Select(f => File.ReadAllText(f.FullName)));
            var lines = log.Split('\n').Where(l => l.Contains("sqlserver.log.flushes has", StringComparison.Ordinal)).ToList();
            var line = Assert.Single(lines);
            Assert.Contains("Exporters:CardinalityLimit", line, StringComparison.Ordinal);
            Assert.Contains("100", line, StringComparison.Ordinal);
        }
        finally
        {
            dir.Delete(recursive: true);
        }
    }
}
