using LogFlushMonitor.Analysis;
using LogFlushMonitor.Commands;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.XEvent.TestSupport;

namespace LogFlushMonitor.Tests.Analyze;

/// <summary>The parts of analyze that need no process: buckets, progress pacing, allocation per event.</summary>
public sealed class AnalyzeInProcessTests : IDisposable
{
    private readonly AnalyzeTestFiles _files = new();

    public void Dispose() => _files.Dispose();

    [Theory]
    [InlineData(0u, 0)]
    [InlineData(512u, 0)]
    [InlineData(513u, 1)]
    [InlineData(1024u, 1)]
    [InlineData(1025u, 2)]
    [InlineData(4096u, 3)]
    [InlineData(49152u, 7)]
    [InlineData(49153u, 8)]
    [InlineData(61440u, 8)]
    [InlineData(61441u, 9)]
    public void A_write_size_lands_in_its_sector_aligned_bucket(uint bytes, int bucket)
    {
        var sizes = new WriteSizeDistribution();
        sizes.Add(bytes);

        var counts = WriteSizeBuckets.Compute(sizes);

        Assert.Equal(WriteSizeBuckets.Count, counts.Length);
        Assert.Equal(1, counts[bucket]);
        Assert.Equal(1, counts.Sum());
    }

    [Fact]
    public void Progress_prints_every_five_percent_and_every_two_seconds()
    {
        var time = new ManualTimeProvider();
        var output = new StringWriter();
        var progress = new ProgressReporter(output, 1000, time);

        for (var i = 0; i < 100; i++)
        {
            progress.Advance(5); // 0.5 % each, no time passing
        }

        Assert.Equal(10, progress.Lines); // 50 % read: one line per 5 % step (50 bytes)

        progress.Advance(1);
        Assert.Equal(10, progress.Lines);
        time.Advance(TimeSpan.FromSeconds(2));
        progress.Advance(1);
        Assert.Equal(11, progress.Lines); // 2 s passed: a line although no 5 % step was crossed

        progress.Complete();
        Assert.Equal(11, progress.Lines); // the last line already said where reading ended

        progress.Advance(8);
        progress.Complete();
        var lines = output.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.Equal(12, lines.Length);
        Assert.StartsWith("analyze: 0.0 / 0.0 MB (5 %)", lines[0], StringComparison.Ordinal);
        Assert.Contains("(51 %)", lines[^1], StringComparison.Ordinal);
        Assert.EndsWith("MB/s", lines[^1].TrimEnd(), StringComparison.Ordinal);
    }

    [Fact]
    public void Progress_off_counts_bytes_and_prints_nothing()
    {
        var progress = new ProgressReporter(null, 1000, new ManualTimeProvider());

        progress.Advance(600);
        progress.Complete();

        Assert.Equal(600, progress.BytesRead);
        Assert.Equal(0, progress.Lines);
    }

    [Fact]
    public void Reading_four_times_the_events_allocates_no_more()
    {
        var small = WriteFile("small.xel", 50_000);
        var large = WriteFile("large.xel", 200_000);
        Run(small); // warm up: JIT, pools, first-seen names

        var before = GC.GetAllocatedBytesForCurrentThread();
        var smallReport = Run(small);
        var smallBytes = GC.GetAllocatedBytesForCurrentThread() - before;
        before = GC.GetAllocatedBytesForCurrentThread();
        var largeReport = Run(large);
        var largeBytes = GC.GetAllocatedBytesForCurrentThread() - before;

        Assert.Equal(50_000, smallReport.Databases.Sum(d => d.Flushes));
        Assert.Equal(200_000, largeReport.Databases.Sum(d => d.Flushes));

        // 150,000 more events: even one byte per event would show as 150 KB.
        Assert.True(largeBytes - smallBytes < 32 * 1024, $"small run {smallBytes:N0} B, large run {largeBytes:N0} B");
    }

