using System.Buffers.Binary;
using System.Globalization;
using System.Text.Json;
using LogFlushMonitor.Analysis;
using LogFlushMonitor.Commands;
using LogFlushMonitor.XEvent.Binary;
using LogFlushMonitor.XEvent.TestSupport;

namespace LogFlushMonitor.Tests.Analyze;

/// <summary>
/// Issue 31 (hostile input, round 3), items 1 to 3 and the smaller NDJSON items: no impossible figure from any input.
/// An absurd value is a counted, named malformed event (the file is damaged, exit 4); sums saturate; no figure is
/// negative.
/// </summary>
public sealed class HostileInputTests : IDisposable
{
    private static readonly DateTime Start = AnalyzeTestFiles.Start;
    private readonly AnalyzeTestFiles _files = new();

    public void Dispose() => _files.Dispose();

    /// <summary>The shape of the fuzz findings: 4,000 events over 6 seconds of one database.</summary>
    private string SixSecondFile(string name, Action<XelWriter>? more = null) => _files.Write(name, w =>
    {
        for (var i = 0; i < 2000; i++)
        {
            var t = Start.AddTicks(i * 30_000L);
            w.LogFlushStart(t, 5, "sales", 512, (ulong)i + 1, (ulong)(2 * i) + 1);
            w.LogFlushComplete(t.AddTicks(5_000), 5, "sales", (ulong)i + 1, 1, (ulong)(2 * i) + 2);
        }

        more?.Invoke(w);
    });

    [Theory]
    [InlineData(1)]
    [InlineData(3)]
    public void An_overwritten_high_half_of_one_timestamp_is_a_named_malformed_event_and_the_time_range_stays(int threads)
    {
        var clean = SixSecondFile("clean.xel");
        var bytes = File.ReadAllBytes(clean);
        var positions = RecordPositions(clean);
        var victim = positions[1001]; // a log_flush_complete in the middle of the file
        // The high half of the clock ticks: the event reads as centuries later (the fuzz finding: 2255).
        BinaryPrimitives.WriteUInt32LittleEndian(bytes.AsSpan((int)victim + 12 + 4), 0x0000_8000);
        var path = _files.PathOf("mutated.xel");
        File.WriteAllBytes(path, bytes);

        var before = Analyze(threads, clean);
        var after = Analyze(threads, path);

        var file = Assert.Single(after.Files);
        Assert.Equal(FileStatus.Damaged, file.Status);
        Assert.Equal(AnalyzeOutcome.CorruptInput, after.Outcome);
        Assert.Equal(1, file.MalformedEvents);
        var m = Assert.Single(file.Malformed);
        Assert.Equal(victim, m.Offset);
        Assert.Contains("log_flush_complete timestamp", m.Problem, StringComparison.Ordinal);
        Assert.Contains("from the events of its buffer", m.Problem, StringComparison.Ordinal);
        var db = Assert.Single(after.Databases);
        Assert.Equal(before.Databases[0].LastEventUtc, db.LastEventUtc);
        Assert.Equal(before.Databases[0].FirstEventUtc, db.FirstEventUtc);
        Assert.True(db.FlushesPerSecond > 300, $"{db.FlushesPerSecond} flushes/s");
    }

    [Fact]
    public void A_wait_of_28_years_in_a_xel_file_is_malformed_not_900_million_seconds_in_a_window()
    {
        var path = SixSecondFile("wait.xel", w =>
        {
            for (var i = 0; i < 20; i++)
            {
                var ms = i == 10 ? (ulong)TimeSpan.FromDays(365.25 * 28).TotalMilliseconds : 5UL;
                w.WaitCompleted(Start.AddMilliseconds(5_000 + i), XelWriter.WriteLogKey, ms, 5, 4001UL + (ulong)i, databaseName: "sales");
            }
        });

        var report = Analyze(1, path);

        var file = Assert.Single(report.Files);
        Assert.Equal(FileStatus.Damaged, file.Status);
        Assert.Equal(1, file.MalformedEvents);
        Assert.Contains("wait_completed duration", Assert.Single(file.Malformed).Problem, StringComparison.Ordinal);
        var db = Assert.Single(report.Databases);
        Assert.Equal(19, db.WriteLog!.Count);
        Assert.Equal(5, db.WriteLog.MaxMs, 3);
        Assert.InRange(db.WriteLogBusiestWindow!.WaitSeconds, 0, 1);
    }

    [Fact]
    public void A_34_year_duration_field_of_a_complete_without_its_start_is_malformed_and_does_not_move_p50()
    {
        var path = _files.Write("unpaired.xel", w =>
        {
            for (var i = 0; i < 200; i++)
            {
                var ms = i == 100 ? (ulong)TimeSpan.FromDays(365.25 * 34).TotalMilliseconds : 2UL;
                w.LogFlushComplete(Start.AddMilliseconds(i * 10), 5, "sales", (ulong)i + 1, ms, (ulong)i + 1);
            }
        });

        var report = Analyze(1, path);

        var file = Assert.Single(report.Files);
        Assert.Equal(FileStatus.Damaged, file.Status);
        Assert.Contains("log_flush_complete duration", Assert.Single(file.Malformed).Problem, StringComparison.Ordinal);
        var d = Assert.Single(report.Databases).FlushDuration!;
        Assert.Equal(199, d.Count);
        Assert.InRange(d.MaxMs, 0, 2.2);
    }

