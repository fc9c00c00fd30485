using System.Globalization;
using System.Text.Json;
using System.Text.RegularExpressions;
using LogFlushMonitor.Tests.Cli;
using LogFlushMonitor.XEvent.TestSupport;

namespace LogFlushMonitor.Tests.Analyze;

/// <summary>
/// `logflushmonitor analyze` on writer-made and real files, the whole command line run in this process
/// (<see cref="AnalyzeAsync"/>: the same code prints the same report, without starting a process each time).
/// </summary>
public sealed partial class AnalyzeCliTests : IDisposable
{
    private readonly AnalyzeTestFiles _files = new();

    public void Dispose() => _files.Dispose();

    [Fact]
    public async Task Autocommit_file_shows_bars_the_single_sector_share_and_advice()
    {
        var sizes = AnalyzeTestFiles.AutocommitSizes(2000);
        var path = _files.Write("autocommit.xel", w =>
        {
            ulong seq = 0;
            for (var i = 0; i < sizes.Count; i++)
            {
                w.LogFlushStart(AnalyzeTestFiles.Start.AddMilliseconds(i), 7, "sales", sizes[i], (ulong)i + 1, ++seq);
            }
        });

        var (code, stdout, stderr) = await AnalyzeAsync(path);

        Assert.True(code == 0, stderr);
        Assert.Contains("Database sales (id 7)", stdout, StringComparison.Ordinal);
        Assert.Contains("flushes: 2,000", stdout, StringComparison.Ordinal);
        var share = double.Parse(SingleSectorShare().Match(stdout).Groups[1].Value, CultureInfo.InvariantCulture);
        Assert.True(share >= 95, $"single-sector share {share} in {stdout}");
        Assert.Equal(98.0, share);

        // The ≤512 B bar is the long one: 98 % of 40 cells.
        var barLine = stdout.Split('\n').Single(l => l.Contains("≤512 B", StringComparison.Ordinal));
        Assert.Contains(new string('█', 39), barLine, StringComparison.Ordinal);
        Assert.Contains("1,960", barLine, StringComparison.Ordinal);
        Assert.Contains("98.0 %", barLine, StringComparison.Ordinal);
        Assert.Contains("98 % of flushes are 512 B", stdout, StringComparison.Ordinal);
        Assert.Contains("delayed durability", stdout, StringComparison.Ordinal);
        Assert.DoesNotContain("analyze:", stderr, StringComparison.Ordinal); // small input, redirected stderr: no progress
    }

