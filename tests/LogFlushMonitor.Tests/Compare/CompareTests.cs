using System.Text.Json;
using LogFlushMonitor.Analysis;
using LogFlushMonitor.Recording;
using LogFlushMonitor.Simulation;
using LogFlushMonitor.Tests.Analyze;
using LogFlushMonitor.Tests.Cli;
using LogFlushMonitor.XEvent.TestSupport;

namespace LogFlushMonitor.Tests.Compare;

/// <summary>
/// <c>compare</c> (issue 34 items 1 and 2). The .xel cases are written here with round figures worked out by hand; the
/// recording cases use the simulator's documented shapes (SimulationScenarios: autocommit commits every row, batched
/// the same rows 100 at a time; writelog-spike's latency rises from ~0.15 ms to ~30 ms 30 s after the start).
/// </summary>
public sealed class CompareTests : IDisposable
{
    private static readonly DateTime Start = new(2026, 11, 22, 10, 0, 0, DateTimeKind.Utc);
    private readonly AnalyzeTestFiles _files = new();

    public void Dispose() => _files.Dispose();

    [Fact]
    public async Task Two_xel_files_are_compared_with_the_figures_worked_out_by_hand()
    {
        // Before: 1,200 flushes of 512 B over 12 s (one every 10 ms), each paired with a complete 1 ms later and waited for
        // by a 1 ms WRITELOG (wait_completed counts whole milliseconds). After: 120 flushes of 60 KB over 12 s (one every
        // 100 ms), completes 2 ms later, waits 2 ms.
        var before = _files.Write("before.xel", w => Flushes(w, 1200, TimeSpan.FromMilliseconds(10), 512, completeMs: 1, waitMs: 1));
        var after = _files.Write("after.xel", w => Flushes(w, 120, TimeSpan.FromMilliseconds(100), 61440, completeMs: 2, waitMs: 2));

        var (code, stdout, stderr) = await InProcessCli.RunAsync("compare", before, after, "--format", "json");

        Assert.True(code == 0, stderr);
        using var doc = JsonDocument.Parse(stdout);
        var db = Assert.Single(doc.RootElement.GetProperty("databases").EnumerateArray());
        Assert.Equal("sales", db.GetProperty("database").GetString());
        var f = Figures(db);
        // Events from 0 to 11.991 s (the last start at 11.99 s, its complete and wait 1 ms later) and 0 to 11.902 s (11.9 s
        // and 2 ms): the rates are per second of those spans.
        Assert.Equal(1200 / 11.991, f["flushes per second"].Before!.Value, 3);
        Assert.Equal(120 / 11.902, f["flushes per second"].After!.Value, 3);
        Assert.Equal(512 * 1200 / 11.991, f["log bytes per second"].Before!.Value, 1);
        Assert.Equal(61440 * 120 / 11.902, f["log bytes per second"].After!.Value, 1);
        Assert.Equal((100, 0), (f["share of 512-byte flushes"].Before, f["share of 512-byte flushes"].After));
        Assert.Equal((512, 61440), (f["median write size"].Before, f["median write size"].After));
        Assert.Equal(1200 * 0.001 / 11.991, f["WRITELOG seconds per second"].Before!.Value, 6);
        Assert.Equal(120 * 0.002 / 11.902, f["WRITELOG seconds per second"].After!.Value, 6);
        Assert.Equal((1.0, 2.0), (f["average WRITELOG wait"].Before, f["average WRITELOG wait"].After));
        // A .xel file has no counters: nothing per transaction.
        Assert.Equal(JsonValueKind.Null, db.GetProperty("figures").EnumerateArray().Single(x => x.GetProperty("name").GetString() == "write transactions per second").GetProperty("before").ValueKind);
        // Flush latency within the latency distribution's 10 % buckets of 1 and 2 ms.
        Assert.InRange(f["flush latency p50"].Before!.Value, 1, 1.1);
        Assert.InRange(f["flush latency p50"].After!.Value, 2, 2.2);
        // 10× fewer flushes, 120× larger: batching; latency doubled with 120× larger writes: not the device.
        var codes = Codes(db);
        Assert.Contains("batching-worked", codes);
        Assert.Contains("larger-writes-slower", codes);
        Assert.Contains("writelog-fell", codes);
    }

