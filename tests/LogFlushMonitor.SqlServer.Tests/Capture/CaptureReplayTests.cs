using System.Globalization;
using System.Text.Json.Nodes;
using System.Text.RegularExpressions;
using LogFlushMonitor.Hosting;
using LogFlushMonitor.SqlServer.Tests.Scripted;
using LogFlushMonitor.SqlServer.Tests.Streaming;
using LogFlushMonitor.XEvent.Binary;
using LogFlushMonitor.XEvent.Metadata;
using Microsoft.Extensions.Hosting;
using Xunit.Abstractions;

namespace LogFlushMonitor.SqlServer.Tests.Capture;

/// <summary>
/// Every capture in tests/testdata/captures (made by <c>check --capture</c>; see the README there) served back by
/// <see cref="CapturedSqlServer"/>, with the whole service (<c>run</c>) against it: /metrics must show what the capture
/// implies, computed here from the capture itself, never typed in: the databases it names, the flushes of the counter
/// delta between its two polls, and the live stream's log_flush_start events (count and summed write_size per database,
/// decoded from its raw rows). A capture a user sends becomes a test by copying the zip into that folder.
/// </summary>
[Collection(MeterCollection.Name)]
public sealed partial class CaptureReplayTests(ITestOutputHelper output)
{
    public static TheoryData<string> Captures()
    {
        var data = new TheoryData<string>();
        foreach (var file in Directory.GetFiles(CapturesDirectory(), "*.zip").Order(StringComparer.Ordinal))
        {
            data.Add(Path.GetFileName(file));
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(Captures))]
    public async Task Run_against_a_replayed_capture_exports_what_the_capture_implies(string capture)
    {
        await using var server = new CapturedSqlServer(Path.Combine(CapturesDirectory(), capture));
        var expected = Expected(server);
        Assert.NotEmpty(expected.Flushes); // a capture without two counter polls proves nothing here

        var host = MonitorHost.Build([], new Dictionary<string, string?>
        {
            ["Http:Urls"] = "http://127.0.0.1:0",
            ["Log:SummaryInterval"] = "00:00:00",
            ["Log:Level"] = "Warning",
            ["Sources:SqlServer:PollInterval"] = "00:00:01",
            ["Sources:SqlServer:Instances:0:Name"] = "replay",
            ["Sources:SqlServer:Instances:0:ConnectionString"] = server.ConnectionString(),
            ["Sources:SqlServer:Instances:0:SessionName"] = "lfm_replay",
        });
        await host.StartAsync();
        var text = "";
        try
        {
            using var http = new HttpClient { BaseAddress = MonitorHost.HttpAddresses(host.Services)[0] };
            try
            {
                await Eventually.Until(async () =>
                {
                    text = await http.GetStringAsync("/metrics");
                    return expected.Flushes.All(f => Value(text, "sqlserver_log_flushes_total", f.Key) == f.Value)
                        && expected.StreamedFlushes.All(f => Value(text, "sqlserver_log_flush_write_size_bytes_count", f.Key) == f.Value.Count);
                }, "what the capture implies on /metrics");
            }
            catch (TimeoutException)
            {
                Assert.Fail($"Expected from the capture: flushes {string.Join(", ", expected.Flushes)}; streamed {string.Join(", ", expected.StreamedFlushes)}. "
                    + $"Unanswered statements: {string.Join(" | ", server.Unanswered)}\nLast scrape:\n"
                    + string.Join("\n", text.Split('\n').Where(l => l.StartsWith("sqlserver_log_flush", StringComparison.Ordinal))));
            }

            foreach (var (database, (count, bytes)) in expected.StreamedFlushes)
            {
                Assert.Equal(count, Value(text, "sqlserver_log_flush_write_size_bytes_count", database));
                Assert.Equal(bytes, Value(text, "sqlserver_log_flush_write_size_bytes_sum", database));
            }

            // Every database named on /metrics is one the capture names (nothing invented), and every one it implies is there.
            var named = DatabaseLabel().Matches(text).Select(m => m.Groups[1].Value).ToHashSet(StringComparer.Ordinal);
            Assert.Superset(expected.Databases, named);
            Assert.Subset(expected.Named, named);
            Assert.Equal((true, true), server.EventSession("lfm_replay"));
            output.WriteLine($"unanswered by the capture: {string.Join(" | ", server.Unanswered)}");

            // The same bytes before and after a refactor (tests/testdata/golden). Masked: what moves with the wall clock
            // (last success, the outstanding age, how long the polls have seen a log's reuse wait, errors and polls counted
            // per poll of a statement the capture cannot answer), the two figures that hold streamed events against a
            // counter poll, whose windows are timing, and the count of attribute values cut, which is the process's (other
            // tests in it cut names).
            GoldenFile.AssertSame(Path.GetFileNameWithoutExtension(capture) + ".replay.metrics.txt", GoldenFile.Exposition(text,
                ["sqlserver_monitor_last_success", "sqlserver_monitor_agreement", "sqlserver_monitor_events_loss", "sqlserver_monitor_errors",
                 "sqlserver_log_flush_outstanding_age", "sqlserver_log_reuse_wait_duration", "sqlserver_monitor_attributes_truncated"],
                ["sqlserver_monitor_up", "sqlserver_monitor_last_success", "sqlserver_monitor_errors", "sqlserver_monitor_collection_mode"]));
        }
        finally
        {
            await host.StopAsync(TimeSpan.FromSeconds(15));
            host.Dispose();
        }
    }

