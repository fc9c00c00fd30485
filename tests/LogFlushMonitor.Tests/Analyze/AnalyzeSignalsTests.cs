using System.Globalization;
using System.Text;
using System.Text.Json;
using LogFlushMonitor.Core.Signals;
using LogFlushMonitor.Tests.Cli;

namespace LogFlushMonitor.Tests.Analyze;

/// <summary>
/// What <c>analyze</c> shows of each polled signal in a recording (issue 29: every unit owns its view). The recording is
/// written here line by line with round figures, and every expected value is worked out by hand in the comments, never by
/// the code under test.
/// </summary>
public sealed class AnalyzeSignalsTests : IDisposable
{
    private readonly AnalyzeTestFiles _files = new();

    public void Dispose() => _files.Dispose();

    [Fact]
    public void Every_recorded_signal_has_a_view()
    {
        foreach (var signal in SignalRegistry.All.Where(s => s.Recording is not null))
        {
            Assert.True(signal.NewView() is not null, $"{signal.Name} is recorded but analyze would show nothing of it");
        }
    }

    [Fact]
    public async Task Analyze_shows_each_polled_signal_of_a_recording_with_its_figures()
    {
        var path = _files.PathOf("polled.ndjson");
        await File.WriteAllTextAsync(path, Recording());

        var (code, stdout, stderr) = await InProcessCli.RunAsync("analyze", path, "--format", "json");

        Assert.True(code == 3, $"a recording without flush events exits 3 (no relevant events): {code} {stderr}");
        using var doc = JsonDocument.Parse(stdout);
        var signals = doc.RootElement.GetProperty("signals").EnumerateArray().ToDictionary(s => s.GetProperty("signal").GetString()!);

        // Log Flushes/sec 1,000 -> 2,000 -> 300 (a restart: +300): 1,300 flushes in 20 s = 65/s. Bytes 4,096,000 ->
        // 8,192,000 -> 1,228,800: 5,324,800 in 20 s = 266,240 B/s, 4,096 B per flush. Waits 500 -> 700 -> 60: 260 in
        // 20 s = 13/s; wait time 250 -> 650 -> 120: 520 ms over 260 waits = 2 ms. Percent Log Used last 50; 1 restart.
        var orders = Row(signals["counters"], "database", "orders");
        Assert.Equal(65, orders["flushes"].GetDouble(), 6);
        Assert.Equal(266_240, orders["bytes flushed"].GetDouble(), 6);
        Assert.Equal(4_096, orders["bytes per flush"].GetDouble(), 6);
        Assert.Equal(13, orders["commits waiting"].GetDouble(), 6);
        Assert.Equal(2, orders["wait per waiting commit"].GetDouble(), 6);
        Assert.Equal(50, orders["log used"].GetInt64());
        Assert.Equal(1, orders["restarts"].GetInt64());
        Assert.Contains(signals["counters"].GetProperty("notes").EnumerateArray(), n => n.GetString()!.Contains("1 other counter(s)", StringComparison.Ordinal));

        // WRITELOG waiting_tasks 100 -> 150 in 10 s = 5/s, 50 waits; wait_time_ms 300 -> 400: 100 ms / 50 = 2 ms;
        // signal 30 -> 40: 10 of 100 ms = 10 %; the last max_wait_time_ms 7.
        var writelog = Row(signals["waits"], "wait type", "WRITELOG");
        Assert.Equal(5, writelog["waits"].GetDouble(), 6);
        Assert.Equal(50, writelog["waits over the recording"].GetInt64());
        Assert.Equal(2, writelog["wait per wait"].GetDouble(), 6);
        Assert.Equal(10, writelog["signal wait share"].GetDouble(), 6);
        Assert.Equal(7, writelog["longest wait (last poll)"].GetInt64());

        // num_of_writes 1,000 -> 1,500 in 10 s = 50/s; bytes 4,096,000 -> 5,120,000 = 102,400 B/s and 2,048 B per write;
        // io_stall_write_ms 500 -> 1,500: 1,000 ms over 500 writes = 2 ms.
        var log = Row(signals["file_stats"], "database", "orders");
        Assert.Equal(50, log["writes"].GetDouble(), 6);
        Assert.Equal(102_400, log["bytes written"].GetDouble(), 6);
        Assert.Equal(2_048, log["bytes per write"].GetDouble(), 6);
        Assert.Equal(2, log["stall per write"].GetDouble(), 6);

        // A new start time at the third poll.
        var start = Row(signals["start_time"], "instance", "sql1");
        Assert.Equal(1, start["restarts seen"].GetInt64());
        Assert.Equal("2026-11-22T08:00:15.0000000Z", start["last start"].GetString());

        // Sessions 0, 3, 1 at the three polls; the longest wait 1,200 ms.
        var waiting = Row(signals["writelog_waiters"], "database", "orders");
        Assert.Equal(3, waiting["polls"].GetInt64());
        Assert.Equal(2, waiting["polls with a waiter"].GetInt64());
        Assert.Equal(3, waiting["most sessions waiting"].GetInt64());
        Assert.Equal(1_200, waiting["longest wait"].GetInt64());

        var writer = Row(signals["log_writers"], "application", "Loader");
        Assert.Equal(5_000, writer["most log used"].GetInt64());
        Assert.Equal(6_000, writer["most log reserved"].GetInt64());
        Assert.Equal(2, writer["most open transactions"].GetInt64());

        // The synchronous secondary was SYNCHRONIZING at one of its two polls; its largest send queue 90 KB, lag 4 s.
        var replica = Row(signals["hadr_replicas"], "replica", "sql1-b");
        Assert.Equal(1, replica["polls not synchronized"].GetInt64());
        Assert.Equal(90, replica["largest send queue"].GetInt64());
        Assert.Equal(4, replica["largest lag"].GetInt64());
        Assert.Equal("SYNCHRONIZED", replica["last state"].GetString());

        // 10 + 30 flushes of 512 B and 20 of 4,096 B: 60 flushes, 102,400 B, 1,706.67 B each; 512 B is 40 of 60.
        var buckets = Row(signals["histogram_buckets"], "database", "orders");
        Assert.Equal(60, buckets["flushes"].GetInt64());
        Assert.Equal(102_400 / 60.0, buckets["bytes per flush"].GetDouble(), 4);
        Assert.Equal(512, buckets["commonest write size"].GetInt64());
        Assert.Equal(100 * 40 / 60.0, buckets["its share"].GetDouble(), 4);

        // The session's cost: log_flush_start event_fire_count 1,000 -> 3,000 in 10 s = 2,000 fires, 200/s; count x average
        // 1,000 x 4 -> 3,000 x 5 = 11,000 µs over 2,000 fires = 5.5 µs each; the last max 60 µs; 4 MB of buffers.
        var cost = Row(signals["xe_session_cost"], "event", "log_flush_start");
        Assert.Equal(2_000, cost["fires over the recording"].GetInt64());
        Assert.Equal(200, cost["fires"].GetDouble(), 6);
        Assert.Equal(5.5, cost["average cost"].GetDouble(), 6);
        Assert.Equal(60, cost["longest (last poll)"].GetInt64());
        Assert.Equal(4_194_304, cost["session buffers"].GetInt64());
        // Without trace flag 9708 (count 0, max 35): no fires or average are made up.
        var complete = Row(signals["xe_session_cost"], "event", "log_flush_complete");
        Assert.Equal(JsonValueKind.Null, complete["fires over the recording"].ValueKind);
        Assert.Equal(JsonValueKind.Null, complete["average cost"].ValueKind);
        Assert.Equal(35, complete["longest (last poll)"].GetInt64());

        var database = Row(signals["databases"], "database_id", 5);
        Assert.Equal("orders", database["database"].GetString());

        // The file's census names the rows it read, by signal.
        var census = doc.RootElement.GetProperty("files")[0].GetProperty("other_events");
        Assert.Equal(3 * 5 + 2, census.GetProperty("polled counters rows").GetInt64()); // 5 counters at 3 polls, 2 others
    }

