using System.Globalization;
using System.Text.Json;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Recording;
using LogFlushMonitor.XEvent.TestSupport;

namespace LogFlushMonitor.Tests.Analyze;

/// <summary>
/// <c>analyze</c> says which applications waited on WRITELOG: per database the top 5 by time and <c>other</c>, with
/// seconds and share of the database's WRITELOG time, from a .xel file's client_app_name action or an NDJSON
/// recording's <c>app</c>; the same for any thread count; and, once, how to get the action when no wait carried it.
/// </summary>
public sealed class AnalyzeApplicationTests : IDisposable
{
    private const string Note = "carried no client application, so the report cannot say which applications waited";

    // 400 × 20 ms, 100 × 15 ms and 50 × 10 ms from a session that sent no name: 8 s, 1.5 s and 0.5 s of 10 s.
    private static readonly (string App, int Waits, int Ms)[] Shop = [("OrderService", 400, 20), ("ReportingJob", 100, 15), ("", 50, 10)];

    // Nine applications: the two that tie at 0.4 s are told apart by name (Import before Zeta), and Zeta, Tiny, the
    // nameless one and one really called "other" make up other (0.47 s). 4.17 s in all.
    private static readonly (string App, int Waits, int Ms)[] Many =
    [
        ("OrderService", 300, 4), ("Billing", 200, 5), ("sqlcmd", 100, 6), ("ReportingJob", 100, 5), ("Zeta", 40, 10), ("Import", 80, 5),
        ("Tiny", 20, 1), ("", 30, 1), ("other", 10, 2),
    ];

    private readonly AnalyzeTestFiles _files = new();

    public void Dispose() => _files.Dispose();

    [Fact]
    public void Text_and_json_show_each_applications_seconds_and_share_of_the_databases_writelog_time()
    {
        var xel = _files.Write("apps.xel", w => WriteWaits(w, [(7, "shop", Shop), (9, "ledger", [("Billing", 10, 3)])]));

        var text = RunText([xel]);
        var json = RunJson([xel]);

        Assert.Equal(1, Count(text, "  WRITELOG by application: OrderService 8.0 s (80 %), ReportingJob 1.5 s (15 %), other 0.5 s (5 %)\n"));
        Assert.Equal(1, Count(text, "  WRITELOG by application: Billing 0.03 s (100 %)\n"));
        Assert.DoesNotContain(Note, text, StringComparison.Ordinal);

        // Under its own database's heading: shop's line comes after "Database shop" and before "Database ledger".
        Assert.True(text.IndexOf("Database shop", StringComparison.Ordinal) < text.IndexOf("OrderService", StringComparison.Ordinal));
        Assert.True(text.IndexOf("OrderService", StringComparison.Ordinal) < text.IndexOf("Database ledger", StringComparison.Ordinal));

        using var doc = JsonDocument.Parse(json);
        var shop = Database(doc, "shop");
        Assert.Equal(550, shop.GetProperty("writelog_waits_with_application").GetInt64());
        AssertApplications(shop, [("OrderService", 400, 8.0, 0.8), ("ReportingJob", 100, 1.5, 0.15), ("other", 50, 0.5, 0.05)]);
        var ledger = Database(doc, "ledger");
        Assert.Equal(10, ledger.GetProperty("writelog_waits_with_application").GetInt64());
        AssertApplications(ledger, [("Billing", 10, 0.03, 1.0)]);
    }

    [Fact]
    public void More_than_five_applications_show_the_top_five_by_time_then_other()
    {
        var xel = _files.Write("many.xel", w => WriteWaits(w, [(7, "shop", Many)]));

        var text = RunText([xel]);
        using var doc = JsonDocument.Parse(RunJson([xel]));

        Assert.Contains(
            "  WRITELOG by application: OrderService 1.2 s (29 %), Billing 1.0 s (24 %), sqlcmd 0.6 s (14 %), ReportingJob 0.5 s (12 %), Import 0.4 s (10 %), other 0.5 s (11 %)\n",
            text, StringComparison.Ordinal);
        var shop = Database(doc, "shop");
        Assert.Equal(Many.Sum(a => a.Waits), shop.GetProperty("writelog_waits_with_application").GetInt64());
        const double Total = 4.17;
        AssertApplications(shop,
        [
            ("OrderService", 300, 1.2, 1.2 / Total), ("Billing", 200, 1.0, 1.0 / Total), ("sqlcmd", 100, 0.6, 0.6 / Total),
            ("ReportingJob", 100, 0.5, 0.5 / Total), ("Import", 80, 0.4, 0.4 / Total), ("other", 100, 0.47, 0.47 / Total),
        ]);
    }