    [Fact]
    public void A_loss_count_beyond_what_a_session_can_number_is_a_malformed_line_and_analyze_says_damaged()
    {
        var path = Recording("loss.ndjson",
            Flush(0),
            """{"type":"loss","instance":"sql1","kind":"sequence_gap","count":9223372036854775807}""",
            """{"type":"loss","instance":"sql1","kind":"sequence_gap","count":9223372036854775807}""",
            """{"type":"loss","instance":"sql1","kind":"sequence_gap","count":-5}""",
            """{"type":"loss","instance":"sql1","kind":"sequence_gap","count":7}""",
            Flush(1));

        var (code, json) = AnalyzeJson(path);

        Assert.Equal(ExitCodes.CorruptInput, code);
        var file = json.GetProperty("files")[0];
        Assert.Equal("damaged", file.GetProperty("status").GetString());
        Assert.Equal(3, file.GetProperty("malformed_events").GetInt64());
        Assert.Equal(7, file.GetProperty("events_lost").GetInt64());
        Assert.Equal(7, json.GetProperty("totals").GetProperty("events_lost").GetInt64());
        var first = file.GetProperty("malformed")[0];
        Assert.Contains("line 2: invalid field 'count': 9223372036854775807 is not a number of lost events", first.GetProperty("problem").GetString(), StringComparison.Ordinal);
        Assert.Equal(File.ReadAllLines(path)[0].Length + 1, first.GetProperty("offset").GetInt64());
    }

    [Fact]
    public void Loss_counts_at_the_bound_add_up_to_the_largest_count_not_a_negative_one()
    {
        // The reader's bound (NdjsonLineParser.MaxLossCount): 10 million events a second over 2000 to 2100.
        var max = (10_000_000L * (long)(new DateTime(2100, 1, 1) - new DateTime(2000, 1, 1)).TotalSeconds).ToString(CultureInfo.InvariantCulture);
        var lines = new List<string> { Flush(0) };
        lines.AddRange(Enumerable.Repeat($$"""{"type":"loss","instance":"sql1","kind":"sequence_gap","count":{{max}}}""", 300));
        var path = Recording("many.ndjson", [.. lines]);

        var (code, json) = AnalyzeJson(path);

        Assert.Equal(ExitCodes.Ok, code);
        Assert.Equal(long.MaxValue, json.GetProperty("totals").GetProperty("events_lost").GetInt64());
        Assert.Equal("ok", json.GetProperty("files")[0].GetProperty("status").GetString());
    }

    [Fact]
    public void A_recorded_wait_of_28_years_is_a_malformed_line_naming_the_bound()
    {
        var us = TimeSpan.FromDays(365.25 * 28).TotalMicroseconds.ToString("R", CultureInfo.InvariantCulture);
        var path = Recording("wait.ndjson",
            Flush(0),
            Wait(1, "5000"),
            Wait(2, us),
            Wait(3, "5000"),
            Flush(10));

        var (code, json) = AnalyzeJson(path);

        Assert.Equal(ExitCodes.CorruptInput, code);
        var file = json.GetProperty("files")[0];
        Assert.Equal("damaged", file.GetProperty("status").GetString());
        Assert.Equal(1, file.GetProperty("malformed_events").GetInt64());
        Assert.Contains("line 3: invalid field 'duration_us': ", file.GetProperty("malformed")[0].GetProperty("problem").GetString(), StringComparison.Ordinal);
        Assert.Contains("is more than a day", file.GetProperty("malformed")[0].GetProperty("problem").GetString(), StringComparison.Ordinal);
        var window = json.GetProperty("databases")[0].GetProperty("writelog_busiest_window");
        Assert.InRange(window.GetProperty("wait_seconds").GetDouble(), 0, 1);
    }

    [Fact]
    public void One_skipped_line_makes_a_recording_damaged_with_the_line_counted_not_corrupt_with_none()
    {
        var path = Recording("one-bad.ndjson", Flush(0), "{\"type\":\"flush\",\"t\":", Flush(1));

        var (code, json) = AnalyzeJson(path);

        Assert.Equal(ExitCodes.CorruptInput, code);
        var file = json.GetProperty("files")[0];
        Assert.Equal("damaged", file.GetProperty("status").GetString());
        Assert.Equal(1, file.GetProperty("malformed_events").GetInt64());
        Assert.Equal(1, json.GetProperty("totals").GetProperty("malformed_events").GetInt64());
        Assert.Equal(JsonValueKind.Null, file.GetProperty("error").ValueKind);
    }

