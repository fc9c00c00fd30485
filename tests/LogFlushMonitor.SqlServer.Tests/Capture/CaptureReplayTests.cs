using LogFlushMonitor.Core.Signals;
using LogFlushMonitor.Hosting;
using LogFlushMonitor.SqlServer.Tests.Scripted;
using LogFlushMonitor.SqlServer.Tests.Streaming;
using Microsoft.Extensions.Hosting;
using Xunit.Abstractions;

namespace LogFlushMonitor.SqlServer.Tests.Capture;

/// <summary>
/// Every capture in tests/testdata/captures (made by <c>check --capture</c> from a server, or transcribed from real
/// published result sets; see the README there) served back by <see cref="CapturedSqlServer"/>, with the whole service
/// (<c>run</c>) against it: /metrics must show what the capture implies, worked out from the capture alone by
/// <see cref="CaptureExpectations"/> (the counters' increases, system databases included and Azure's GUID instances
/// mapped; the histogram target's flushes for the stream; the agreement's ratios; the replicas). A capture a user sends
/// becomes a test by copying the zip into that folder. A second test takes one belief away from the product and shows
/// the replay failing.
/// </summary>
[Collection(MeterCollection.Name)]
public sealed class CaptureReplayTests(ITestOutputHelper output)
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
        var expected = CaptureExpectations.From(server);
        Assert.True(expected.Any, "the capture implies nothing a replay can be held to (no counter polls, histogram or replicas)");

        var text = await ReplayAsync(server, expected);
        var mismatches = expected.Mismatches(text, "replay");

        Assert.True(mismatches.Count == 0, $"{capture}: /metrics differs from what the capture implies:\n  " + string.Join("\n  ", mismatches)
            + $"\nUnanswered statements: {string.Join(" | ", server.Unanswered.Select(u => u.Split('\n')[0]))}");

        // The same bytes before and after a refactor (tests/testdata/golden). Masked: what moves with the wall clock (last
        // success, the outstanding age, how long the polls have seen a log's reuse wait, errors and polls counted per poll of
        // a statement the capture cannot answer), and the
        // count of attribute values cut, which is the process's (other tests in it cut names).
        GoldenFile.AssertSame(Path.GetFileNameWithoutExtension(capture) + ".replay.metrics.txt", GoldenFile.Exposition(text,
            ["sqlserver_monitor_last_success", "sqlserver_monitor_errors", "sqlserver_log_flush_outstanding_age", "sqlserver_monitor_attributes_truncated",
             "sqlserver_monitor_stream_rows", "sqlserver_log_reuse_wait_duration"],
            ["sqlserver_monitor_up", "sqlserver_monitor_last_success", "sqlserver_monitor_errors", "sqlserver_monitor_collection_mode"]));
    }

    [Fact]
    public async Task The_replay_fails_when_the_GUID_mapping_belief_is_taken_away()
    {
        // Azure's counters name a user database by its physical name; without the mapping they land under GUIDs, and the
        // replay must say so rather than pass.
        await using var server = new CapturedSqlServer(Path.Combine(CapturesDirectory(), "azure-managed-instance.zip"));
        var expected = CaptureExpectations.From(server);
        CountersSignal.MapsPhysicalNames = false;
        List<string> mismatches;
        try
        {
            mismatches = expected.Mismatches(await ReplayAsync(server, expected), "replay");
        }
        finally
        {
            CountersSignal.MapsPhysicalNames = true;
        }

        output.WriteLine(string.Join("\n", mismatches));
        Assert.Contains(mismatches, m => m.StartsWith("orders Log Flushes/sec: the capture implies 1200, /metrics has none", StringComparison.Ordinal));
        Assert.Contains(mismatches, m => m.StartsWith("billing Log Flushes/sec", StringComparison.Ordinal));
        Assert.Contains(mismatches, m => m.Contains("names a database '6c1d3a52-8f2e-4b7a-9d41-2e5f0c7b9a13'", StringComparison.Ordinal));
    }

    /// <summary>
    /// Remakes the scripted fixture of tests/testdata/captures (<c>LFM_UPDATE_CAPTURE=1</c>): <c>check --capture</c> against
    /// the scripted server with 300 streamed flushes of "sales" (sizes cycling 512, 4,096, 61,440 B) and a histogram target
    /// counting the same flushes, two polls 2 s apart, 3 s of stream.
    /// </summary>
    [SkippableFact]
    public async Task The_scripted_fixture_capture_is_made_by_check_capture()
    {
        Skip.IfNot(Environment.GetEnvironmentVariable("LFM_UPDATE_CAPTURE") == "1", "writes tests/testdata/captures/scripted-linux-container.zip; run with LFM_UPDATE_CAPTURE=1 to remake it");
        await using var server = new ScriptedSqlServer();
        server.HeldPermissions.Add("VIEW ANY DEFINITION");
        server.CheckStreamRows.AddRange(StreamRows.Flushes(1, 300).Select(r => (r.Type, (byte[]?)r.Data)));
        // The writer's sizes (StreamRows.SizeOf): sequence 1..300 gives 100 flushes of each size.
        server.HistogramTargetXml = _ => "<HistogramTarget truncated=\"0\" buckets=\"256\"><Slot count=\"100\"><value>61440</value></Slot><Slot count=\"100\"><value>4096</value></Slot><Slot count=\"100\"><value>512</value></Slot></HistogramTarget>";
        var path = Path.Combine(CapturesDirectory(), "scripted-linux-container.zip");

        var (exit, text, error) = await CaptureRun.RunAsync(server, path, CaptureRun.Quick() with { PollGap = TimeSpan.FromSeconds(2), StreamTime = TimeSpan.FromSeconds(3) });

        output.WriteLine(text + error);
        Assert.Equal(0, exit);
    }

    /// <summary>Runs the service against <paramref name="server"/> until it has read what <paramref name="expected"/> rests on; returns the last /metrics.</summary>
    private async Task<string> ReplayAsync(CapturedSqlServer server, CaptureExpectations expected)
    {
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
                    return expected.Ready(text, "replay");
                }, "the replay read both counter polls, the stream and the agreement's window", TimeSpan.FromSeconds(60));
            }
            catch (TimeoutException)
            {
                output.WriteLine("not ready within 60 s; the last scrape is compared as it is");
            }

            output.WriteLine($"unanswered by the capture: {string.Join(" | ", server.Unanswered.Select(u => u.Split('\n')[0]))}");
            return text;
        }
        finally
        {
            await host.StopAsync(TimeSpan.FromSeconds(15));
            host.Dispose();
        }
    }

    internal static string CapturesDirectory()
    {
        var dir = new DirectoryInfo(AppContext.BaseDirectory);
        while (dir is not null && !File.Exists(Path.Combine(dir.FullName, "LogFlushMonitor.sln")))
        {
            dir = dir.Parent;
        }

        return Path.Combine(dir?.FullName ?? throw new InvalidOperationException("LogFlushMonitor.sln not found above " + AppContext.BaseDirectory), "tests", "testdata", "captures");
    }
}