    [Theory]
    [InlineData(2)]
    [InlineData(4)]
    public void Sixty_applications_give_the_same_report_on_every_core_as_on_one_thread(int threads)
    {
        // Sixty names (past the HTML report's 32 kept apart) in 30,000 waits over many buffers. The eight that wait
        // most (App00 to App07) first wait in the second half, after 52 others: a rule that kept the first names a
        // thread happened to see would fold them into other on one thread, and not on a thread that starts there.
        var rng = new Random(11);
        var waits = new List<(DateTime T, string App, int Ms)>();
        var t = AnalyzeTestFiles.Start;
        for (var i = 0; i < 30_000; i++)
        {
            t = t.AddTicks(rng.Next(1, 2_000));
            var k = i < 15_000 ? rng.Next(8, 60) : rng.Next(3) == 0 ? rng.Next(8) : rng.Next(60);
            var app = rng.Next(10) == 0 ? "" : "App" + k.ToString("00", CultureInfo.InvariantCulture);
            waits.Add((t, app, rng.Next(0, 40)));
        }

        var xel = _files.Write("sixty.xel", w =>
        {
            ulong seq = 0;
            foreach (var (time, app, ms) in waits)
            {
                w.WaitCompleted(time, XelWriter.WriteLogKey, (ulong)ms, 7, ++seq, databaseName: "shop", clientApp: app);
            }
        });

        var one = RunJson([xel], 1);
        var many = RunJson([xel], threads);

        Assert.Equal(one, many);
        Assert.Equal(RunText([xel], 1), RunText([xel], threads));

        // And the figures are the input's: the five longest waiters, then the rest with the nameless.
        var byApp = waits.Where(w => w.App.Length > 0).GroupBy(w => w.App)
            .Select(g => (App: g.Key, Waits: (long)g.Count(), Ms: g.Sum(w => (long)w.Ms)))
            .OrderByDescending(a => a.Ms).ThenBy(a => a.App, StringComparer.Ordinal).ToList();
        Assert.Equal(60, byApp.Count);
        Assert.All(byApp.Take(5), a => Assert.True(string.CompareOrdinal(a.App, "App08") < 0, a.App)); // the late ones lead
        var totalMs = (double)waits.Sum(w => (long)w.Ms);
        var rest = byApp.Skip(5).Concat(waits.Where(w => w.App.Length == 0).GroupBy(_ => "").Select(g => (App: "", Waits: (long)g.Count(), Ms: g.Sum(w => (long)w.Ms)))).ToList();
        using var doc = JsonDocument.Parse(one);
        AssertApplications(Database(doc, "shop"),
        [
            .. byApp.Take(5).Select(a => (a.App, a.Waits, a.Ms / 1000.0, a.Ms / totalMs)),
            ("other", rest.Sum(a => a.Waits), rest.Sum(a => a.Ms) / 1000.0, rest.Sum(a => a.Ms) / totalMs),
        ]);
    }

    [Fact]
    public void An_ndjson_recording_with_the_app_field_shows_the_same_applications()
    {
        var path = _files.PathOf("apps.ndjson");
        using (var writer = new NdjsonSampleWriter(path))
        {
            ulong block = 0;
            foreach (var (t, app, ms) in Spread(Shop))
            {
                writer.OnLogFlush(new LogFlushEvent("sql1", 7, "shop", 512, ++block, t));
                writer.OnWait(new WaitEvent("sql1", "WRITELOG", TimeSpan.FromMilliseconds(ms), 7, "shop", t.AddTicks(5), 0, app));
            }
        }

        var text = RunText([path]);
        using var doc = JsonDocument.Parse(RunJson([path]));

        Assert.Contains("  WRITELOG by application: OrderService 8.0 s (80 %), ReportingJob 1.5 s (15 %), other 0.5 s (5 %)\n", text, StringComparison.Ordinal);
        AssertApplications(Database(doc, "shop"), [("OrderService", 400, 8.0, 0.8), ("ReportingJob", 100, 1.5, 0.15), ("other", 50, 0.5, 0.05)]);
    }

