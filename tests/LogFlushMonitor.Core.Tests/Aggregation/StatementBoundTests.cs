using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Core.Signals;
using LogFlushMonitor.Core.XEvents;
using LogFlushMonitor.XEvent.Binary;
using LogFlushMonitor.XEvent.TestSupport;
using Xunit.Abstractions;

namespace LogFlushMonitor.Core.Tests.Aggregation;

/// <summary>
/// The statements that write the log (issue 34 items 3 and 4): WRITELOG time by the wait events' query_hash action (read
/// by the real XE reader and mapper) and log bytes by statement from Query Store rows, each bounded to the top 5 query
/// hashes per database and "other", whatever the number of distinct statements; the hash is the only label.
/// </summary>
public class StatementBoundTests(ITestOutputHelper output)
{
    private const string Time = "sqlserver.database.writelog.statement.time";
    private const string Waits = "sqlserver.database.writelog.statement.waits";
    private const string Written = "sqlserver.database.statement.log.written";
    private const string Executions = "sqlserver.database.statement.executions";
    private static readonly DateTime T0 = new(2026, 11, 25, 12, 0, 0, DateTimeKind.Utc);

    private const string Instance = "statement-bound";

    private static void Feed(LogFlushAggregator h, Action<XelWriter> write)
    {
        var ms = new MemoryStream();
        using (var w = new XelWriter(ms, T0))
        {
            write(w);
        }

        ms.Position = 0;
        var mapper = new XEventSampleMapper(Instance, h);
        using var reader = new XelReader(ms, "statements.xel");
        reader.ReadAll(ref mapper);
    }

    /// <summary>
    /// What a collection exports of the four statement families (the aggregation's readings, as the SDK's observable
    /// instruments read them; read here directly, so no other test's meter of the same name can mix in).
    /// </summary>
    private static List<(string Name, Dictionary<string, object?> Tags, double Value)> Collect(LogFlushAggregator aggregator) =>
    [
        .. aggregator.ReadDouble(Time).Select(m => (Time, Tags(m.Tags), m.Value)),
        .. aggregator.ReadLong(Waits).Select(m => (Waits, Tags(m.Tags), (double)m.Value)),
        .. aggregator.ReadDouble(Written).Select(m => (Written, Tags(m.Tags), m.Value)),
        .. aggregator.ReadLong(Executions).Select(m => (Executions, Tags(m.Tags), (double)m.Value)),
    ];

    private static Dictionary<string, object?> Tags(ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        var d = new Dictionary<string, object?>(StringComparer.Ordinal);
        foreach (var t in tags)
        {
            d[t.Key] = t.Value;
        }

        return d;
    }

    private static Dictionary<string, double> ByHash(List<(string Name, Dictionary<string, object?> Tags, double Value)> points, string name, string database = "shop") =>
        points.Where(p => p.Name == name && (string?)p.Tags[MetricAttributes.Instance] == Instance && (string?)p.Tags[MetricAttributes.Database] == database)
            .ToDictionary(p => (string)p.Tags[MetricAttributes.QueryHash]!, p => p.Value);

    [Fact]
    public void Six_statements_show_as_the_five_that_waited_first_and_other_with_the_waits_without_a_statement()
    {
        var h = new LogFlushAggregator();
        Feed(h, w =>
        {
            for (var k = 1; k <= 6; k++)
            {
                for (var i = 0; i < k; i++)
                {
                    // statement k waits k times, 10 ms each: 210 ms in all.
                    w.WaitCompleted(T0.AddMilliseconds((k * 10) + i), XelWriter.WriteLogKey, 10, 5, databaseName: "shop", queryHash: 0xA000_0000_0000_0000UL + (ulong)k);
                }
            }

            for (var i = 0; i < 3; i++)
            {
                w.WaitCompleted(T0.AddMilliseconds(100 + i), XelWriter.WriteLogKey, 10, 5, databaseName: "shop", queryHash: 0); // no statement: other
            }
        });

        var points = Collect(h);
        var time = ByHash(points, Time);
        Assert.Equal(["0xA000000000000001", "0xA000000000000002", "0xA000000000000003", "0xA000000000000004", "0xA000000000000005", "other"], time.Keys.Order(StringComparer.Ordinal));
        Assert.Equal(0.050, time["0xA000000000000005"], 9);
        Assert.Equal(0.060 + 0.030, time["other"], 9); // statement 6 (6 × 10 ms) and the three without one
        Assert.Equal(0.240, time.Values.Sum(), 9);
        Assert.Equal(24, ByHash(points, Waits).Values.Sum());
    }