    [Fact]
    public async Task Json_has_exact_counts_bytes_percentiles_waits_and_losses()
    {
        var rng = new Random(42);
        uint[] choices = [512, 512, 512, 1024, 3584, 8192, 20480, 49152, 61440, 70000];
        var sizes = new List<uint>();
        var flushUs = new List<ulong>();
        var writelogMs = new List<ulong>();
        DateTime first = default, last = default;
        var lost = 0L;
        var path = _files.Write("mixed.xel", w =>
        {
            ulong seq = 0;
            var t = AnalyzeTestFiles.Start.AddSeconds(1);
            first = t;
            for (var i = 0; i < 3000; i++)
            {
                var size = choices[rng.Next(choices.Length)];
                sizes.Add(size);
                w.LogFlushStart(t, 9, "orders", size, (ulong)i, ++seq);
                // The latency is the time from the start to the complete; the duration field holds whole
                // milliseconds, as a server writes it (0 for most of these).
                var us = (ulong)rng.Next(20, 20_000);
                flushUs.Add(us);
                var completed = t.AddTicks((long)us * 10);
                w.LogFlushComplete(completed, 9, "orders", (ulong)i, us / 1000, ++seq);
                last = completed > last ? completed : last;
                if (i % 3 == 0)
                {
                    var ms = (ulong)rng.Next(0, 40);
                    writelogMs.Add(ms);
                    w.WaitCompleted(t.AddTicks(7), XelWriter.WriteLogKey, ms, 9, ++seq, databaseName: "orders");
                    last = t.AddTicks(7) > last ? t.AddTicks(7) : last;
                }

                if (i % 10 == 0)
                {
                    // Not WRITELOG: counted as another wait, not in the WRITELOG figures.
                    w.WaitCompleted(t.AddTicks(8), 66, 3, 9, ++seq, databaseName: "orders");

                    // wait_info fires at the start and the end of a wait: only the end is a wait.
                    w.WaitInfo(t.AddTicks(9), XelWriter.WriteLogKey, 0, 0, 9, ++seq, databaseName: "orders");
                    var ms = (ulong)rng.Next(0, 40);
                    writelogMs.Add(ms);
                    w.WaitInfo(t.AddTicks(10), XelWriter.WriteLogKey, 1, ms, 9, ++seq, databaseName: "orders");
                    last = t.AddTicks(10) > last ? t.AddTicks(10) : last;
                }

                if (i % 500 == 499 && i < 2999)
                {
                    seq += 3; // three events the session dropped (a gap is only seen when an event follows it)
                    lost += 3;
                }

                t = t.AddMilliseconds(rng.Next(1, 5));
            }
        });

        var (code, stdout, stderr) = await AnalyzeAsync(path, "--format", "json");

        Assert.True(code == 0, stderr);
        using var doc = JsonDocument.Parse(stdout);
        var root = doc.RootElement;
        Assert.Equal(1, root.GetProperty("schema_version").GetInt32());
        Assert.Equal(0, root.GetProperty("exit_code").GetInt32());
        Assert.Equal(lost, root.GetProperty("totals").GetProperty("events_lost").GetInt64());
        var file = root.GetProperty("files")[0];
        Assert.Equal(300, file.GetProperty("other_waits").GetProperty("PAGEIOLATCH_SH").GetInt64());
        Assert.Equal(writelogMs.Count, file.GetProperty("writelog_waits").GetInt32());

        var db = Assert.Single(root.GetProperty("databases").EnumerateArray().ToList());
        Assert.Equal("orders", db.GetProperty("database").GetString());
        Assert.Equal(9, db.GetProperty("database_id").GetInt32());
        Assert.Equal(sizes.Count, db.GetProperty("flushes").GetInt64());
        Assert.Equal(sizes.Sum(s => (long)s), db.GetProperty("bytes").GetInt64());
        Assert.Equal(sizes.Count(s => s <= 512) / (double)sizes.Count, db.GetProperty("single_sector_share").GetDouble(), 12);
        Assert.Equal(sizes.Count(s => s == 61440) / (double)sizes.Count, db.GetProperty("full_block_share").GetDouble(), 12);

        long[] bounds = [512, 1024, 2048, 4096, 8192, 16384, 32768, 49152, 61440, long.MaxValue];
        var buckets = db.GetProperty("write_size_buckets").EnumerateArray().ToList();
        Assert.Equal(bounds.Length, buckets.Count);
        for (var b = 0; b < bounds.Length; b++)
        {
            var low = b == 0 ? -1 : bounds[b - 1];
            Assert.Equal(sizes.Count(s => s > low && s <= bounds[b]), buckets[b].GetProperty("count").GetInt64());
        }

        Assert.Equal(JsonValueKind.Null, buckets[^1].GetProperty("max_bytes").ValueKind);

        var flush = db.GetProperty("flush_duration_ms");
        Assert.Equal(flushUs.Count, flush.GetProperty("count").GetInt64());
        var flushMs = flushUs.Select(u => u / 1000.0).ToList();
        AssertQuantile(flushMs, 0.50, flush.GetProperty("p50").GetDouble());
        AssertQuantile(flushMs, 0.95, flush.GetProperty("p95").GetDouble());
        AssertQuantile(flushMs, 0.99, flush.GetProperty("p99").GetDouble());
        Assert.Equal(flushMs.Max(), flush.GetProperty("max").GetDouble(), 9);
        Assert.Equal(flushMs.Average(), flush.GetProperty("mean").GetDouble(), 6);

        var wl = db.GetProperty("writelog_wait_ms");
        Assert.Equal(writelogMs.Count, wl.GetProperty("count").GetInt64());
        Assert.Equal(writelogMs.Average(m => (double)m), wl.GetProperty("mean").GetDouble(), 6);
        AssertQuantile([.. writelogMs.Select(m => (double)m)], 0.95, wl.GetProperty("p95").GetDouble());

        Assert.Equal(first, db.GetProperty("first_event_utc").GetDateTime().ToUniversalTime());
        Assert.Equal(last, db.GetProperty("last_event_utc").GetDateTime().ToUniversalTime());
        Assert.Equal(sizes.Count / (last - first).TotalSeconds, db.GetProperty("flushes_per_second").GetDouble(), 6);
    }

