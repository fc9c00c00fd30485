using System.Security.Cryptography;
using LogFlushMonitor.Recording;
using LogFlushMonitor.Simulation;
using LogFlushMonitor.Tests.Analyze;
using LogFlushMonitor.Tests.Cli;
using LogFlushMonitor.Tests.EndToEnd;
using LogFlushMonitor.XEvent.TestSupport;

namespace LogFlushMonitor.Tests.Golden;

/// <summary>
/// Outputs of fixed inputs, recorded before a refactor and compared byte for byte after it (tests/testdata/golden,
/// <see cref="GoldenFile"/>): the service's /metrics over a fixed-seed simulation in virtual time, a simulated recording
/// (its bytes, by hash) and its <c>analyze --format json</c>, and <c>analyze</c> (text and JSON) of a real .xel file and
/// of a writer-made one with log flushes, WRITELOG waits and client applications. The capture replay's /metrics is
/// compared in <c>CaptureReplayTests</c>. Only what varies by run is masked: timestamps, wall-clock durations, paths.
/// </summary>
[Collection("host")]
public sealed class GoldenOutputTests : IDisposable
{
    private static readonly DateTime Start = new(2026, 11, 22, 8, 0, 0, DateTimeKind.Utc);
    private readonly AnalyzeTestFiles _files = new();

    public void Dispose() => _files.Dispose();

    [Fact]
    public async Task Simulated_mixed_metrics_are_the_golden_ones()
    {
        var scrapes = await VirtualTimeScrapes.RunAsync("mixed", TimeSpan.FromSeconds(60), TimeSpan.FromSeconds(15), drainEachSlice: true);

        // Masked: last_success (the virtual time of a delivery), the two figures that hold the events against a counter
        // poll (polled rows reach the aggregation at once, events through the pipeline's channel, so both depend on how far
        // the consumer got within the slice that carried the poll), and the count of attribute values cut, which is the
        // process's (other tests in it cut names). The health registry lists its components in no fixed order. The commit
        // budget is brought up to date at the polls from the events consumed by then, so its figures are masked as well
        // (its series, one per database and part read, are not).
        GoldenFile.AssertSame("simulate-mixed.metrics.txt", GoldenFile.Exposition(scrapes.LastExposition,
            ["sqlserver_monitor_last_success", "sqlserver_monitor_agreement", "sqlserver_monitor_events_loss", "sqlserver_monitor_attributes_truncated", "sqlserver_commit_wait_time"],
            ["sqlserver_monitor_up", "sqlserver_monitor_last_success", "sqlserver_monitor_errors", "sqlserver_monitor_collection_mode", "sqlserver_monitor_fallbacks"]));
    }

    [Fact]
    public async Task A_simulated_recording_and_its_analysis_are_the_golden_ones()
    {
        var path = _files.PathOf("mixed.ndjson");
        using (var writer = new NdjsonSampleWriter(path))
        {
            SimulationScenarios.Create("mixed", new SimulationOptions { RateScale = 0.02, EventLossRate = 0.001 }).Run(Start, TimeSpan.FromMinutes(1), writer);
            writer.Flush();
        }

        var bytes = await File.ReadAllBytesAsync(path);
        var (code, json, error) = await InProcessCli.RunAsync("analyze", path, "--format", "json");

        Assert.True(code == 0, error);
        GoldenFile.AssertSame("recording-mixed.sha256.txt", $"{bytes.Length} bytes, sha256 {Convert.ToHexStringLower(SHA256.HashData(bytes))}\n");
        GoldenFile.AssertSame("recording-mixed.analyze.json", Masked(json, path));
    }

    [Fact]
    public async Task Analyze_of_the_real_xel_file_is_the_golden_one()
    {
        var path = TestData.RealXelFile;
        var (code, text, error) = await InProcessCli.RunAsync("analyze", path);
        var (jsonCode, json, _) = await InProcessCli.RunAsync("analyze", path, "--format", "json");

        // The real file holds no log-flush event: analyze says what it holds instead, and exits NoRelevantEvents.
        Assert.Equal(LogFlushMonitor.Commands.ExitCodes.NoRelevantEvents, code);
        Assert.Equal(LogFlushMonitor.Commands.ExitCodes.NoRelevantEvents, jsonCode);
        GoldenFile.AssertSame("real-xel.analyze.txt", MaskedText(text + error, path));
        GoldenFile.AssertSame("real-xel.analyze.json", Masked(json, path));
    }

    [Fact]
    public async Task Analyze_of_a_log_flush_xel_file_is_the_golden_one()
    {
        var path = _files.Write("flushes.xel", w =>
        {
            ulong seq = 0;
            for (var i = 0; i < 3000; i++)
            {
                var t = Start.AddMilliseconds(i * 2);
                var db = (uint)(5 + (i % 3));
                var name = db switch { 5 => "orders", 6 => "billing", _ => "audit" };
                var size = (i % 50) switch { 0 => 61440u, 1 or 2 => 4096u, _ => 512u };
                w.LogFlushStart(t, db, name, size, (ulong)(1000 + i), ++seq);
                w.LogFlushComplete(t.AddTicks(5_000 + (i % 7) * 1_000), db, name, (ulong)(1000 + i), (ulong)(i % 4), ++seq);
                if (i % 4 == 0)
                {
                    w.WaitCompleted(t.AddTicks(9_000), XelWriter.WriteLogKey, (ulong)(1 + (i % 5)), db, ++seq, databaseName: name,
                        clientApp: (i % 12) switch { 0 => "OrderService", 4 => "BillingWorker", _ => "" });
                }
            }
        });

        var (code, text, error) = await InProcessCli.RunAsync("analyze", path);
        var (jsonCode, json, _) = await InProcessCli.RunAsync("analyze", path, "--format", "json");

        Assert.Equal(0, code);
        Assert.Equal(0, jsonCode);
        GoldenFile.AssertSame("flushes-xel.analyze.txt", MaskedText(text + error, path));
        GoldenFile.AssertSame("flushes-xel.analyze.json", Masked(json, path));
    }

    private static string Masked(string json, string path) =>
        GoldenFile.MaskJson(GoldenFile.Mask(json, System.Text.Json.JsonEncodedText.Encode(path).ToString(), "INPUT"), "elapsed_seconds", "read_mb_per_second", "threads");

    private static string MaskedText(string text, string path) =>
        System.Text.RegularExpressions.Regex.Replace(GoldenFile.Mask(text, path, "INPUT"), @"in [0-9.]+ s|[0-9.,]+ (?:B|KB|MB|GB)/s|[0-9]+ threads?", "MASKED");
}