    [Fact]
    public void A_wait_of_a_known_statement_allocates_nothing_in_the_aggregation()
    {
        // The same six statements over and over: after the first waits (a tally per statement, once) the per-event path
        // allocates nothing, so 40,000 waits cost what 10,000 do.
        static long Allocated(LogFlushAggregator aggregator, int waits, int offset)
        {
            var before = GC.GetAllocatedBytesForCurrentThread();
            for (var i = 0; i < waits; i++)
            {
                var t = T0.AddTicks((offset + i) * 1_000L);
                aggregator.OnWait(new Core.Samples.WaitEvent(Instance, "WRITELOG", TimeSpan.FromMilliseconds(1), 5, "shop", t, offset + i + 1, null, (ulong)(i % 6) + 1));
            }

            return GC.GetAllocatedBytesForCurrentThread() - before;
        }

        var aggregator = new LogFlushAggregator();
        Allocated(aggregator, 1_000, 0);
        var small = Allocated(aggregator, 10_000, 1_000);
        var large = Allocated(aggregator, 40_000, 11_000);
        Assert.True(large - small < 16 * 1024, $"10,000 waits {small:N0} B, 40,000 waits {large:N0} B");
        Assert.Equal(51_000, ByHash(Collect(aggregator), Waits).Values.Sum()); // every wait went through the statements' path
        Assert.Equal(6, ByHash(Collect(aggregator), Waits).Count); // five statements and other (the sixth)
    }

    [Fact]
    public void Ten_thousand_statements_in_the_wait_events_keep_six_series_and_64_hashes_per_database()
    {
        var h = new LogFlushAggregator();
        var before = GC.GetTotalMemory(forceFullCollection: true);
        var seen = new Dictionary<(string Db, string Hash), double>();
        var most = 0;
        for (var minute = 0; minute < 20; minute++)
        {
            // 10,000 distinct statements in each of two databases, 500 a minute, one wait of 1 ms each, over 20 minutes
            // (four windows): the top is chosen again, statements come and go, and nothing grows past the bound.
            Feed(h, w =>
            {
                for (var i = minute * 500; i < (minute + 1) * 500; i++)
                {
                    var t = T0.AddMilliseconds(i * 120);
                    w.WaitCompleted(t, XelWriter.WriteLogKey, 1, 5, databaseName: "shop", queryHash: (ulong)i + 1);
                    w.WaitCompleted(t.AddTicks(1), XelWriter.WriteLogKey, 1, 6, databaseName: "hr", queryHash: ((ulong)i + 1) << 20);
                }
            });

            var points = Collect(h);
            foreach (var db in new[] { "shop", "hr" })
            {
                var time = ByHash(points, Time, db);
                Assert.InRange(time.Count, 1, 6); // the top 5 and other, at every read
                Assert.Contains("other", time.Keys);
                most = Math.Max(most, time.Count);
                foreach (var (hash, value) in time)
                {
                    seen[(db, hash)] = Math.Max(seen.GetValueOrDefault((db, hash)), value); // cumulative: its last value is its total
                }
            }
        }

        foreach (var db in new[] { "shop", "hr" })
        {
            // Every wait counted once, under its statement while chosen or under other: the series' totals add up to 10 s.
            Assert.Equal(10.0, seen.Where(s => s.Key.Db == db).Sum(s => s.Value), 6);
            // At most 5 new statement series per 5-minute window (5 at the start and 5 at each of the 4 windows' ends), and other.
            Assert.InRange(seen.Count(s => s.Key.Db == db), 2, (5 * 5) + 1);
        }

        var inst = h.InstanceOf(Instance)!;
        var tracked = inst.Databases.Where(d => d.Statements is not null).ToDictionary(d => d.Name!, d => d.Statements!.Tracked);
        Assert.Equal(2, tracked.Count);
        Assert.All(tracked.Values, t => Assert.InRange(t, 0, TopSeries<ulong>.MaxTracked)); // the hashes kept to rank them
        var after = GC.GetTotalMemory(forceFullCollection: true);
        output.WriteLine($"at most {most} series per database and family at a read; {seen.Count} label values over 20 minutes; tracked {string.Join(", ", tracked.Select(t => $"{t.Key} {t.Value}"))}; retained {(after - before) / 1024} KiB (not asserted)");
    }