    [Fact]
    public async Task The_html_report_shows_each_polled_signal_as_a_table()
    {
        var path = _files.PathOf("polled.ndjson");
        await File.WriteAllTextAsync(path, Recording());
        var page = _files.PathOf("polled.html");

        var (code, _, stderr) = await InProcessCli.RunAsync("report", path, "--out", page);

        Assert.True(code is 0 or 3, stderr);
        var html = await File.ReadAllTextAsync(page);
        foreach (var title in new[] { "Log flush counters (sys.dm_os_performance_counters)", "Log waits (sys.dm_os_wait_stats)", "Log file writes (sys.dm_io_virtual_file_stats)", "Availability replicas (sys.dm_hadr_database_replica_states)" })
        {
            Assert.Contains($"<h2>{System.Text.Encodings.Web.HtmlEncoder.Default.Encode(title)}</h2>", html, StringComparison.Ordinal);
        }

        Assert.Contains("<td class=\"n\">266,240.00</td>", html, StringComparison.Ordinal); // the bytes flushed a second, worked out above
    }

    [Fact]
    public async Task Analyze_shows_why_a_log_cannot_be_reused_its_room_and_when_it_would_be_full()
    {
        // Three polls a minute apart of a log that cannot be reused (LOG_BACKUP): one 4 GiB file (524,288 pages) with a 5 GiB
        // max size (655,360 pages) and 512 MiB growth (65,536 pages) on L: with 40 GiB free; its active log 1,024, 1,144
        // and 1,264 MiB.
        var sb = new StringBuilder();
        foreach (var (t, activeMib, vlfs, age) in new[] { ("2026-11-22T08:00:00Z", 1_024L, 16, 5_400), ("2026-11-22T08:01:00Z", 1_144L, 16, 5_460), ("2026-11-22T08:02:00Z", 1_264L, 17, 5_520) })
        {
            sb.Append(CultureInfo.InvariantCulture, $$"""{"type":"log_file","t":"{{t}}","instance":"sql1","db_id":5,"db":"orders","file_id":2,"size_pages":524288,"max_size_pages":655360,"growth":65536,"percent_growth":false,"volume":"L:\\","volume_total_bytes":107374182400,"volume_available_bytes":42949672960}""").Append('\n');
            sb.Append(CultureInfo.InvariantCulture, $$"""{"type":"poll_completed","t":"{{t}}","instance":"sql1","kind":"log_files"}""").Append('\n');
            sb.Append(CultureInfo.InvariantCulture, $$"""{"type":"log_space","t":"{{t}}","instance":"sql1","db_id":5,"db":"orders","recovery_model":"FULL","reason":"LOG_BACKUP","total_bytes":4294967296,"active_bytes":{{activeMib << 20}},"vlfs":{{vlfs}},"active_vlfs":5,"log_backup_age_s":{{age}}}""").Append('\n');
            sb.Append(CultureInfo.InvariantCulture, $$"""{"type":"poll_completed","t":"{{t}}","instance":"sql1","kind":"log_space"}""").Append('\n');
        }

        var path = _files.PathOf("log.ndjson");
        await File.WriteAllTextAsync(path, sb.ToString());
        var (_, stdout, stderr) = await InProcessCli.RunAsync("analyze", path, "--format", "json");

        using var doc = JsonDocument.Parse(stdout);
        var signals = doc.RootElement.GetProperty("signals").EnumerateArray().ToDictionary(s => s.GetProperty("signal").GetString()!);
        var log = Row(signals["log_space"], "database", "orders");
        // Growth: 240 MiB in 120 s = 2 MiB/s = 2,097,152 B/s. Headroom: the 5 GiB max (under 4 GiB + 40 GiB free) =
        // 5,368,709,120 B. Time to full: (5,120 - 1,264) MiB / 2 MiB/s = 1,928 s. LOG_BACKUP held over the 120 s polled.
        Assert.Equal(("FULL", "LOG_BACKUP"), (log["recovery model"].GetString(), log["reason"].GetString()));
        Assert.Equal(120, log["held"].GetDouble(), 6);
        Assert.Equal(0, log["reason changes"].GetInt64());
        Assert.Equal((1_073_741_824L, 1_325_400_064L), (log["active log first"].GetInt64(), log["active log last"].GetInt64()));
        Assert.Equal(2_097_152, log["growth"].GetDouble(), 6);
        Assert.Equal(5_368_709_120, log["headroom"].GetInt64());
        Assert.Equal(1_928, log["time to full"].GetDouble(), 6);
        Assert.Equal((17L, 5_520L), (log["most VLFs"].GetInt64(), log["log backup age"].GetInt64()));

        var file = Row(signals["log_files"], "database", "orders");
        Assert.Equal((4_294_967_296L, 0L, "5 GB", "512 MB"), (file["size"].GetInt64(), file["grew"].GetInt64(), file["max size"].GetString(), file["growth"].GetString()));
        Assert.Equal((42_949_672_960L, 5_368_709_120L), (file["volume free"].GetInt64(), file["database headroom"].GetInt64()));
        Assert.DoesNotContain("malformed", stderr, StringComparison.OrdinalIgnoreCase);

        var (_, text, _) = await InProcessCli.RunAsync("analyze", path);
        Assert.Contains("The log's space: why it cannot be reused, when it will be full (sys.dm_db_log_stats)", text, StringComparison.Ordinal);
    }