    [Fact]
    public async Task Autocommit_against_batched_says_batching_worked_by_the_simulators_shapes()
    {
        // RateScale 0.1: 500 rows a second in both; autocommit commits each (~500 flushes/s of ~512 B), batched 100 at a
        // time (~5 commits and ~5 flushes/s of ~37 KB). Over 120 s both sides hold well over 100 flushes.
        var options = new SimulationOptions { RateScale = 0.1 };
        var before = Record("autocommit.ndjson", "autocommit", options);
        var after = Record("batched.ndjson", "batched", options);

        var (code, stdout, stderr) = await InProcessCli.RunAsync("compare", before, after, "--format", "json", "--progress", "never");

        Assert.True(code == 0, stderr);
        using var doc = JsonDocument.Parse(stdout);
        var db = Assert.Single(doc.RootElement.GetProperty("databases").EnumerateArray());
        var f = Figures(db);
        // The shapes: 100 rows per commit → about 100× fewer flushes and commits; a commit's flush holds 100 rows of
        // 300-449 B (~37 KB); the same rows, so about the same log (the autocommit flushes pad each row to 512 B: ~70 %).
        Assert.InRange(f["flushes per second"].Before!.Value / f["flushes per second"].After!.Value, 85, 115);
        Assert.InRange(f["write transactions per second"].Before!.Value / f["write transactions per second"].After!.Value, 85, 115);
        Assert.InRange(f["log bytes per second"].After!.Value / f["log bytes per second"].Before!.Value, 0.55, 0.85);
        Assert.InRange(f["median write size"].After!.Value, 30 * 1024, 45 * 1024);
        Assert.InRange(f["WRITELOG seconds per second"].Before!.Value / f["WRITELOG seconds per second"].After!.Value, 30, 200);
        var codes = Codes(db);
        Assert.Contains("batching-worked", codes);
        Assert.Contains("writelog-fell", codes);
        Assert.DoesNotContain("device-slower", codes);
        Assert.StartsWith("Batching worked", db.GetProperty("verdict").GetProperty("text").GetString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Two_windows_of_one_recording_compare_a_spike_with_the_time_before_it()
    {
        var spike = Record("spike.ndjson", "writelog-spike", new SimulationOptions { RateScale = 0.05 }, TimeSpan.FromSeconds(60));

        var (code, stdout, stderr) = await InProcessCli.RunAsync("compare", spike, spike, "--before-window", "10:00:00-10:00:25", "--after-window", "10:00:35-10:00:52", "--format", "json", "--progress", "never");

        Assert.True(code == 0, stderr);
        using var doc = JsonDocument.Parse(stdout);
        Assert.Equal("10:00:00-10:00:25", doc.RootElement.GetProperty("before").GetProperty("window").GetString());
        var db = Assert.Single(doc.RootElement.GetProperty("databases").EnumerateArray());
        var f = Figures(db);
        // The spike's plateau is ~30 ms against ~0.15 ms before it, with the same 512-byte commits.
        Assert.InRange(f["flush latency p50"].Before!.Value, 0.1, 0.3);
        Assert.InRange(f["flush latency p50"].After!.Value, 20, 40);
        var codes = Codes(db);
        Assert.Contains("device-slower", codes);
        Assert.Contains("writelog-rose", codes);
        // The first event of each side lies in its window.
        Assert.StartsWith("2026-11-22T10:00:35", doc.RootElement.GetProperty("after").GetProperty("first_event_utc").GetString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task The_latency_budget_names_the_log_rate_cap_once_the_load_passes_it()
    {
        // azure-log-cap's known shape: four sessions want 1 MiB/s each (43 % of the 9,830,400 B/s cap: nobody is governed)
        // until 30 s after the start, 4 MiB/s each from then on. Held at the cap, each session waits on the governor for the
        // share of its time it wants beyond the cap: 4 x (1 - 9,830,400 / 16,777,216) = 1.66 s waited per second.
        var az = Record("az.ndjson", "azure-log-cap", new SimulationOptions(), TimeSpan.FromSeconds(120));

        var (code, stdout, stderr) = await InProcessCli.RunAsync("compare", az, az, "--before-window", "10:00:00-10:00:29", "--after-window", "10:01:00-10:02:00", "--format", "json", "--progress", "never");

        Assert.True(code == 0, stderr);
        using var doc = JsonDocument.Parse(stdout);
        var db = Assert.Single(doc.RootElement.GetProperty("databases").EnumerateArray());
        var f = Figures(db);
        Assert.Equal(0, f["commit wait per second: log-rate cap"].Before);
        Assert.InRange(f["commit wait per second: log-rate cap"].After!.Value, 1.3, 1.9);
        Assert.InRange(f["log bytes per second"].After!.Value, 9_830_400 * 0.9, 9_830_400 * 1.05);
        // The commits are counted (Write Transactions/sec), so the budget per commit is there on both sides.
        Assert.True(f["commit wait per write transaction"].Before > 0 && f["commit wait per write transaction"].After > f["commit wait per write transaction"].Before);
        var text = db.GetProperty("verdict").GetProperty("text").GetString()!;
        Assert.Contains("the largest part of commit time was local flush before and log-rate cap after", text, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Too_little_on_a_side_is_said_instead_of_a_verdict_and_databases_on_one_side_are_listed()
    {
        var before = _files.Write("before.xel", w =>
        {
            Flushes(w, 50, TimeSpan.FromMilliseconds(10), 512, completeMs: 1, waitMs: 0);
            w.LogFlushStart(Start, 6, "hr", 512, 9000);
        });
        var after = _files.Write("after.xel", w =>
        {
            Flushes(w, 500, TimeSpan.FromMilliseconds(100), 512, completeMs: 1, waitMs: 0);
            w.LogFlushStart(Start, 7, "crm", 512, 9000);
        });

        var (code, stdout, _) = await InProcessCli.RunAsync("compare", before, after);

        Assert.Equal(0, code);
        Assert.Contains("too little to judge: before holds 50 flushes over 0.5 s", stdout, StringComparison.Ordinal);
        Assert.Contains("Only before (not compared): hr on", stdout, StringComparison.Ordinal);
        Assert.Contains("Only after (not compared): crm on", stdout, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_window_with_no_events_exits_3_and_says_which_side()
    {
        var file = _files.Write("one.xel", w => Flushes(w, 200, TimeSpan.FromMilliseconds(100), 512, completeMs: 1, waitMs: 0));

        var (code, _, stderr) = await InProcessCli.RunAsync("compare", file, file, "--after-window", "2026-11-23T00:00:00Z/2026-11-23T01:00:00Z");

        Assert.Equal(3, code);
        Assert.Contains("the after side holds no log flush or WRITELOG events in its window", stderr, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("--before-window", "10-11", "--before-window '10-11' is not a window")]
    [InlineData("--after-window", "11:00-11:00", "is empty")]
    [InlineData("--after-window", "2026-11-22T11:00:00Z/2026-11-22T10:00:00Z", "ends before it starts")]
    [InlineData("--format", "html", "--format html needs --out FILE")]
    [InlineData("--format", "xml", "--format 'xml' is not known")]
    public async Task A_usage_error_exits_2_and_names_the_option(string option, string value, string message)
    {
        var file = _files.Write("one.xel", w => Flushes(w, 10, TimeSpan.FromMilliseconds(100), 512, completeMs: 1, waitMs: 0));

        var (code, stdout, stderr) = await InProcessCli.RunAsync("compare", file, file, option, value);

        Assert.Equal(2, code);
        Assert.Contains(message, stderr, StringComparison.Ordinal);
        Assert.Equal("", stdout);
    }

    [Fact]
    public async Task The_html_page_holds_the_verdict_the_figures_and_both_distributions_on_one_chart()
    {
        var before = _files.Write("before.xel", w => Flushes(w, 1200, TimeSpan.FromMilliseconds(10), 512, completeMs: 1, waitMs: 1));
        var after = _files.Write("after.xel", w => Flushes(w, 120, TimeSpan.FromMilliseconds(100), 61440, completeMs: 2, waitMs: 2));
        var page = _files.PathOf("compare.html");

        var (code, stdout, stderr) = await InProcessCli.RunAsync("compare", before, after, "--format", "html", "--out", page);

        Assert.True(code == 0, stderr);
        Assert.Contains("compare: wrote", stdout, StringComparison.Ordinal);
        var html = await File.ReadAllTextAsync(page);
        Assert.Contains("<strong>Verdict:</strong> Batching worked", html, StringComparison.Ordinal);
        Assert.Contains("class=\"bar s1\"", html, StringComparison.Ordinal); // before
        Assert.Contains("class=\"bar s2\"", html, StringComparison.Ordinal); // after, on the same chart
        Assert.Equal(1, html.Split("<svg").Length - 1);
        Assert.Contains("<td>median write size (B)</td><td class=\"n\">512 B</td><td class=\"n\">60.0 KB</td>", html, StringComparison.Ordinal);
    }

    [Fact]
    public void A_time_of_day_window_keeps_its_minutes_every_day_and_may_wrap_midnight()
    {
        Assert.True(TimeWindow.TryParse("23:30-00:30", "--w", out var window, out _));
        Assert.True(window.Contains(new DateTime(2026, 11, 22, 23, 45, 0, DateTimeKind.Utc).Ticks));
        Assert.True(window.Contains(new DateTime(2026, 11, 23, 0, 15, 0, DateTimeKind.Utc).Ticks));
        Assert.False(window.Contains(new DateTime(2026, 11, 23, 0, 30, 0, DateTimeKind.Utc).Ticks)); // the end is not in it
        Assert.False(window.Contains(new DateTime(2026, 11, 23, 12, 0, 0, DateTimeKind.Utc).Ticks));
        Assert.Equal(TimeSpan.FromHours(1), window.Length);
        Assert.True(TimeWindow.TryParse("2026-11-22T10:00:00Z/2026-11-22T10:30:00Z", "--w", out var range, out _));
        Assert.True(range.Contains(new DateTime(2026, 11, 22, 10, 0, 0, DateTimeKind.Utc).Ticks));
        Assert.False(range.Contains(new DateTime(2026, 11, 23, 10, 0, 0, DateTimeKind.Utc).Ticks)); // a range is one day's
    }

    private static void Flushes(XelWriter w, int count, TimeSpan every, uint size, double completeMs, long waitMs)
    {
        for (var i = 0; i < count; i++)
        {
            var t = Start + (every * i);
            var block = (ulong)(1000 + i);
            w.LogFlushStart(t, 5, "sales", size, block, (ulong)((3 * i) + 1));
            w.LogFlushComplete(t.AddMilliseconds(completeMs), 5, "sales", block, (ulong)completeMs, (ulong)((3 * i) + 2));
            if (waitMs > 0)
            {
                w.WaitCompleted(t.AddMilliseconds(completeMs), XelWriter.WriteLogKey, (ulong)waitMs, 5, (ulong)((3 * i) + 3), databaseName: "sales");
            }
        }
    }

    private string Record(string name, string scenario, SimulationOptions options, TimeSpan? duration = null)
    {
        var path = _files.PathOf(name);
        using var writer = new NdjsonSampleWriter(path);
        SimulationScenarios.Create(scenario, options).Run(Start, duration ?? TimeSpan.FromSeconds(120), writer);
        writer.Flush();
        return path;
    }

    private static Dictionary<string, (double? Before, double? After)> Figures(JsonElement db) =>
        db.GetProperty("figures").EnumerateArray().ToDictionary(
            x => x.GetProperty("name").GetString()!,
            x => (Number(x.GetProperty("before")), Number(x.GetProperty("after"))));

    private static double? Number(JsonElement e) => e.ValueKind == JsonValueKind.Number ? e.GetDouble() : null;

    private static List<string> Codes(JsonElement db) => [.. db.GetProperty("verdict").GetProperty("codes").EnumerateArray().Select(c => c.GetString()!)];
}
