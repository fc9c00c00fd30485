using System.Text.Json;
using LogFlushMonitor.Analysis;
using LogFlushMonitor.Analysis.Commands;
using LogFlushMonitor.Commands;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.XEvents;
using LogFlushMonitor.XEvent.Binary;
using LogFlushMonitor.XEvent.Metadata;
using LogFlushMonitor.XEvent.TestSupport;

namespace LogFlushMonitor.Tests.Analyze;

/// <summary>
/// analyze and report on every core: the same report, to the last digit, as on one thread; malformed events, damage,
/// skipped entries and cancellation.
/// </summary>
public sealed class AnalyzeParallelTests : IDisposable
{
    private readonly AnalyzeTestFiles _files = new();

    public void Dispose() => _files.Dispose();

    [Theory]
    [InlineData(2)]
    [InlineData(4)]
    [InlineData(7)]
    public void A_rollover_set_gives_the_same_text_and_json_on_every_core_as_on_one_thread(int threads)
    {
        var set = WriteRolloverSet();
        string[] folder = [Path.GetDirectoryName(set[0])!]; // one input: the set's numbering continues across its files

        var (oneJson, oneCode) = RunJson(folder, 1);
        var (manyJson, manyCode) = RunJson(folder, threads);

        Assert.Equal(oneJson, manyJson);
        Assert.Equal(oneCode, manyCode);
        Assert.Equal(RunText(folder, 1), RunText(folder, threads));

        // The comparison is about something: several databases, every kind of figure, losses across files.
        using var doc = JsonDocument.Parse(oneJson);
        var root = doc.RootElement;
        Assert.Equal(4, root.GetProperty("totals").GetProperty("files").GetInt32());
        Assert.True(root.GetProperty("totals").GetProperty("events_lost").GetInt64() >= 4);
        var dbs = root.GetProperty("databases").EnumerateArray().ToList();
        Assert.Equal(["id:9", "loader", "sales", "stock"], dbs.Select(d => d.GetProperty("database").GetString()).Order(StringComparer.Ordinal).ToList());
        Assert.All(dbs.Take(2), d => Assert.NotEqual(JsonValueKind.Null, d.GetProperty("flush_duration_ms").ValueKind));
        Assert.Contains(dbs, d => d.GetProperty("writelog_wait_ms").ValueKind == JsonValueKind.Object);
        Assert.Equal(0, oneCode);
    }

    [Fact]
    public void The_real_file_gives_the_same_report_on_every_core_as_on_one_thread()
    {
        var real = TestData.RealXelFile;

        var (one, oneCode) = RunJson([real], 1);
        var (many, manyCode) = RunJson([real], 4);

        Assert.Equal(one, many);
        Assert.Equal(3, oneCode);
        Assert.Equal(3, manyCode);
        Assert.Contains("\"events\": 149", one, StringComparison.Ordinal);
        Assert.Equal(RunText([real], 1), RunText([real], 4));
    }

    [Fact]
    public void The_html_report_is_the_same_on_every_core_as_on_one_thread()
    {
        var set = WriteRolloverSet();

        string[] folder = [Path.GetDirectoryName(set[0])!];

        var one = RunReport(folder, 1);
        var many = RunReport(folder, 4);

        Assert.Equal(one, many);
        Assert.Contains("stock", one, StringComparison.Ordinal);
    }