    [Fact]
    public void A_file_with_no_valid_line_stays_corrupt()
    {
        var path = Recording("none.ndjson", "{\"type\":\"flush\"}", "{nope");

        var (code, json) = AnalyzeJson(path);

        Assert.Equal(ExitCodes.CorruptInput, code);
        Assert.Equal("corrupt", json.GetProperty("files")[0].GetProperty("status").GetString());
    }

    [Fact]
    public void The_busiest_window_sum_saturates_instead_of_wrapping_negative()
    {
        var windows = new WindowWaits(TimeSpan.FromSeconds(10));
        var t = Start.Ticks;
        // One huge wait clamped to the largest TimeSpan, then another: the sum wrapped to -2 ticks (-922,337,203,684.9 s).
        windows.Add(t, TimeSpan.MaxValue.Ticks);
        windows.Add(t + 1, TimeSpan.MaxValue.Ticks);

        var busiest = windows.Busiest(t, t + (TimeSpan.TicksPerSecond * 10))!;

        Assert.True(busiest.WaitSeconds > 0, $"{busiest.WaitSeconds}");
        Assert.Equal(long.MaxValue / (double)TimeSpan.TicksPerSecond, busiest.WaitSeconds, 3);

        var other = new WindowWaits(TimeSpan.FromSeconds(10));
        other.Add(t + 2, long.MaxValue);
        windows.AddFrom(other);
        Assert.Equal(long.MaxValue / (double)TimeSpan.TicksPerSecond, windows.Busiest(t, t + (TimeSpan.TicksPerSecond * 10))!.WaitSeconds, 3);
    }

    [Fact]
    public void A_database_name_with_escape_sequences_and_a_line_break_reaches_the_text_report_escaped()
    {
        // Clears the screen, sets the window title and forges a whole line of the report.
        const string Hostile = "evil\u001b]0;pwned\u0007\u001b[2J\r\nDatabase forged (id 1)\u202Eexe.txt";
        var name = JsonSerializer.Serialize(Hostile);
        var path = Recording("names.ndjson",
            $$"""{"type":"flush","t":"{{Start:O}}","instance":"sql1","db_id":5,"db":{{name}},"write_size":512}""",
            $$"""{"type":"flush","t":"{{Start.AddSeconds(1):O}}","instance":"sql1","db_id":5,"db":{{name}},"write_size":512}""");
        var stdout = new StringWriter();
        var stderr = new StringWriter();
        var settings = new AnalyzeSettings { Inputs = [path], Progress = ProgressMode.Never, Threads = 1 };

        AnalyzeRunner.Run(settings, ExitCodes.Of, stdout, stderr, CancellationToken.None);

        var text = stdout.ToString();
        Assert.DoesNotContain('\u001b', text);
        Assert.DoesNotContain('\u0007', text);
        Assert.DoesNotContain('\r', text);
        Assert.DoesNotContain('\u202E', text);
        Assert.DoesNotContain("\nDatabase forged", text, StringComparison.Ordinal);
        Assert.Contains("Database evil\\u001B]0;pwned\\u0007\\u001B[2J\\r\\nDatabase forged (id 1)\\u202Eexe.txt (id 5)", text, StringComparison.Ordinal);
    }

    private static string Flush(int second) =>
        $$"""{"type":"flush","t":"{{Start.AddSeconds(second):O}}","instance":"sql1","db_id":5,"db":"sales","write_size":512}""";

    private static string Wait(int second, string microseconds) =>
        $$"""{"type":"wait","t":"{{Start.AddSeconds(second):O}}","instance":"sql1","db_id":5,"db":"sales","wait_type":"WRITELOG","duration_us":{{microseconds}}}""";

    private string Recording(string name, params string[] lines)
    {
        var path = _files.PathOf(name);
        File.WriteAllText(path, string.Join("\n", lines) + "\n");
        return path;
    }

    private static List<long> RecordPositions(string path)
    {
        var positions = new List<long>();
        using var reader = XelReader.Open(path);
        while (reader.Read())
        {
            positions.Add(reader.Current.Position);
        }

        return positions;
    }

    private static AnalyzeReport Analyze(int threads, params string[] paths)
    {
        var settings = new AnalyzeSettings { Inputs = paths, Progress = ProgressMode.Never, Threads = threads };
        Assert.True(AnalyzeRunner.TryExpand(settings.Inputs, TextWriter.Null, out var groups));
        return AnalyzeRunner.Analyze(settings, groups, TextWriter.Null, CancellationToken.None);
    }

    private static (int Code, JsonElement Json) AnalyzeJson(string path)
    {
        var stdout = new StringWriter();
        var settings = new AnalyzeSettings { Inputs = [path], Progress = ProgressMode.Never, Threads = 1, Format = ReportFormat.Json };
        var code = AnalyzeRunner.Run(settings, ExitCodes.Of, stdout, TextWriter.Null, CancellationToken.None);
        return (code, JsonDocument.Parse(stdout.ToString()).RootElement.Clone());
    }
}