    [Fact]
    public void Ten_thousand_statements_from_query_store_export_the_top_five_and_other_and_keep_at_most_256_texts()
    {
        var h = new LogFlushAggregator();
        var before = GC.GetTotalMemory(forceFullCollection: true);
        var sent = 0L;
        var seen = new Dictionary<string, double>(StringComparer.Ordinal);
        var seenExecutions = new Dictionary<string, double>(StringComparer.Ordinal);
        for (var poll = 0; poll < 4; poll++)
        {
            sent += Poll(h, poll);
            var points = Collect(h);
            var written = ByHash(points, Written);
            Assert.InRange(written.Count, 2, 6); // the top 5 and other, at every read
            Assert.Contains("other", written.Keys);
            Assert.DoesNotContain(points, p => p.Tags.Values.OfType<string>().Any(v => v.Contains("INSERT", StringComparison.Ordinal))); // text is never a label
            foreach (var (hash, value) in written)
            {
                seen[hash] = Math.Max(seen.GetValueOrDefault(hash), value);
            }

            foreach (var (hash, value) in ByHash(points, Executions))
            {
                seenExecutions[hash] = Math.Max(seenExecutions.GetValueOrDefault(hash), value);
            }
        }

        Assert.Equal(sent, seen.Values.Sum(), 0); // every byte once: under its statement while chosen, else other
        Assert.Equal(40_000, seenExecutions.Values.Sum());
        Assert.InRange(seen.Count, 2, (5 * 4) + 1); // at most 5 new statement series per poll (one window each), and other

        var state = h.InstanceOf(Instance)!.Find<QueryStoreSignal.State>(SignalRegistry.QueryStore)!;
        var shop = Assert.Single(state.Statements);
        Assert.InRange(shop.Series.Tracked, 0, TopSeries<ulong>.MaxTracked);
        Assert.InRange(shop.TextCount, 1, QueryStoreSignal.DatabaseStatements.MaxTexts);
        var after = GC.GetTotalMemory(forceFullCollection: true);
        output.WriteLine($"{seen.Count} label values over 4 polls; tracked {shop.Series.Tracked}; texts {shop.TextCount}; retained {(after - before) / 1024} KiB (not asserted)");
    }

    /// <summary>
    /// One Query Store poll naming 10,000 statements (past what a real poll reads, 64 per database: the bound holds whatever
    /// a row stream says); returns the log bytes it carried. Built here so none of it stays reachable from the test.
    /// </summary>
    private static long Poll(LogFlushAggregator h, int poll)
    {
        var rows = new List<QueryStoreRow>();
        for (var i = 0; i < 10_000; i++)
        {
            var bytes = (long)((i % 97) + 1) * 100;
            rows.Add(new QueryStoreRow(5, "shop", QueryStoreStates.ReadWrite, "0x" + ((ulong)(poll * 10_000) + (ulong)i + 1).ToString("X16", System.Globalization.CultureInfo.InvariantCulture),
                "INSERT INTO dbo.t" + i + " VALUES (1)", bytes, 1, bytes));
        }

        var total = rows.Sum(r => r.LogBytes);
        rows.Add(new QueryStoreRow(5, "shop", QueryStoreStates.ReadWrite, null, null, total, rows.Count, total));
        h.OnBatch(SignalRegistry.QueryStore.Batch(Instance, T0.AddMinutes(5 * poll), [.. rows], endsPoll: true));
        return total;
    }
}