    [Fact]
    public void The_lean_mapper_counts_what_the_live_mapper_and_aggregator_count()
    {
        var set = WriteRolloverSet();

        // The service's path: the full mapper into the live aggregation, one file after the other.
        var aggregator = new LogFlushAggregator();
        var mapper = new XEventSampleMapper(AnalyzeRunner.InstanceName, aggregator);
        using (var reader = XelReader.Open(set))
        {
            reader.ReadAll(ref mapper);
        }

        var expected = aggregator.Snapshot().Where(d => d.WriteSizes.Count + d.FlushDurations.Count + d.Waits.Sum(w => w.WaitType == "WRITELOG" ? w.Count : 0) > 0)
            .ToDictionary(d => d.DatabaseId);
        var report = AnalyzeRunner.Analyze(Settings(set, 4), [set], null, CancellationToken.None);

        Assert.Equal(expected.Count, report.Databases.Count);
        foreach (var db in report.Databases)
        {
            var e = expected[db.DatabaseId];
            Assert.Equal(e.Database, db.Database);
            Assert.Equal(e.WriteSizes.Count, db.Flushes);
            Assert.Equal(e.WriteSizes.TotalBytes, db.Bytes);
            Assert.Equal(WriteSizeBuckets.Compute(e.WriteSizes), db.Buckets);
            Assert.Equal(e.FlushDurations.Count, db.FlushDuration?.Count ?? 0);
            if (db.FlushDuration is { } d)
            {
                Assert.Equal(e.FlushDurations.MeanSeconds * 1000, d.MeanMs, 9);
                Assert.Equal(e.FlushDurations.Quantile(0.95) * 1000, d.P95Ms);
            }

            var writelog = e.Waits.SingleOrDefault(w => w.WaitType == "WRITELOG");
            Assert.Equal(writelog?.Count ?? 0, db.WriteLog?.Count ?? 0);
            Assert.Equal(e.FirstEventUtc, db.FirstEventUtc);
            Assert.Equal(e.LastEventUtc, db.LastEventUtc);
        }
    }