    /// <summary>
    /// Remakes the scripted fixture of tests/testdata/captures (<c>LFM_UPDATE_CAPTURE=1</c>): <c>check --capture</c> against
    /// the scripted server with 300 streamed flushes of "sales" and a histogram target, two polls 2 s apart, 3 s of stream.
    /// </summary>
    [SkippableFact]
    public async Task The_scripted_fixture_capture_is_made_by_check_capture()
    {
        Skip.IfNot(Environment.GetEnvironmentVariable("LFM_UPDATE_CAPTURE") == "1", "writes tests/testdata/captures/scripted-linux-container.zip; run with LFM_UPDATE_CAPTURE=1 to remake it");
        await using var server = new ScriptedSqlServer();
        server.HeldPermissions.Add("VIEW ANY DEFINITION");
        server.CheckStreamRows.AddRange(StreamRows.Flushes(1, 300).Select(r => (r.Type, (byte[]?)r.Data)));
        server.HistogramTargetXml = _ => "<HistogramTarget truncated=\"0\" buckets=\"256\"><Slot count=\"200\"><value>512</value></Slot><Slot count=\"100\"><value>61440</value></Slot></HistogramTarget>";
        var path = Path.Combine(CapturesDirectory(), "scripted-linux-container.zip");

        var (exit, text, error) = await CaptureRun.RunAsync(server, path, CaptureRun.Quick() with { PollGap = TimeSpan.FromSeconds(2), StreamTime = TimeSpan.FromSeconds(3) });

        output.WriteLine(text + error);
        Assert.Equal(0, exit);
    }

    /// <summary>What the capture implies, per database name: the counter delta of Log Flushes/sec, and the streamed flushes.</summary>
    private static (Dictionary<string, long> Flushes, Dictionary<string, (long Count, long Bytes)> StreamedFlushes, HashSet<string> Databases, HashSet<string> Named) Expected(CapturedSqlServer server)
    {
        var names = server.Captured("databases").LastOrDefault()?["rows"]?.AsArray().ToDictionary(r => (int)r![0]!, r => (string)r![1]!) ?? [];
        var polls = server.Captured("counters");
        var flushes = new Dictionary<string, long>(StringComparer.Ordinal);
        if (polls.Count == 2 && polls.All(p => p["error"] is null))
        {
            static Dictionary<string, long> Of(JsonNode poll) => poll["rows"]!.AsArray()
                .Where(r => ((string)r![1]!).Trim() == "Log Flushes/sec")
                .ToDictionary(r => ((string)r![2]!).Trim(), r => (long)r![3]!);
            var (first, second) = (Of(polls[0]), Of(polls[1]));
            foreach (var (instance, value) in second)
            {
                // Only user databases: they are watched by default and named the same in counters and sys.databases.
                if (names.Any(n => n.Key > 4 && n.Value == instance) && first.TryGetValue(instance, out var before))
                {
                    flushes[instance] = value - before;
                }
            }
        }

        var counter = new FlushCounter();
        var decoder = new XEventBufferDecoder("capture");
        foreach (var (type, data) in server.StreamRows)
        {
            if (data is not null)
            {
                decoder.DecodeRow(type, data, ref counter);
            }
        }

        var streamed = counter.ByDatabase.Where(c => names.ContainsKey(c.Key)).ToDictionary(c => names[c.Key], c => c.Value);
        return (flushes, streamed, [.. flushes.Keys, .. streamed.Keys], [.. names.Values]);
    }

    private static long? Value(string exposition, string metric, string database)
    {
        var m = Regex.Match(exposition, "^" + Regex.Escape(metric) + @"\{sqlserver_database_name=""" + Regex.Escape(database) + @""",sqlserver_instance_name=""replay""[^}]*\} (\S+)", RegexOptions.Multiline);
        return m.Success ? (long)double.Parse(m.Groups[1].Value, CultureInfo.InvariantCulture) : null;
    }

    private static string CapturesDirectory()
    {
        var dir = new DirectoryInfo(AppContext.BaseDirectory);
        while (dir is not null && !File.Exists(Path.Combine(dir.FullName, "LogFlushMonitor.sln")))
        {
            dir = dir.Parent;
        }

        return Path.Combine(dir?.FullName ?? throw new InvalidOperationException("LogFlushMonitor.sln not found above " + AppContext.BaseDirectory), "tests", "testdata", "captures");
    }

    [GeneratedRegex(@"^sqlserver_log_flushes_total\{sqlserver_database_name=""([^""]*)""", RegexOptions.Multiline)]
    private static partial Regex DatabaseLabel();

    /// <summary>Counts log_flush_start events and sums their write_size per database_id.</summary>
    private sealed class FlushCounter : IXEventHandler
    {
        public Dictionary<int, (long Count, long Bytes)> ByDatabase { get; } = [];

        public void OnMetadataChanged(XEventMetadata metadata)
        {
        }

        public void OnEvent(in XEventRecord record)
        {
            if (record.Name != "log_flush_start" || !record.TryGetField("database_id", out var id) || !id.TryGetInt32(out var database))
            {
                return;
            }

            var size = record.TryGetField("write_size", out var w) && w.TryGetInt64(out var s) ? s : 0;
            var (count, bytes) = ByDatabase.GetValueOrDefault(database);
            ByDatabase[database] = (count + 1, bytes + size);
        }
    }
}