    [Fact]
    public void Without_the_action_the_report_says_once_how_to_get_it_and_names_the_databases()
    {
        var xel = _files.Write("plain.xel", w =>
        {
            ulong seq = 0;
            for (var i = 0; i < 300; i++)
            {
                var t = AnalyzeTestFiles.Start.AddMilliseconds(i * 2);
                w.LogFlushStart(t, 11, "gooddb", 512, (ulong)i, ++seq);
                w.WaitCompleted(t.AddTicks(5), XelWriter.WriteLogKey, 1, (uint)(i % 2 == 0 ? 11 : 12), ++seq, databaseName: i % 2 == 0 ? "gooddb" : "otherdb");
                w.LogFlushStart(t.AddTicks(9), 13, "quietdb", 512, (ulong)i, ++seq); // flushes, no waits: nothing to attribute
            }
        });

        var text = RunText([xel]);
        using var doc = JsonDocument.Parse(RunJson([xel]));

        Assert.Equal(1, Count(text, Note));
        var note = text.Split('\n').Single(l => l.Contains(Note, StringComparison.Ordinal));
        Assert.StartsWith("note: the WRITELOG waits of ", note, StringComparison.Ordinal);
        Assert.Contains("gooddb", note, StringComparison.Ordinal);
        Assert.Contains("otherdb", note, StringComparison.Ordinal);
        Assert.DoesNotContain("quietdb", note, StringComparison.Ordinal);
        Assert.Contains("sqlserver.client_app_name action to the session's wait event", note, StringComparison.Ordinal);
        Assert.Contains("docs/analyze.md", note, StringComparison.Ordinal);
        Assert.DoesNotContain("WRITELOG by application:", text, StringComparison.Ordinal);
        foreach (var name in new[] { "gooddb", "otherdb", "quietdb" })
        {
            var db = Database(doc, name);
            Assert.Equal(0, db.GetProperty("writelog_waits_with_application").GetInt64());
            Assert.Empty(db.GetProperty("writelog_by_application").EnumerateArray());
        }
    }

    [Fact]
    public void Waits_without_the_action_beside_waits_with_it_are_counted_apart_and_keep_their_share()
    {
        // Two files of one database: the session gained the action between them (an event's actions are fixed per session).
        var before = _files.Write("before.xel", w =>
        {
            ulong seq = 0;
            for (var i = 0; i < 100; i++)
            {
                w.WaitCompleted(AnalyzeTestFiles.Start.AddMilliseconds(i), XelWriter.WriteLogKey, 10, 7, ++seq, databaseName: "shop");
            }
        });
        var after = _files.Write("after.xel", w =>
        {
            ulong seq = 0;
            for (var i = 0; i < 300; i++)
            {
                w.WaitCompleted(AnalyzeTestFiles.Start.AddSeconds(1).AddMilliseconds(i), XelWriter.WriteLogKey, 10, 7, ++seq, databaseName: "shop", clientApp: "OrderService");
            }
        });

        var text = RunText([before, after]);
        using var doc = JsonDocument.Parse(RunJson([before, after]));

        Assert.Contains("  WRITELOG by application: OrderService 3.0 s (75 %); 100 WRITELOG wait(s) (25 %) carried no client_app_name\n", text, StringComparison.Ordinal);
        Assert.DoesNotContain(Note, text, StringComparison.Ordinal);
        var shop = Database(doc, "shop");
        Assert.Equal(400, shop.GetProperty("writelog_wait_ms").GetProperty("count").GetInt64());
        Assert.Equal(300, shop.GetProperty("writelog_waits_with_application").GetInt64());
        AssertApplications(shop, [("OrderService", 300, 3.0, 0.75)]);
    }

