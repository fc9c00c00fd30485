using System.Text.Json;
using LogFlushMonitor.Analysis;
using LogFlushMonitor.Commands;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;
using LogFlushMonitor.Recording;
using LogFlushMonitor.XEvent.TestSupport;

namespace LogFlushMonitor.Tests.Analyze;

/// <summary>
/// <c>analyze</c> says which statements waited on WRITELOG (issue 34 items 3 and 4): per database the top 5 query hashes
/// by time and <c>other</c>, from a .xel file's sqlserver.query_hash (or query_hash_signed) action or a recording's
/// <c>query_hash</c>, with the statement's text where a recording's Query Store rows gave it.
/// </summary>
public sealed class AnalyzeStatementTests : IDisposable
{
    private const ulong HashA = 0x00000000000000A1, HashB = 0xFFFFFFFFFFFFFFF0;
    private readonly AnalyzeTestFiles _files = new();

    public void Dispose() => _files.Dispose();

    // Statement A waits 200 × 10 ms = 2.0 s, B 100 × 5 ms = 0.5 s, and tasks that ran no statement with a hash (0) 50 × 10 ms
    // = 0.5 s: 3.0 s in all, A 2/3, B 1/6, other 1/6.
    private static void Shop(XelWriter w, bool signed)
    {
        ulong seq = 0;
        for (var i = 0; i < 350; i++)
        {
            var t = AnalyzeTestFiles.Start.AddMilliseconds(i * 100);
            var (hash, ms) = i < 200 ? (HashA, 10UL) : i < 300 ? (HashB, 5UL) : (0UL, 10UL);
            w.LogFlushStart(t, 7, "shop", 512, seq, ++seq);
            w.WaitCompleted(t.AddTicks(5), XelWriter.WriteLogKey, ms, 7, ++seq, databaseName: "shop", queryHash: hash, queryHashSigned: signed);
        }
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void A_xel_file_with_the_query_hash_action_shows_each_statements_seconds_and_share(bool signed)
    {
        var xel = _files.Write("statements.xel", w => Shop(w, signed));

        var text = RunText([xel]);
        using var doc = JsonDocument.Parse(RunJson([xel]));

        Assert.Contains("  WRITELOG by statement: 0x00000000000000A1 2.0 s (67 %), 0xFFFFFFFFFFFFFFF0 0.5 s (17 %), other 0.5 s (17 %)\n", text, StringComparison.Ordinal);
        var shop = Database(doc, "shop");
        Assert.Equal(350, shop.GetProperty("writelog_waits_with_statement").GetInt64());
        AssertStatements(shop, [("0x00000000000000A1", null, 200, 2.0, 2.0 / 3), ("0xFFFFFFFFFFFFFFF0", null, 100, 0.5, 0.5 / 3), ("other", null, 50, 0.5, 0.5 / 3)]);
    }

    [Fact]
    public void Waits_without_the_action_show_no_statement_line_and_are_counted_apart_beside_waits_with_it()
    {
        var plain = _files.Write("plain.xel", w =>
        {
            ulong seq = 0;
            for (var i = 0; i < 100; i++)
            {
                w.WaitCompleted(AnalyzeTestFiles.Start.AddMilliseconds(i), XelWriter.WriteLogKey, 10, 7, ++seq, databaseName: "shop");
            }
        });
        Assert.DoesNotContain("WRITELOG by statement", RunText([plain]), StringComparison.Ordinal);
        using (var none = JsonDocument.Parse(RunJson([plain])))
        {
            Assert.Equal(0, Database(none, "shop").GetProperty("writelog_waits_with_statement").GetInt64());
            Assert.Empty(Database(none, "shop").GetProperty("writelog_by_statement").EnumerateArray());
        }

        var with = _files.Write("with.xel", w =>
        {
            ulong seq = 0;
            for (var i = 0; i < 300; i++)
            {
                w.WaitCompleted(AnalyzeTestFiles.Start.AddSeconds(1).AddMilliseconds(i), XelWriter.WriteLogKey, 10, 7, ++seq, databaseName: "shop", queryHash: HashA);
            }
        });

        Assert.Contains("  WRITELOG by statement: 0x00000000000000A1 3.0 s (75 %); 100 WRITELOG wait(s) (25 %) carried no query_hash\n", RunText([plain, with]), StringComparison.Ordinal);
    }

    [Fact]
    public void A_recording_with_query_store_rows_names_the_statements_text_and_never_more_than_200_characters()
    {
        var path = _files.PathOf("statements.ndjson");
        var longText = "INSERT INTO dbo.Orders (" + string.Join(", ", Enumerable.Range(0, 80).Select(i => "c" + i)) + ") VALUES (1)";
        using (var writer = new NdjsonSampleWriter(path))
        {
            ulong block = 0;
            for (var i = 0; i < 300; i++)
            {
                var t = AnalyzeTestFiles.Start.AddMilliseconds(i * 100);
                writer.OnLogFlush(new LogFlushEvent("sql1", 7, "shop", 512, ++block, t));
                writer.OnWait(new WaitEvent("sql1", "WRITELOG", TimeSpan.FromMilliseconds(i < 200 ? 10 : 5), 7, "shop", t.AddTicks(5), 0, null, i < 200 ? HashA : HashB));
            }

            writer.OnBatch(SignalRegistry.QueryStore.Batch("sql1", AnalyzeTestFiles.Start.AddMinutes(1),
            [
                new QueryStoreRow(7, "shop", QueryStoreStates.ReadWrite, "0x00000000000000A1", Core.Text.StatementText.Shorten(longText), 0, 0, 1_000),
                new QueryStoreRow(7, "shop", QueryStoreStates.ReadWrite, null, null, 0, 0, 1_000),
            ], endsPoll: true));
        }

        var text = RunText([path]);
        using var doc = JsonDocument.Parse(RunJson([path]));

        Assert.Contains("  WRITELOG by statement: 0x00000000000000A1 2.0 s (80 %), 0xFFFFFFFFFFFFFFF0 0.5 s (20 %)\n", text, StringComparison.Ordinal);
        Assert.Contains("    0x00000000000000A1: " + longText[..200] + "\n", text, StringComparison.Ordinal);
        Assert.DoesNotContain(longText[..201], text, StringComparison.Ordinal);
        AssertStatements(Database(doc, "shop"), [("0x00000000000000A1", longText[..200], 200, 2.0, 0.8), ("0xFFFFFFFFFFFFFFF0", null, 100, 0.5, 0.2)]);
    }

    [Fact]
    public void The_report_shows_each_statements_time_and_its_text_escaped_where_the_recording_gave_it()
    {
        var path = _files.PathOf("report.ndjson");
        using (var writer = new NdjsonSampleWriter(path))
        {
            ulong block = 0;
            for (var i = 0; i < 300; i++)
            {
                var t = AnalyzeTestFiles.Start.AddMilliseconds(i * 100);
                writer.OnLogFlush(new LogFlushEvent("sql1", 7, "shop", 512, ++block, t));
                writer.OnWait(new WaitEvent("sql1", "WRITELOG", TimeSpan.FromMilliseconds(i < 200 ? 10 : 5), 7, "shop", t.AddTicks(5), 0, null, i < 200 ? HashA : HashB));
            }

            writer.OnBatch(SignalRegistry.QueryStore.Batch("sql1", AnalyzeTestFiles.Start.AddMinutes(1),
            [
                new QueryStoreRow(7, "shop", QueryStoreStates.ReadWrite, "0x00000000000000A1", "SELECT 1 WHERE '<b>' = N'x'", 0, 0, 1_000),
                new QueryStoreRow(7, "shop", QueryStoreStates.ReadWrite, null, null, 0, 0, 1_000),
            ], endsPoll: true));
        }

        var html = _files.PathOf("report.html");
        using var stdout = new StringWriter();
        using var stderr = new StringWriter();
        Assert.Equal(0, ReportCommand.Run(new AnalyzeSettings { Inputs = [path], ProgressLabel = "report" }, new FileInfo(html), stdout, stderr, CancellationToken.None));
        var page = File.ReadAllText(html);

        Assert.Contains("WRITELOG time by statement", page, StringComparison.Ordinal);
        var rows = System.Text.RegularExpressions.Regex.Matches(page, "<tr><td><code>(0x[0-9A-F]{16})</code></td><td>(.*?)</td><td class=\"n\">(.*?)</td><td class=\"n\">(.*?)</td>")
            .Select(m => (Hash: m.Groups[1].Value, Text: System.Net.WebUtility.HtmlDecode(m.Groups[2].Value), Time: m.Groups[3].Value, Waits: m.Groups[4].Value)).ToList();
        Assert.Equal(
            [("0x00000000000000A1", "<code>SELECT 1 WHERE '<b>' = N'x'</code>", "2.000 s", "200"), ("0xFFFFFFFFFFFFFFF0", "<span class=\"muted\">-</span>", "0.500 s", "100")],
            rows);
        Assert.DoesNotContain("<b>' = N", page, StringComparison.Ordinal); // the text is escaped, never markup
    }

    private static void AssertStatements(JsonElement db, (string Hash, string? Text, long Waits, double Seconds, double Share)[] expected)
    {
        var statements = db.GetProperty("writelog_by_statement").EnumerateArray().ToList();
        Assert.Equal(expected.Select(e => e.Hash), statements.Select(a => a.GetProperty("query_hash").GetString()));
        for (var i = 0; i < expected.Length; i++)
        {
            Assert.Equal(expected[i].Text, statements[i].GetProperty("text").GetString());
            Assert.Equal(expected[i].Waits, statements[i].GetProperty("waits").GetInt64());
            Assert.Equal(expected[i].Seconds, statements[i].GetProperty("seconds").GetDouble(), 9);
            Assert.Equal(expected[i].Share, statements[i].GetProperty("share").GetDouble(), 9);
        }
    }

    private static JsonElement Database(JsonDocument doc, string name) =>
        doc.RootElement.GetProperty("databases").EnumerateArray().Single(d => d.GetProperty("database").GetString() == name);

    private static AnalyzeSettings Settings(IReadOnlyList<string> inputs) => new()
    {
        Inputs = inputs,
        Progress = ProgressMode.Never,
        Threads = 1,
        Time = new ManualTimeProvider(new DateTimeOffset(2026, 11, 23, 12, 0, 0, TimeSpan.Zero)),
    };

    private static string RunJson(IReadOnlyList<string> inputs)
    {
        var stdout = new StringWriter();
        AnalyzeRunner.Run(Settings(inputs) with { Format = ReportFormat.Json }, ExitCodes.Of, stdout, TextWriter.Null, CancellationToken.None);
        return stdout.ToString();
    }

    private static string RunText(IReadOnlyList<string> inputs)
    {
        var stdout = new StringWriter();
        AnalyzeRunner.Run(Settings(inputs), ExitCodes.Of, stdout, TextWriter.Null, CancellationToken.None);
        return stdout.ToString();
    }
}