    [Theory]
    [InlineData(1)]
    [InlineData(4)]
    public void A_database_id_out_of_range_is_counted_as_malformed_with_its_offset_and_the_good_file_is_still_reported(int threads)
    {
        var good = _files.Write("good.xel", w =>
        {
            for (var i = 0; i < 300; i++)
            {
                w.LogFlushStart(AnalyzeTestFiles.Start.AddMilliseconds(i), 11, "gooddb", 512, (ulong)i);
            }
        });
        var flipped = _files.Write("flipped.xel", w =>
        {
            for (var i = 0; i < 300; i++)
            {
                // One flipped bit in the middle: database_id 2,000,000; and one negative after a flip of the sign bit.
                var id = i switch { 100 => 2_000_000u, 200 => 0x8000_000Cu, _ => 12u };
                w.LogFlushStart(AnalyzeTestFiles.Start.AddMilliseconds(i), id, "otherdb", 4096, (ulong)i);
            }
        }, bufferSize: 4096);
        var offsets = OffsetsOfDatabaseIds(flipped, 2_000_000, 0x8000_000C);
        var stdout = new StringWriter();
        var stderr = new StringWriter();

        var code = AnalyzeRunner.Run(Settings([good, flipped], threads) with { Format = ReportFormat.Json }, ExitCodes.Of, stdout, stderr, CancellationToken.None);

        Assert.Equal(ExitCodes.CorruptInput, code);
        using var doc = JsonDocument.Parse(stdout.ToString());
        var file = doc.RootElement.GetProperty("files")[1];
        Assert.Equal("damaged", file.GetProperty("status").GetString());
        Assert.Equal(2, file.GetProperty("malformed_events").GetInt64());
        Assert.Equal(298, file.GetProperty("log_flush_start").GetInt64());
        var malformed = file.GetProperty("malformed").EnumerateArray().ToList();
        Assert.Equal(offsets, malformed.Select(m => m.GetProperty("offset").GetInt64()).ToList());
        Assert.Contains("database_id 2000000 is out of range (0 to 32767)", malformed[0].GetProperty("problem").GetString(), StringComparison.Ordinal);
        Assert.Contains("database_id 2147483660 is out of range", malformed[1].GetProperty("problem").GetString(), StringComparison.Ordinal);
        var dbs = doc.RootElement.GetProperty("databases").EnumerateArray().ToDictionary(d => d.GetProperty("database").GetString()!, d => d.GetProperty("flushes").GetInt64());
        Assert.Equal(300, dbs["gooddb"]);
        Assert.Equal(298, dbs["otherdb"]);
        Assert.Equal(2, doc.RootElement.GetProperty("totals").GetProperty("malformed_events").GetInt64());
        Assert.Contains($"error: {flipped}: damaged: 2 malformed event(s) skipped, the first at byte offset {offsets[0]}: log_flush_start database_id 2000000", stderr.ToString(), StringComparison.Ordinal);

        var text = new StringWriter();
        AnalyzeRunner.Run(Settings([good, flipped], threads), ExitCodes.Of, text, TextWriter.Null, CancellationToken.None);
        Assert.Contains($"damaged  {flipped}", text.ToString(), StringComparison.Ordinal);
        Assert.Contains($"the first at byte offset {offsets[0]}", text.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public void A_negative_signed_database_id_is_malformed_too()
    {
        var path = Path.Combine(_files.Directory, "signed.xel");
        using (var fs = new FileStream(path, FileMode.Create, FileAccess.Write))
        using (var w = new XelWriter(fs, AnalyzeTestFiles.Start, new XelWriterOptions { BufferSize = 8192, DatabaseIdType = XEventBaseType.Int32 }))
        {
            for (var i = 0; i < 50; i++)
            {
                w.LogFlushStart(AnalyzeTestFiles.Start.AddMilliseconds(i), i == 25 ? unchecked((uint)-3) : 5u, null, 512, (ulong)i);
            }

            w.Flush();
        }

        var report = AnalyzeRunner.Analyze(Settings([path], 2), [[path]], null, CancellationToken.None);

        var file = Assert.Single(report.Files);
        Assert.Equal(FileStatus.Damaged, file.Status);
        Assert.Equal(1, file.MalformedEvents);
        Assert.Contains("is out of range", file.Malformed[0].Problem, StringComparison.Ordinal);
        Assert.Equal(49, Assert.Single(report.Databases).Flushes);
        Assert.Equal(AnalyzeOutcome.CorruptInput, report.Outcome);
    }

    [Theory]
    [InlineData(1)]
    [InlineData(3)]
    public void Zeroed_bytes_mid_file_make_it_damaged_with_the_bytes_skipped_in_text_json_and_the_report(int threads)
    {
        var source = _files.Write("source.xel", w =>
        {
            for (var i = 0; i < 2000; i++)
            {
                w.LogFlushStart(AnalyzeTestFiles.Start.AddMilliseconds(i), 7, "sales", 512, (ulong)i);
            }
        }, bufferSize: 8192);
        var bytes = File.ReadAllBytes(source);
        var metadataLength = BitConverter.ToInt32(bytes, 0x200 + 0x10);
        var secondEventBuffer = 0x200 + metadataLength + 8192;
        Array.Clear(bytes, secondEventBuffer, 512);
        var damaged = _files.PathOf("damaged.xel");
        File.WriteAllBytes(damaged, bytes);
        File.Delete(source);
        var json = new StringWriter();
        var stderr = new StringWriter();

        var code = AnalyzeRunner.Run(Settings([damaged], threads) with { Format = ReportFormat.Json }, ExitCodes.Of, json, stderr, CancellationToken.None);

        Assert.Equal(ExitCodes.CorruptInput, code);
        using var doc = JsonDocument.Parse(json.ToString());
        var file = doc.RootElement.GetProperty("files")[0];
        Assert.Equal("damaged", file.GetProperty("status").GetString());
        Assert.Equal(8192, file.GetProperty("bytes_skipped").GetInt64());
        Assert.Equal(secondEventBuffer, file.GetProperty("damage")[0].GetProperty("offset").GetInt64());
        var flushes = file.GetProperty("log_flush_start").GetInt64();
        Assert.InRange(flushes, 1000, 1999); // the events after the damage count too
        Assert.Contains($"error: {damaged}: damaged: 8,192 bytes skipped in 1 range(s), the first 8,192 bytes at byte offset {secondEventBuffer}", stderr.ToString(), StringComparison.Ordinal);

        var text = new StringWriter();
        AnalyzeRunner.Run(Settings([damaged], threads), ExitCodes.Of, text, TextWriter.Null, CancellationToken.None);
        Assert.Contains($"damaged  {damaged}", text.ToString(), StringComparison.Ordinal);
        Assert.Contains("8,192 bytes skipped", text.ToString(), StringComparison.Ordinal);

        var page = RunReport([damaged], threads);
        Assert.Contains("<td class=\"bad\">damaged</td>", page, StringComparison.Ordinal);
        Assert.Contains($"8,192 bytes skipped in 1 range(s), the first 8,192 bytes at byte offset {secondEventBuffer}", page, StringComparison.Ordinal);
    }

    [SkippableFact]
    public void A_named_pipe_in_a_folder_is_skipped_with_a_message_and_the_files_beside_it_are_read()
    {
        Skip.IfNot(OperatingSystem.IsLinux() || OperatingSystem.IsMacOS(), "named pipes are made with mkfifo");
        var folder = Path.Combine(_files.Directory, "set");
        Directory.CreateDirectory(folder);
        var good = _files.Write(Path.Combine("set", "good.xel"), w => w.LogFlushStart(AnalyzeTestFiles.Start, 5, "a", 512, 1));
        var fifo = Path.Combine(folder, "pipe.xel");
        using (var mkfifo = System.Diagnostics.Process.Start("mkfifo", [fifo]))
        {
            mkfifo.WaitForExit();
            Assert.Equal(0, mkfifo.ExitCode);
        }

        var json = new StringWriter();
        var stderr = new StringWriter();

        // Opening the pipe would block forever: the run must end (xunit would hang otherwise).
        var code = AnalyzeRunner.Run(Settings([folder], 2) with { Format = ReportFormat.Json }, ExitCodes.Of, json, stderr, CancellationToken.None);

        Assert.Equal(0, code);
        Assert.Contains($"warning: {fifo} is a named pipe (FIFO), not a regular file: skipped.", stderr.ToString(), StringComparison.Ordinal);
        using var doc = JsonDocument.Parse(json.ToString());
        var skipped = Assert.Single(doc.RootElement.GetProperty("skipped").EnumerateArray());
        Assert.Equal(fifo, skipped.GetProperty("path").GetString());
        Assert.Equal(good, Assert.Single(doc.RootElement.GetProperty("files").EnumerateArray()).GetProperty("path").GetString());

        var text = new StringWriter();
        AnalyzeRunner.Run(Settings([folder], 1), ExitCodes.Of, text, TextWriter.Null, CancellationToken.None);
        Assert.Contains($"skipped  {fifo} is a named pipe (FIFO)", text.ToString(), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(1)]
    [InlineData(4)]
    public void Cancelling_mid_run_stops_reading(int threads)
    {
        var path = _files.Write("big.xel", w =>
        {
            for (var i = 0; i < 200_000; i++)
            {
                w.LogFlushStart(AnalyzeTestFiles.Start.AddTicks(i * 10L), 5, "db", 512, (ulong)i);
            }
        }, bufferSize: 64 * 1024);
        using var cts = new CancellationTokenSource();

        // The first progress line cancels: reading is under way, far from the end.
        var progress = new CancellingWriter(cts);
        var settings = Settings([path], threads) with { Progress = ProgressMode.Always };

        Assert.ThrowsAny<OperationCanceledException>(() => AnalyzeRunner.Analyze(settings, [[path]], progress, cts.Token));
        Assert.True(progress.Lines >= 1);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(-1)]
    [InlineData(1000)]
    public void A_thread_count_out_of_range_is_a_usage_error(int threads) =>
        Assert.Contains("--threads", AnalyzeCommand.ThreadsProblem(threads), StringComparison.Ordinal);

    private static AnalyzeSettings Settings(IReadOnlyList<string> inputs, int threads) => new()
    {
        Inputs = inputs,
        Progress = ProgressMode.Never,
        Threads = threads,
        Time = new ManualTimeProvider(new DateTimeOffset(2026, 11, 23, 12, 0, 0, TimeSpan.Zero)),
    };

    private static (string Json, int Code) RunJson(IReadOnlyList<string> inputs, int threads)
    {
        var stdout = new StringWriter();
        var code = AnalyzeRunner.Run(Settings(inputs, threads) with { Format = ReportFormat.Json }, ExitCodes.Of, stdout, TextWriter.Null, CancellationToken.None);
        return (stdout.ToString(), code);
    }

    private static string RunText(IReadOnlyList<string> inputs, int threads)
    {
        var stdout = new StringWriter();
        AnalyzeRunner.Run(Settings(inputs, threads), ExitCodes.Of, stdout, TextWriter.Null, CancellationToken.None);
        return stdout.ToString();
    }

    private string RunReport(IReadOnlyList<string> inputs, int threads)
    {
        var page = new FileInfo(Path.Combine(_files.Directory, $"report-{threads}-{Guid.NewGuid():N}.html"));
        ReportCommand.Run(Settings(inputs, threads), page, TextWriter.Null, TextWriter.Null, CancellationToken.None);
        return File.ReadAllText(page.FullName);
    }

    /// <summary>The byte offsets of the log_flush_start records carrying these database ids, in file order.</summary>
    private static List<long> OffsetsOfDatabaseIds(string path, params uint[] ids)
    {
        var offsets = new List<long>();
        using var reader = XelReader.Open(path);
        while (reader.Read())
        {
            var r = reader.Current;
            if (r.TryGetField("database_id", out var v) && v.TryGetUInt64(out var id) && ids.Contains((uint)id))
            {
                offsets.Add(r.Position);
            }
        }

        return offsets;
    }

    /// <summary>
    /// Four files of one session's rollover set: small buffers (so every file has many for the workers to share),
    /// metadata re-sent, three named databases (one named only from its second event on), one without names, WRITELOG
    /// waits from wait_completed and wait_info, other waits, and event_sequence gaps inside and across files.
    /// </summary>
    private List<string> WriteRolloverSet()
    {
        var paths = new List<string>();
        var rng = new Random(7);
        ulong seq = 0;
        var t = AnalyzeTestFiles.Start;
        for (var f = 0; f < 4; f++)
        {
            var name = Path.Combine("set", $"logflush_0_{133_000_000_000_000_000L + (f * 1000)}.xel");
            paths.Add(_files.Write(name, w =>
            {
                for (var i = 0; i < 6000; i++)
                {
                    t = t.AddTicks(rng.Next(1, 20_000));
                    var db = (uint)rng.Next(5, 10);
                    string? dbName = db switch
                    {
                        5 => "sales",
                        6 => "stock",
                        7 => f == 0 && i < 50 ? null : "loader",
                        8 => "reporting",
                        _ => null,
                    };
                    if (db == 8)
                    {
                        // Only other waits: named, but not a database of the report.
                        w.WaitCompleted(t, 66, (ulong)rng.Next(0, 5), db, ++seq, databaseName: dbName);
                        continue;
                    }

                    var size = db == 7 ? (uint)rng.Next(1, 121) * 512 : (rng.Next(40) == 0 ? 1024u : 512u);
                    w.LogFlushStart(t, db, dbName, size, seq, ++seq);
                    if (db != 9)
                    {
                        w.LogFlushComplete(t.AddTicks(300), db, dbName, seq, (ulong)rng.Next(40, 5000), ++seq);
                    }

                    switch (rng.Next(6))
                    {
                        case 0:
                            w.WaitCompleted(t.AddTicks(400), XelWriter.WriteLogKey, (ulong)rng.Next(0, 30), db, ++seq, databaseName: dbName);
                            break;
                        case 1:
                            w.WaitInfo(t.AddTicks(400), XelWriter.WriteLogKey, 0, 0, db, ++seq, databaseName: dbName);
                            w.WaitInfo(t.AddTicks(500), XelWriter.WriteLogKey, 1, (ulong)rng.Next(0, 30), db, ++seq, databaseName: dbName);
                            break;
                    }

                    if (rng.Next(2500) == 0)
                    {
                        seq += 3;
                    }
                }

                seq += 1; // a gap at the file boundary too
            }, bufferSize: 4096));
        }

        return paths;
    }

    private sealed class CancellingWriter(CancellationTokenSource cts) : StringWriter
    {
        public int Lines { get; private set; }

        public override void WriteLine(string? value)
        {
            Lines++;
            cts.Cancel();
        }
    }
}
