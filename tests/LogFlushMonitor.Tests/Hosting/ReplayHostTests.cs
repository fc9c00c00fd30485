using System.Globalization;
using System.Text.RegularExpressions;
using LogFlushMonitor.Simulation;
using LogFlushMonitor.Recording;

namespace LogFlushMonitor.Tests.Hosting;

[Collection("host")]
public partial class ReplayHostTests
{
    [Fact]
    public async Task Replay_feeds_every_recorded_flush_through_the_pipeline_and_skips_a_malformed_line_by_name()
    {
        var file = Path.Combine(Path.GetTempPath(), "lfm-replay-" + Guid.NewGuid().ToString("N")[..8] + ".ndjson");
        try
        {
            using (var writer = new NdjsonSampleWriter(file))
            {
                SimulationScenarios.Create("autocommit").Run(DateTime.UtcNow.AddMinutes(-1), TimeSpan.FromSeconds(3), writer);
            }

            File.AppendAllText(file, "{\"type\":\"flush\",\"t\":\"not a time\"}\n");
            var lines = File.ReadAllLines(file);
            var flushes = lines.Count(l => l.StartsWith("{\"type\":\"flush\",", StringComparison.Ordinal)) - 1;
            var badLine = lines.Length;

            await using var host = await RunningHost.StartAsync(new() { ["Sources:Replay:Path"] = file, ["Sources:Replay:Speed"] = "0" });
            var text = await host.ScrapeUntilAsync(t => Total(t) == flushes && MalformedOne().IsMatch(t), TimeSpan.FromSeconds(30));

            Assert.Equal(flushes, Total(text));
            Assert.Matches(MalformedOne(), text);
            Assert.True(flushes > 10_000, $"{flushes} flushes");
            Assert.Equal(0, host.Host.Services.GetRequiredService<Core.Pipeline.SamplePipeline>().Dropped);
            Assert.True(badLine > 0);
        }
        finally
        {
            File.Delete(file);
        }
    }

    private static long Total(string text) =>
        WriteSizeCount().Matches(text).Sum(m => long.Parse(m.Groups[1].Value, CultureInfo.InvariantCulture));

    [GeneratedRegex("""^sqlserver_log_flush_write_size_bytes_count\{[^}]*\} (\d+)$""", RegexOptions.Multiline)]
    private static partial Regex WriteSizeCount();

    [GeneratedRegex("""sqlserver_monitor_events_lost_total\{[^}]*loss_kind="malformed"[^}]*\} 1\b""")]
    private static partial Regex MalformedOne();
}