    [Theory]
    [InlineData(false)] // analyze: the tally counts WRITELOG time by application
    [InlineData(true)] // report: the time series too
    public void Reading_four_times_the_waits_with_client_app_name_allocates_no_more(bool series)
    {
        // WRITELOG waits carrying client_app_name (names interned on first sight), with the report's time series or without.
        string WaitsFile(string name, int waits) => _files.Write(name, w =>
        {
            string[] apps = ["OrderService", "Billing", "ReportingJob", "", "sqlcmd", "Import", "Tiny"];
            ulong seq = 0;
            for (var i = 0; i < waits; i++)
            {
                var db = (uint)(5 + (i % 3));
                w.WaitCompleted(AnalyzeTestFiles.Start.AddTicks(i * 10L), XelWriter.WriteLogKey, 1, db, ++seq, databaseName: "db" + db, clientApp: apps[i / 5 % apps.Length]);
            }
        }, bufferSize: 64 * 1024);
        AnalyzeReport RunReport(string path) =>
            AnalyzeRunner.Analyze(new AnalyzeSettings { Inputs = [path], Progress = ProgressMode.Never, Threads = 1 }, [[path]], null, CancellationToken.None, series ? new TimeSeriesRecorder() : null);

        var small = WaitsFile("waits-small.xel", 50_000);
        var large = WaitsFile("waits-large.xel", 200_000);
        RunReport(small);

        var before = GC.GetAllocatedBytesForCurrentThread();
        var smallReport = RunReport(small);
        var smallBytes = GC.GetAllocatedBytesForCurrentThread() - before;
        before = GC.GetAllocatedBytesForCurrentThread();
        var largeReport = RunReport(large);
        var largeBytes = GC.GetAllocatedBytesForCurrentThread() - before;

        Assert.Equal(50_000, smallReport.Files.Sum(f => f.WriteLogWaits));
        Assert.Equal(200_000, largeReport.Files.Sum(f => f.WriteLogWaits));
        Assert.Equal(200_000, largeReport.Databases.Sum(d => d.WriteLogWaitsWithApplication)); // the action was read
        Assert.True(largeBytes - smallBytes < 32 * 1024, $"small run {smallBytes:N0} B, large run {largeBytes:N0} B");
    }