    [Fact]
    public async Task The_text_report_shows_each_table_and_at_most_fifty_rows_of_one()
    {
        // 60 databases in one poll of sys.databases: 50 shown, the rest said.
        var lines = new StringBuilder();
        for (var id = 5; id < 65; id++)
        {
            lines.Append(CultureInfo.InvariantCulture, $$"""{"type":"database","t":"2026-11-22T08:00:00Z","instance":"sql1","db_id":{{id}},"db":"db{{id}}"}""").Append('\n');
        }

        var path = _files.PathOf("many.ndjson");
        await File.WriteAllTextAsync(path, lines.ToString());

        var (_, stdout, _) = await InProcessCli.RunAsync("analyze", path);

        Assert.Contains("Databases watched (sys.databases)", stdout, StringComparison.Ordinal);
        Assert.Contains(" db54 ", stdout, StringComparison.Ordinal); // the 50th
        Assert.DoesNotContain(" db55 ", stdout, StringComparison.Ordinal);
        Assert.Contains("... and 10 more rows (--format json lists them all)", stdout, StringComparison.Ordinal);
    }

    /// <summary>The row of <paramref name="table"/> whose <paramref name="column"/> is <paramref name="value"/>, by column name.</summary>
    private static Dictionary<string, JsonElement> Row(JsonElement table, string column, object value)
    {
        var columns = table.GetProperty("columns").EnumerateArray().Select(c => c.GetProperty("name").GetString()!).ToList();
        var at = columns.IndexOf(column);
        Assert.True(at >= 0, $"no column '{column}' in {table.GetProperty("signal")}: {string.Join(", ", columns)}");
        var row = table.GetProperty("rows").EnumerateArray().Single(r => value is string s ? r[at].ValueKind == JsonValueKind.String && r[at].GetString() == s : r[at].ValueKind == JsonValueKind.Number && r[at].GetInt64() == Convert.ToInt64(value, CultureInfo.InvariantCulture));
        return columns.Select((name, i) => (name, i)).ToDictionary(c => c.name, c => row[c.i]);
    }