    [Fact]
    public async Task Text_shows_flush_percentiles_writelog_waits_and_lost_events()
    {
        var path = _files.Write("small.xel", w =>
        {
            var t = AnalyzeTestFiles.Start;
            for (var i = 0; i < 100; i++)
            {
                // Completes without starts: their duration fields, 1..100 ms (milliseconds, as the description says):
                // p50 50 ms, p95 95 ms, p99 99 ms, max 100 ms, each within 10 %.
                w.LogFlushComplete(t.AddMilliseconds(i), 5, "hr", (ulong)i, (ulong)(i + 1), (ulong)(i < 50 ? i + 1 : i + 6));
                w.WaitCompleted(t.AddMilliseconds(i), XelWriter.WriteLogKey, 4, 5, databaseName: "hr");
            }
        });

        var (code, stdout, stderr) = await AnalyzeAsync(path);

        Assert.True(code == 0, stderr);
        Assert.Contains("no log_flush_start events", stdout, StringComparison.Ordinal);
        Assert.DoesNotContain("≤512 B", stdout, StringComparison.Ordinal);
        var m = FlushPercentiles().Match(stdout);
        Assert.True(m.Success, stdout);
        AssertWithin(50, m.Groups["p50"].Value);
        AssertWithin(95, m.Groups["p95"].Value);
        AssertWithin(99, m.Groups["p99"].Value);
        Assert.Equal("100", m.Groups["max"].Value);
        Assert.Contains("WRITELOG waits: 100, average 4 ms, p95 4 ms", stdout, StringComparison.Ordinal);
        Assert.Contains("events lost (event_sequence gaps): 5", stdout, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_rollover_set_is_read_in_order_from_a_folder_and_from_a_glob_and_totals_add_up()
    {
        // Ticks 9 then 10: numeric order, not the names' lexical order.
        ulong seq = 0;
        var first = _files.Write(Path.Combine("set", "session_0_9.xel"), w =>
        {
            for (var i = 0; i < 300; i++)
            {
                w.LogFlushStart(AnalyzeTestFiles.Start.AddMilliseconds(i), 6, "stock", 512, (ulong)i, ++seq);
            }
        });
        var second = _files.Write(Path.Combine("set", "session_0_10.xel"), w =>
        {
            seq += 2; // two events lost at the file boundary: counted only when the numbering continues across files
            for (var i = 0; i < 200; i++)
            {
                w.LogFlushStart(AnalyzeTestFiles.Start.AddSeconds(1).AddMilliseconds(i), 6, "stock", 61440, (ulong)(300 + i), ++seq);
            }
        });

        foreach (var input in new[] { _files.PathOf("set"), Path.Combine(_files.PathOf("set"), "session_0_*.xel") })
        {
            var (code, stdout, stderr) = await AnalyzeAsync(input, "--format", "json");
            Assert.True(code == 0, stderr);
            using var doc = JsonDocument.Parse(stdout);
            var files = doc.RootElement.GetProperty("files").EnumerateArray().Select(f => f.GetProperty("path").GetString()).ToList();
            Assert.Equal([first, second], files);
            var db = Assert.Single(doc.RootElement.GetProperty("databases").EnumerateArray().ToList());
            Assert.Equal(500, db.GetProperty("flushes").GetInt64());
            Assert.Equal((300 * 512L) + (200 * 61440L), db.GetProperty("bytes").GetInt64());
            Assert.Equal(200, db.GetProperty("write_size_buckets")[8].GetProperty("count").GetInt64());
            Assert.Equal(2, doc.RootElement.GetProperty("totals").GetProperty("events_lost").GetInt64());
        }
    }

    [SkippableFact]
    public async Task The_real_file_without_log_flush_events_names_what_it_holds_and_exits_3()
    {
        var real = RealFile();

        var (code, stdout, stderr) = await AnalyzeAsync(real);

        Assert.True(code == 3, stdout + stderr);
        Assert.Contains("TestXel_0.xel holds no log_flush_start, log_flush_complete or WRITELOG wait events", stdout, StringComparison.Ordinal);
        Assert.Matches(@"\d+ sqlserver\.rpc_completed", stdout);
        Assert.Contains("(149 events in all)", stdout, StringComparison.Ordinal);
        Assert.DoesNotContain("write size", stdout, StringComparison.Ordinal);
        Assert.DoesNotContain("█", stdout, StringComparison.Ordinal);

        var (jsonCode, json, jsonErr) = await AnalyzeAsync(real, "--format", "json");
        Assert.Equal(3, jsonCode);
        Assert.Contains("TestXel_0.xel holds no log_flush_start", jsonErr, StringComparison.Ordinal);
        using var doc = JsonDocument.Parse(json);
        var file = doc.RootElement.GetProperty("files")[0];
        Assert.Equal(149, file.GetProperty("events").GetInt64());
        Assert.Equal(149, file.GetProperty("other_events").EnumerateObject().Sum(p => p.Value.GetInt64()));
        Assert.True(file.GetProperty("other_events").GetProperty("sqlserver.rpc_completed").GetInt64() > 0);
        Assert.Empty(doc.RootElement.GetProperty("databases").EnumerateArray());
    }

    [Fact]
    public async Task Seconds_of_slow_commits_that_the_whole_file_dilutes_are_named_with_their_figures()
    {
        // 20 minutes: 3,000 WRITELOG waits of 2 ms a minute (0.1 s waiting per second), but 1,200 of 40 ms in the
        // minute from 08:10 (0.8 s/s), 200 in each of its 10 s windows. Over the file each commit waits 2.8 ms and the
        // p95 is 2 ms: the whole-file rules stay silent, and only the busiest 10 s (the first of six equal) show it.
        var path = _files.Write("spike.xel", w =>
        {
            ulong seq = 0;
            for (var minute = 0; minute < 20; minute++)
            {
                var (count, ms) = minute == 10 ? (1200, 40UL) : (3000, 2UL);
                for (var i = 0; i < count; i++)
                {
                    var t = AnalyzeTestFiles.Start.AddMinutes(minute).AddTicks(TimeSpan.TicksPerMinute * i / count);
                    w.WaitCompleted(t, XelWriter.WriteLogKey, ms, 5, ++seq, 0, "sales");
                }
            }
        }, bufferSize: 64 * 1024);

        var (code, text, stderr) = await AnalyzeAsync(path);
        Assert.True(code == 0, stderr);
        Assert.Contains("busiest WRITELOG 10 s: from 2026-11-22 08:10:00 UTC, 200 waits, average 40 ms, 0.8 s waiting per second", text, StringComparison.Ordinal);
        Assert.Contains("in the 10 s from 2026-11-22 08:10:00 UTC commits waited 40 ms each for the log (0.8 s waiting per second)", text, StringComparison.Ordinal);

        string? first = null;
        foreach (var threads in new[] { "1", "2" })
        {
            var (jsonCode, json, jsonErr) = await AnalyzeAsync(path, "--format", "json", "--threads", threads);
            Assert.True(jsonCode == 0, jsonErr);
            using var doc = JsonDocument.Parse(json);
            var db = doc.RootElement.GetProperty("databases").EnumerateArray().Single();
            var minute = db.GetProperty("writelog_busiest_window");
            Assert.Equal("2026-11-22T08:10:00.0000000Z", minute.GetProperty("start_utc").GetString());
            Assert.Equal(10, minute.GetProperty("seconds").GetDouble());
            Assert.Equal(200, minute.GetProperty("waits").GetInt64());
            Assert.Equal(8.0, minute.GetProperty("wait_seconds").GetDouble(), 9);
            Assert.Equal(0.8, minute.GetProperty("seconds_waiting_per_second").GetDouble(), 9);
            Assert.Equal(40.0, minute.GetProperty("mean_ms").GetDouble(), 9);
            var codes = db.GetProperty("advice").EnumerateArray().Select(a => a.GetProperty("code").GetString()).ToList();
            Assert.Equal(["writelog-spike"], codes);
            var withoutElapsed = ElapsedSeconds().Replace(json, "");
            first ??= withoutElapsed;
            Assert.Equal(first, withoutElapsed);
        }
    }

    [Fact]
    public async Task A_damaged_file_exits_4_naming_file_and_offset_a_cut_file_is_ok_with_its_tail_and_the_good_file_is_reported()
    {
        var good = _files.Write("good.xel", w =>
        {
            for (var i = 0; i < 400; i++)
            {
                w.LogFlushStart(AnalyzeTestFiles.Start.AddMilliseconds(i), 11, "gooddb", 512, (ulong)i);
            }
        });
        var source = _files.Write("source.xel", w =>
        {
            for (var i = 0; i < 400; i++)
            {
                w.LogFlushStart(AnalyzeTestFiles.Start.AddMilliseconds(i), 12, "otherdb", 4096, (ulong)i);
            }
        });
        var bytes = await File.ReadAllBytesAsync(source);

        // Cut inside the last buffer: a file still being written (or copied while it was) ends there.
        var truncated = _files.PathOf("truncated.xel");
        await File.WriteAllBytesAsync(truncated, bytes[..(bytes.Length - 700)]);

        // The second buffer (the first event buffer) claims a length far past the reader's limit.
        var corrupted = _files.PathOf("corrupted.xel");
        var copy = (byte[])bytes.Clone();
        var metadataLength = BitConverter.ToInt32(copy, 0x200 + 0x10);
        var badField = 0x200 + metadataLength + 0x10;
        BitConverter.GetBytes(0x7FFF_0000).CopyTo(copy, badField);
        await File.WriteAllBytesAsync(corrupted, copy);

        var (code, stdout, stderr) = await AnalyzeAsync(truncated, good, corrupted);

        Assert.True(code == 4, stdout + stderr);
        Assert.Contains($"error: {corrupted}: damaged:", stderr, StringComparison.Ordinal);
        Assert.Contains($"at byte offset {badField})", stderr, StringComparison.Ordinal);
        Assert.DoesNotContain($"error: {truncated}", stderr, StringComparison.Ordinal);
        Assert.Matches($@"ok +{Regex.Escape(truncated)} .*incomplete buffer", stdout);
        Assert.Contains("Database gooddb (id 11)", stdout, StringComparison.Ordinal);
        Assert.Contains("flushes: 400", stdout, StringComparison.Ordinal);

        var (jsonCode, json, _) = await AnalyzeAsync(truncated, good, corrupted, "--format", "json");
        Assert.Equal(4, jsonCode);
        using var doc = JsonDocument.Parse(json);
        var files = doc.RootElement.GetProperty("files");
        Assert.Equal(["ok", "ok", "damaged"], files.EnumerateArray().Select(f => f.GetProperty("status").GetString()).ToList());
        Assert.Equal("incomplete_buffer", files[0].GetProperty("tail").GetString());
        Assert.True(files[0].GetProperty("tail_bytes").GetInt64() > 0);
        Assert.Equal(badField, files[2].GetProperty("damage")[0].GetProperty("problem_offset").GetInt64());
        Assert.True(files[2].GetProperty("bytes_skipped").GetInt64() > 0);
        var gooddb = doc.RootElement.GetProperty("databases").EnumerateArray().Single(d => d.GetProperty("database").GetString() == "gooddb");
        Assert.Equal(400, gooddb.GetProperty("flushes").GetInt64());
    }

    [Fact]
    public async Task A_missing_path_exits_2_with_a_clear_message_and_no_report()
    {
        var good = _files.Write("good.xel", w => w.LogFlushStart(AnalyzeTestFiles.Start, 5, "a", 512, 1));
        var missing = _files.PathOf("does-not-exist.xel");

        var (code, stdout, stderr) = await InProcessCli.RunAsync("analyze", good, missing);

        Assert.Equal(2, code);
        Assert.Contains($"input '{missing}': no such file, folder or pattern", stderr, StringComparison.Ordinal);
        Assert.Equal("", stdout);
    }

    [Fact]
    public async Task An_unknown_format_exits_2()
    {
        var good = _files.Write("good.xel", w => w.LogFlushStart(AnalyzeTestFiles.Start, 5, "a", 512, 1));

        var (code, _, stderr) = await InProcessCli.RunAsync("analyze", good, "--format", "xml");

        Assert.Equal(2, code);
        Assert.Contains("--format 'xml'", stderr, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Progress_goes_to_stderr_and_json_alone_to_stdout()
    {
        var path = _files.Write("progress.xel", w =>
        {
            for (var i = 0; i < 20_000; i++)
            {
                w.LogFlushStart(AnalyzeTestFiles.Start.AddMilliseconds(i), 5, "a", 512, (ulong)i);
            }
        });

        var (code, stdout, stderr) = await InProcessCli.RunAsync("analyze", path, "--format", "json", "--progress", "always");

        Assert.True(code == 0, stderr);
        using var doc = JsonDocument.Parse(stdout); // nothing but the document on stdout
        Assert.Equal(20_000, doc.RootElement.GetProperty("totals").GetProperty("log_flush_start").GetInt64());
        var lines = stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.True(lines.Length >= 10, stderr);
        Assert.All(lines, l => Assert.Matches(@"^analyze: [\d,.]+ / [\d,.]+ MB \(\d+ %\), [\d,.]+ MB/s\s*$", l));
        Assert.Contains("(100 %)", lines[^1], StringComparison.Ordinal);
    }

    private static string RealFile() => TestData.RealXelFile;

    /// <summary><c>logflushmonitor analyze ARGS</c>, the whole command line in this process (stdout and stderr are not a terminal: plain text, progress only on large inputs).</summary>
    private static Task<(int ExitCode, string StdOut, string StdErr)> AnalyzeAsync(params string[] args) => InProcessCli.RunAsync(["analyze", .. args]);

    /// <summary>The reported percentile is the true one rounded up to its 10 %-wide bucket.</summary>
    private static void AssertQuantile(List<double> values, double q, double reported)
    {
        var sorted = values.Order().ToList();
        var truth = sorted[(int)Math.Ceiling(q * sorted.Count) - 1];
        Assert.InRange(reported, truth - 1e-9, (truth * 1.1) + 1e-9);
    }

    private static void AssertWithin(double truth, string reported)
    {
        var v = double.Parse(reported, CultureInfo.InvariantCulture);
        Assert.InRange(v, truth, truth * 1.1);
    }

    [GeneratedRegex(@"single-sector \(512 B\) flushes: (\d+\.\d) %")]
    private static partial Regex SingleSectorShare();

    [GeneratedRegex(@"flush duration \(100 log_flush_complete\): p50 (?<p50>[\d.]+) ms, p95 (?<p95>[\d.]+) ms, p99 (?<p99>[\d.]+) ms, max (?<max>[\d.]+) ms")]
    private static partial Regex FlushPercentiles();

    [GeneratedRegex(@"""elapsed_seconds"": [0-9.eE+-]+,?")]
    private static partial Regex ElapsedSeconds();
}