    [Fact]
    public void An_empty_folder_or_a_glob_matching_nothing_is_a_usage_error()
    {
        var empty = Path.Combine(_files.Directory, "empty");
        Directory.CreateDirectory(empty);
        var errors = new StringWriter();

        var ok = AnalyzeRunner.TryExpand([empty, Path.Combine(_files.Directory, "nothing*.xel")], errors, out _);

        Assert.False(ok);
        Assert.Contains($"input '{empty}': the folder holds no .xel file", errors.ToString(), StringComparison.Ordinal);
        Assert.Contains("nothing*.xel': no file matches this pattern", errors.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public void A_file_named_by_two_inputs_is_read_once()
    {
        var path = WriteFile("twice.xel", 1000);
        var roundabout = Path.Combine(_files.Directory, ".", "twice.xel");
        Assert.True(AnalyzeRunner.TryExpand([path, _files.Directory, roundabout], TextWriter.Null, out var groups));

        var report = AnalyzeRunner.Analyze(new AnalyzeSettings { Inputs = [path, _files.Directory, roundabout], Progress = ProgressMode.Never }, groups, null, CancellationToken.None);

        Assert.Single(report.Files);
        Assert.Equal(1000, report.Databases.Sum(d => d.Flushes));
    }

    [Theory]
    [InlineData(3000, 1)]
    [InlineData(8500, 2)]
    public void The_busiest_window_is_divided_by_the_time_the_events_cover_not_by_ten_seconds(int startMs, int threads)
    {
        // 1,000 WRITELOG waits of 10 ms over 2.5 s starting 3 s (or 8.5 s, across a window edge) into a 10 s window: 10 s
        // waited in 2.5 s is 4 s waiting per second over the whole span, and no 10 s window of it can show less.
        var start = AnalyzeTestFiles.Start.AddMilliseconds(startMs);
        var path = _files.Write("short.xel", w =>
        {
            for (var i = 0; i < 1000; i++)
            {
                w.WaitCompleted(start.AddTicks(TimeSpan.TicksPerSecond * 5 / 2 * i / 999), XelWriter.WriteLogKey, 10, 5, (ulong)i + 1, 0, "sales");
            }
        });

        var report = AnalyzeRunner.Analyze(new AnalyzeSettings { Inputs = [path], Progress = ProgressMode.Never, Threads = threads }, [[path]], null, CancellationToken.None);

        var db = Assert.Single(report.Databases);
        var average = db.WriteLog!.Count * db.WriteLog.MeanMs / 1000 / db.SpanSeconds;
        Assert.Equal(4.0, average, 2);
        var busiest = db.WriteLogBusiestWindow!;
        Assert.True(busiest.PressureSecondsPerSecond >= average - 1e-9, $"the busiest 10 s show {busiest.PressureSecondsPerSecond} s/s, the span {average} s/s");
        Assert.True(busiest.Span < TimeSpan.FromSeconds(10));
    }

    [Fact]
    public void Cancellation_stops_the_run()
    {
        var path = WriteFile("cancel.xel", 10_000);
        using var cts = new CancellationTokenSource();
        cts.Cancel();

        Assert.ThrowsAny<OperationCanceledException>(() =>
            AnalyzeRunner.Analyze(new AnalyzeSettings { Inputs = [path], Progress = ProgressMode.Never }, [[path]], null, cts.Token));
    }

    [Fact]
    public void An_unsupported_version_is_reported_with_its_offset_and_exit_4()
    {
        var good = WriteFile("good.xel", 500);
        var bytes = File.ReadAllBytes(good);
        bytes[4] = 99; // the file header's format version
        var future = Path.Combine(_files.Directory, "future.xel");
        File.WriteAllBytes(future, bytes);
        var stdout = new StringWriter();
        var stderr = new StringWriter();

        var code = AnalyzeRunner.Run(new AnalyzeSettings { Inputs = [good, future], Progress = ProgressMode.Never }, ExitCodes.Of, stdout, stderr, CancellationToken.None);

        Assert.Equal(4, code);
        Assert.Contains($"error: {future}: Unsupported file header version 99", stderr.ToString(), StringComparison.Ordinal);
        Assert.Contains("(byte offset 4)", stderr.ToString(), StringComparison.Ordinal);
        Assert.Contains("500 log_flush_start", stdout.ToString(), StringComparison.Ordinal); // the good file is still reported
        Assert.Contains("were counted, the other files were analysed.", stderr.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public void One_file_alone_that_cannot_be_read_speaks_of_no_other_files()
    {
        // Issue 35 item 7: `analyze` of one file said "the other files were analysed".
        var bytes = File.ReadAllBytes(WriteFile("alone-good.xel", 50));
        bytes[4] = 99;
        var alone = Path.Combine(_files.Directory, "alone.xel");
        File.WriteAllBytes(alone, bytes);
        var stderr = new StringWriter();

        var code = AnalyzeRunner.Run(new AnalyzeSettings { Inputs = [alone], Progress = ProgressMode.Never }, ExitCodes.Of, new StringWriter(), stderr, CancellationToken.None);

        Assert.Equal(4, code);
        var line = Assert.Single(stderr.ToString().Split('\n'), l => l.StartsWith($"error: {alone}: Unsupported file header version 99", StringComparison.Ordinal));
        Assert.EndsWith("(byte offset 4); 0 events before it were counted.", line.TrimEnd('\r'), StringComparison.Ordinal);
        Assert.DoesNotContain("other files", stderr.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public void A_file_without_log_flush_events_beside_one_with_them_is_described_and_the_run_succeeds()
    {
        var flushes = WriteFile("flushes.xel", 300);
        var waits = _files.Write("waits.xel", w =>
        {
            for (var i = 0; i < 25; i++)
            {
                w.WaitCompleted(AnalyzeTestFiles.Start.AddMilliseconds(i), 66, 2, 5, databaseName: "db5");
            }
        });
        var stdout = new StringWriter();

        var code = AnalyzeRunner.Run(new AnalyzeSettings { Inputs = [flushes, waits], Progress = ProgressMode.Never }, ExitCodes.Of, stdout, TextWriter.Null, CancellationToken.None);

        Assert.Equal(0, code);
        Assert.Contains("waits.xel holds no log_flush_start, log_flush_complete or WRITELOG wait events. It holds: 25 PAGEIOLATCH_SH waits (25 events in all).",
            stdout.ToString(), StringComparison.Ordinal);
        Assert.Equal(3, CountOccurrences(stdout.ToString(), "Database db")); // db5, db6, db7 from the flush file; no empty db5 from the waits
    }

    private static int CountOccurrences(string text, string what) => (text.Length - text.Replace(what, "", StringComparison.Ordinal).Length) / what.Length;

    private string WriteFile(string name, int flushes) => _files.Write(name, w =>
    {
        ulong seq = 0;
        for (var i = 0; i < flushes; i++)
        {
            var db = (uint)(5 + (i % 3));
            w.LogFlushStart(AnalyzeTestFiles.Start.AddTicks(i * 10L), db, "db" + db, 512, (ulong)i, ++seq);
        }
    }, bufferSize: 64 * 1024);

    // One thread: the per-event path (the same mapper and tally the workers run) is then on this thread, where
    // GC.GetAllocatedBytesForCurrentThread sees it.
    private static AnalyzeReport Run(string path) =>
        AnalyzeRunner.Analyze(new AnalyzeSettings { Inputs = [path], Progress = ProgressMode.Never, Threads = 1 }, [[path]], null, CancellationToken.None);
}