    /// <summary>Three polls of one instance, 10 s apart, the server restarted before the third.</summary>
    private static string Recording()
    {
        var sb = new StringBuilder();
        void Line(string json) => sb.Append(json).Append('\n');
        void Counter(string t, string counter, long value, int type = 272696576) =>
            Line($$"""{"type":"counter","t":"{{t}}","instance":"sql1","object":"Databases","counter":"{{counter}}","counter_instance":"orders","value":{{value}},"cntr_type":{{type}}}""");
        var polls = new[]
        {
            (T: "2026-11-22T08:00:00Z", Start: "2026-11-20T06:00:00Z", Flushes: 1_000L, Bytes: 4_096_000L, Waits: 500L, WaitMs: 250L, Percent: 40L, Sessions: 0, Longest: 0L),
            (T: "2026-11-22T08:00:10Z", Start: "2026-11-20T06:00:00Z", Flushes: 2_000L, Bytes: 8_192_000L, Waits: 700L, WaitMs: 650L, Percent: 45L, Sessions: 3, Longest: 1_200L),
            (T: "2026-11-22T08:00:20Z", Start: "2026-11-22T08:00:15Z", Flushes: 300L, Bytes: 1_228_800L, Waits: 60L, WaitMs: 120L, Percent: 50L, Sessions: 1, Longest: 30L),
        };
        foreach (var p in polls)
        {
            Line($$"""{"type":"server_start","t":"{{p.T}}","instance":"sql1","start_time":"{{p.Start}}"}""");
            Line($$"""{"type":"database","t":"{{p.T}}","instance":"sql1","db_id":5,"db":"orders"}""");
            Counter(p.T, "Log Flushes/sec", p.Flushes);
            Counter(p.T, "Log Bytes Flushed/sec", p.Bytes);
            Counter(p.T, "Log Flush Waits/sec", p.Waits);
            Counter(p.T, "Log Flush Wait Time", p.WaitMs);
            Counter(p.T, "Percent Log Used", p.Percent, 65792);
            Line($$"""{"type":"poll_completed","t":"{{p.T}}","instance":"sql1","kind":"counters"}""");
            Line($$"""{"type":"writelog_waiting","t":"{{p.T}}","instance":"sql1","db_id":5,"db":"orders","sessions":{{p.Sessions}},"longest_wait_ms":{{p.Longest}}}""");
        }

        Counter(polls[0].T, "Active Transactions", 3, 65792);
        Counter(polls[1].T, "Active Transactions", 4, 65792);
        Line("""{"type":"wait_stats","t":"2026-11-22T08:00:00Z","instance":"sql1","wait_type":"WRITELOG","waiting_tasks":100,"wait_time_ms":300,"max_wait_time_ms":5,"signal_wait_time_ms":30}""");
        Line("""{"type":"wait_stats","t":"2026-11-22T08:00:10Z","instance":"sql1","wait_type":"WRITELOG","waiting_tasks":150,"wait_time_ms":400,"max_wait_time_ms":7,"signal_wait_time_ms":40}""");
        Line("""{"type":"file_stats","t":"2026-11-22T08:00:00Z","instance":"sql1","db_id":5,"db":"orders","file_id":2,"num_of_writes":1000,"num_of_bytes_written":4096000,"io_stall_write_ms":500}""");
        Line("""{"type":"file_stats","t":"2026-11-22T08:00:10Z","instance":"sql1","db_id":5,"db":"orders","file_id":2,"num_of_writes":1500,"num_of_bytes_written":5120000,"io_stall_write_ms":1500}""");
        Line("""{"type":"log_writers","t":"2026-11-22T08:00:00Z","instance":"sql1","db_id":5,"db":"orders","app":"Loader","transactions":1,"log_bytes_used":1000,"log_bytes_reserved":2000}""");
        Line("""{"type":"log_writers","t":"2026-11-22T08:00:10Z","instance":"sql1","db_id":5,"db":"orders","app":"Loader","transactions":2,"log_bytes_used":5000,"log_bytes_reserved":6000}""");
        Line("""{"type":"hadr_replica","t":"2026-11-22T08:00:00Z","instance":"sql1","db_id":5,"db":"orders","ag":"ag1","replica":"sql1-b","role":"SECONDARY","availability_mode":"SYNCHRONOUS_COMMIT","synchronization_state":"SYNCHRONIZING","log_send_queue_kb":90,"secondary_lag_s":4}""");
        Line("""{"type":"hadr_replica","t":"2026-11-22T08:00:10Z","instance":"sql1","db_id":5,"db":"orders","ag":"ag1","replica":"sql1-b","role":"SECONDARY","availability_mode":"SYNCHRONOUS_COMMIT","synchronization_state":"SYNCHRONIZED","log_send_queue_kb":10,"secondary_lag_s":0}""");
        Line("""{"type":"xe_session_cost","t":"2026-11-22T08:00:00Z","instance":"sql1","session":"LogFlushMonitor","buffer_bytes":4194304,"regular_buffers":3,"pending_buffers":0}""");
        Line("""{"type":"xe_session_cost","t":"2026-11-22T08:00:00Z","instance":"sql1","session":"LogFlushMonitor","event":"log_flush_start","fire_count":1000,"fire_average_us":4,"fire_min_us":1,"fire_max_us":50}""");
        Line("""{"type":"xe_session_cost","t":"2026-11-22T08:00:00Z","instance":"sql1","session":"LogFlushMonitor","event":"log_flush_complete","fire_count":0,"fire_average_us":0,"fire_min_us":1,"fire_max_us":30}""");
        Line("""{"type":"poll_completed","t":"2026-11-22T08:00:00Z","instance":"sql1","kind":"xe_session_cost"}""");
        Line("""{"type":"xe_session_cost","t":"2026-11-22T08:00:10Z","instance":"sql1","session":"LogFlushMonitor","buffer_bytes":4194304,"regular_buffers":3,"pending_buffers":0}""");
        Line("""{"type":"xe_session_cost","t":"2026-11-22T08:00:10Z","instance":"sql1","session":"LogFlushMonitor","event":"log_flush_start","fire_count":3000,"fire_average_us":5,"fire_min_us":1,"fire_max_us":60}""");
        Line("""{"type":"xe_session_cost","t":"2026-11-22T08:00:10Z","instance":"sql1","session":"LogFlushMonitor","event":"log_flush_complete","fire_count":0,"fire_average_us":0,"fire_min_us":1,"fire_max_us":35}""");
        Line("""{"type":"flush_bucket","t":"2026-11-22T08:00:00Z","instance":"sql1","db_id":5,"db":"orders","write_size":512,"count":10}""");
        Line("""{"type":"flush_bucket","t":"2026-11-22T08:00:10Z","instance":"sql1","db_id":5,"db":"orders","write_size":512,"count":30}""");
        Line("""{"type":"flush_bucket","t":"2026-11-22T08:00:10Z","instance":"sql1","db_id":5,"db":"orders","write_size":4096,"count":20}""");
        return sb.ToString();
    }
}