    [Fact]
    public void An_application_name_with_a_line_break_stays_on_its_databases_line_in_text_and_whole_in_json()
    {
        // The name is whatever the client sent at login: a line break must not start a line of the report's own.
        var xel = _files.Write("odd.xel", w => WriteWaits(w, [(7, "shop", [("Order\nService", 100, 10)])]));

        var text = RunText([xel]);
        using var doc = JsonDocument.Parse(RunJson([xel]));

        Assert.Contains("  WRITELOG by application: Order\\nService 1.0 s (100 %)\n", text, StringComparison.Ordinal); // escaped by PrintableText, as every name
        Assert.DoesNotContain("\nService", text, StringComparison.Ordinal);
        AssertApplications(Database(doc, "shop"), [("Order\nService", 100, 1.0, 1.0)]);
    }

    [Fact]
    public void The_real_file_holds_no_writelog_waits_so_the_report_names_no_application()
    {
        // TestXel_0.xel (a real server's) declares the client_app_name action but holds no log flush or wait event:
        // nothing waited, so there is nothing to attribute and no reason to ask for the action.
        var text = RunText([TestData.RealXelFile]);
        using var doc = JsonDocument.Parse(RunJson([TestData.RealXelFile]));

        Assert.DoesNotContain("by application", text, StringComparison.Ordinal);
        Assert.DoesNotContain(Note, text, StringComparison.Ordinal);
        Assert.Contains("holds no log_flush_start, log_flush_complete or WRITELOG wait events", text, StringComparison.Ordinal);
        Assert.Empty(doc.RootElement.GetProperty("databases").EnumerateArray());
    }

    /// <summary>Each application's waits spread over a minute, interleaved, in time order.</summary>
    private static IEnumerable<(DateTime T, string App, int Ms)> Spread((string App, int Waits, int Ms)[] apps) =>
        apps.SelectMany(a => Enumerable.Range(0, a.Waits).Select(i => (T: AnalyzeTestFiles.Start.AddMilliseconds(60_000.0 * i / a.Waits), a.App, a.Ms)))
            .OrderBy(w => w.T);

    private static void WriteWaits(XelWriter w, (uint Id, string Name, (string App, int Waits, int Ms)[] Apps)[] databases)
    {
        ulong seq = 0;
        var all = databases.SelectMany(d => Spread(d.Apps).Select(x => (d.Id, d.Name, x.T, x.App, x.Ms))).OrderBy(x => x.T).ThenBy(x => x.Id);
        foreach (var (id, name, t, app, ms) in all)
        {
            w.LogFlushStart(t, id, name, 512, seq, ++seq);
            w.WaitCompleted(t.AddTicks(5), XelWriter.WriteLogKey, (ulong)ms, id, ++seq, databaseName: name, clientApp: app);
        }
    }

    private static void AssertApplications(JsonElement db, (string App, long Waits, double Seconds, double Share)[] expected)
    {
        var apps = db.GetProperty("writelog_by_application").EnumerateArray().ToList();
        Assert.Equal(expected.Select(e => e.App), apps.Select(a => a.GetProperty("application").GetString()));
        for (var i = 0; i < expected.Length; i++)
        {
            Assert.Equal(expected[i].Waits, apps[i].GetProperty("waits").GetInt64());
            Assert.Equal(expected[i].Seconds, apps[i].GetProperty("seconds").GetDouble(), 9);
            Assert.Equal(expected[i].Share, apps[i].GetProperty("share").GetDouble(), 9);
        }
    }

    private static JsonElement Database(JsonDocument doc, string name) =>
        doc.RootElement.GetProperty("databases").EnumerateArray().Single(d => d.GetProperty("database").GetString() == name);

    private static int Count(string text, string what) => (text.Length - text.Replace(what, "", StringComparison.Ordinal).Length) / what.Length;

    private static string RunJson(IReadOnlyList<string> inputs, int threads = 1) => AnalyzeInProcess.Json(inputs, threads);

    private static string RunText(IReadOnlyList<string> inputs, int threads = 1) => AnalyzeInProcess.Text(inputs, threads);
}
