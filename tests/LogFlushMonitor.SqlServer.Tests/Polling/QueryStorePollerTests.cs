using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Core.Signals;
using LogFlushMonitor.SqlServer.Tests.Scripted;

namespace LogFlushMonitor.SqlServer.Tests.Polling;

/// <summary>
/// Log bytes by statement from Query Store (issue 34 items 3 and 4), through the real SqlClient and Dapper against the
/// scripted server answering sys.database_query_store_options and sys.query_store_runtime_stats in their documented
/// shapes: figures worked out by hand, the states a database's Query Store can be in (each counted and logged), the bound
/// to the busiest databases, Azure SQL Database's one database, and text that can be turned off.
/// </summary>
public class QueryStorePollerTests
{
    // Three statements of "sales", each growing by one step at every read of the runtime stats:
    // A 10 executions × 500 B = 5,000 B; B 4 × 2,000.5 B = 8,002 B (its hash has the top bit set: a negative bigint);
    // C 1 × 100 B = 100 B. Together 13,102 B and 15 executions per read.
    private const ulong HashA = 0x00000000000000A1, HashB = 0xFFFFFFFFFFFFFFF0, HashC = 0x0000000000000C03;
    private const string TextA = "(@p0 int,@p1 nvarchar(4000))INSERT INTO dbo.Orders (Id, Note)\n    VALUES (@p0, @p1)";
    private const string TextB = "UPDATE dbo.Stock SET Qty = Qty - 1 WHERE Id = 42";
    private static readonly string TextC = "SELECT " + string.Join(", ", Enumerable.Range(0, 60).Select(i => "c" + i)) + " FROM dbo.Wide";

    private static void Statements(ScriptedDatabase db)
    {
        db.QueryStoreStatements.Add(new ScriptedStatement(HashA, TextA, 10, 500));
        db.QueryStoreStatements.Add(new ScriptedStatement(HashB, TextB, 4, 2000.5));
        db.QueryStoreStatements.Add(new ScriptedStatement(HashC, TextC, 1, 100));
    }

    /// <summary>The next Query Store poll: the default interval (5 minutes) on, then one poll.</summary>
    private static async Task NextAsync(PollerHarness h)
    {
        h.Time.Advance(TimeSpan.FromMinutes(5));
        await h.PollAsync();
    }

    private static List<QueryStoreRow> LastPoll(PollerHarness h) =>
        [.. h.Sink.Rows<QueryStoreRow>().GroupBy(r => r.TimestampUtc).Last().Select(r => r.Row)];

    [Fact]
    public async Task Each_statements_log_bytes_are_its_increase_since_the_previous_poll_and_a_new_interval_counts_whole()
    {
        await using var server = new ScriptedSqlServer();
        Statements(server.Database("sales"));
        var aggregator = new LogFlushAggregator();
        await using var h = new PollerHarness(server, next: aggregator);

        // First poll: the baseline. No increase yet; the statements that wrote most recently come with their text.
        await h.PollAsync();
        var first = LastPoll(h);
        Assert.Equal(
            [("0xFFFFFFFFFFFFFFF0", 0L, 0L, 8_002L), ("0x00000000000000A1", 0L, 0L, 5_000L), ("0x0000000000000C03", 0L, 0L, 100L), (null, 0L, 0L, 13_102L)],
            first.Select(r => (r.QueryHash, r.LogBytes, r.Executions, r.RecentLogBytes)));
        Assert.All(first, r => Assert.Equal((5, "sales", QueryStoreStates.ReadWrite), (r.DatabaseId, r.Database, r.State)));
        Assert.Equal("INSERT INTO dbo.Orders (Id, Note) VALUES (@p0, @p1)", first[1].Text); // no parameter declarations, one space
        Assert.Equal(TextB, first[0].Text);
        Assert.Equal(TextC[..200], first[2].Text);
        var stats = Assert.Single(server.RequestsFor("sys.query_store_runtime_stats AS rs"));
        Assert.Equal(QueryStoreSignal.Stats("[sales].", text: true).Text, stats.Text);
        Assert.Equal(QueryStoreSignal.StatementsPerDatabase, stats.Parameters["@top"]);

        // A poll 15 s later is not a Query Store poll: its figures are per interval of minutes.
        await h.PollAsync();
        Assert.Single(server.RequestsFor("sys.query_store_runtime_stats AS rs"));

        // Second read, same runtime-stats interval: each statement grew by one step.
        await NextAsync(h);
        Assert.Equal(
            [("0xFFFFFFFFFFFFFFF0", 8_002L, 4L, 16_004L), ("0x00000000000000A1", 5_000L, 10L, 10_000L), ("0x0000000000000C03", 100L, 1L, 200L), (null, 13_102L, 15L, 26_204L)],
            LastPoll(h).Select(r => (r.QueryHash, r.LogBytes, r.Executions, r.RecentLogBytes)));

        // Query Store starts a new interval: the old one stays as it was (no increase), the new one counts whole.
        server.Database("sales").QueryStoreInterval = 2;
        await NextAsync(h);
        Assert.Equal(
            [("0xFFFFFFFFFFFFFFF0", 8_002L, 4L, 24_006L), ("0x00000000000000A1", 5_000L, 10L, 15_000L), ("0x0000000000000C03", 100L, 1L, 300L), (null, 13_102L, 15L, 39_306L)],
            LastPoll(h).Select(r => (r.QueryHash, r.LogBytes, r.Executions, r.RecentLogBytes)));

        // Exported: cumulative per query hash (the only label), and other at zero (the three are all the database wrote).
        var (written, executions) = Series(aggregator);
        Assert.Equal(new Dictionary<string, double> { ["0xFFFFFFFFFFFFFFF0"] = 16_004, ["0x00000000000000A1"] = 10_000, ["0x0000000000000C03"] = 200, ["other"] = 0 }, written);
        Assert.Equal(new Dictionary<string, double> { ["0xFFFFFFFFFFFFFFF0"] = 8, ["0x00000000000000A1"] = 20, ["0x0000000000000C03"] = 2, ["other"] = 0 }, executions);
        Assert.Equal(1, Gauge(aggregator, QueryStoreStates.ReadWrite));
        AssertNoTextInLabels(aggregator);
    }

    [Fact]
    public async Task Off_read_only_error_and_missing_access_are_counted_logged_once_and_explained_by_check()
    {
        await using var server = new ScriptedSqlServer();
        Statements(server.Database("sales"));
        server.AddDatabase("offdb").QueryStoreState = "OFF";
        Statements(server.AddDatabase("rodb"));
        server.Database("rodb").QueryStoreState = "READ_ONLY";
        server.AddDatabase("errdb").QueryStoreState = "ERROR";
        server.AddDatabase("noaccess").QueryStoreAccess = false;
        server.AddDatabase("noperm").QueryStoreCanView = false;
        var aggregator = new LogFlushAggregator();
        await using var h = new PollerHarness(server, next: aggregator);

        await h.PollAsync();
        var rows = LastPoll(h);
        Assert.Equal(
            [("errdb", "error"), ("noaccess", "no_access"), ("noperm", "no_permission"), ("offdb", "off"), ("rodb", "read_only"), ("sales", "read_write")],
            rows.Where(r => r.QueryHash is null).Select(r => (r.Database, r.State)).Order());
        Assert.DoesNotContain(rows, r => r.Database != "sales" && r.QueryHash is not null); // figures only where Query Store is READ_WRITE
        foreach (var state in new[] { "read_write", "read_only", "off", "error", "no_access", "no_permission" })
        {
            Assert.Equal(1, Gauge(aggregator, state));
        }

        // Only READ_WRITE databases are asked for their statements; a database the login cannot read is not entered at all.
        Assert.Equal(["[sales]."], server.RequestsFor("sys.query_store_runtime_stats AS rs").Select(r => r.Text.Contains("FROM [sales].", StringComparison.Ordinal) ? "[sales]." : r.Text));
        Assert.DoesNotContain(server.RequestsFor("sys.database_query_store_options"), r => r.Text.Contains("[noaccess]", StringComparison.Ordinal) || r.Text.Contains("[noperm]", StringComparison.Ordinal));

        // Each state other than read_write is logged once with what to do; nothing for the database that is read.
        var logged = h.Logger.Lines.Where(l => l.EventId == 540).Select(l => l.Message).ToList();
        Assert.Equal(5, logged.Count);
        Assert.Contains(logged, m => m.StartsWith("prod-1/rodb: Query Store: read_only: Query Store is READ_ONLY", StringComparison.Ordinal));
        Assert.Contains(logged, m => m.StartsWith("prod-1/offdb: Query Store: off: Query Store is OFF", StringComparison.Ordinal));
        Assert.Contains(logged, m => m.Contains("noaccess", StringComparison.Ordinal) && m.Contains("CONNECT ANY DATABASE", StringComparison.Ordinal));

        var check = QueryStoreSignal.Describe(rows).ToList();
        Assert.Contains("Query Store of rodb: read_only: " + QueryStoreStates.Explain(QueryStoreStates.ReadOnly), check);
        Assert.Contains(check, l => l.StartsWith("Query Store of sales: read_write; most log recently: 0xFFFFFFFFFFFFFFF0 7.8 KiB " + TextB, StringComparison.Ordinal));

        // Unchanged states are not logged again; a database whose Query Store comes back is logged, and read.
        await NextAsync(h);
        Assert.Equal(5, h.Logger.Lines.Count(l => l.EventId == 540));
        server.Database("rodb").QueryStoreState = "READ_WRITE";
        await NextAsync(h);
        Assert.Single(h.Logger.Lines, l => l.EventId == 540 && l.Message.StartsWith("prod-1/rodb: Query Store: read_write", StringComparison.Ordinal));
        Assert.Equal(2, Gauge(aggregator, QueryStoreStates.ReadWrite));
        Assert.Equal(0, Gauge(aggregator, QueryStoreStates.ReadOnly)); // a state found before stays exported, at 0: no stale series
        Assert.Null(Gauge(aggregator, QueryStoreStates.Unsupported)); // a state never found is not exported
    }

    [Fact]
    public async Task Before_SQL_Server_2017_no_statement_is_sent_and_the_databases_count_as_unsupported()
    {
        await using var server = new ScriptedSqlServer { QueryStoreHasLogBytes = false, ProductVersion = "13.0.6300.2" };
        Statements(server.Database("sales"));
        var aggregator = new LogFlushAggregator();
        await using var h = new PollerHarness(server, next: aggregator);
        await h.PollAsync();

        Assert.Empty(server.RequestsFor("sys.query_store_runtime_stats AS rs"));
        Assert.Empty(server.RequestsFor("sys.database_query_store_options"));
        Assert.Equal(("sales", QueryStoreStates.Unsupported), LastPoll(h).Select(r => (r.Database, r.State)).Single());
        Assert.Equal(1, Gauge(aggregator, QueryStoreStates.Unsupported));
        Assert.Contains("N'VIEW DATABASE STATE'", Assert.Single(server.RequestsFor("HAS_DBACCESS")).Text, StringComparison.Ordinal); // 2016's permission
    }

    [Fact]
    public async Task Only_the_busiest_databases_by_log_bytes_flushed_are_read_and_the_choice_follows_the_load()
    {
        await using var server = new ScriptedSqlServer();
        server.Database("sales").FlushesPerPoll = 100;
        server.AddDatabase("busy").FlushesPerPoll = 1_000;
        server.AddDatabase("mid").FlushesPerPoll = 50;
        server.AddDatabase("quiet").FlushesPerPoll = 1;
        await using var h = new PollerHarness(server, fleet: f => f.QueryStoreDatabases = 2);

        await h.PollAsync();
        Assert.Equal(["busy", "sales"], ReadDatabases(server));

        // quiet becomes the busiest: ranked by what each flushed since the previous Query Store poll, not since the start.
        server.Database("quiet").FlushesPerPoll = 100_000;
        var before = server.RequestsFor("sys.database_query_store_options").Count;
        await NextAsync(h);
        Assert.Equal(["busy", "quiet"], ReadDatabases(server, before));
        Assert.Equal(["busy", "quiet"], LastPoll(h).Select(r => r.Database).Distinct().Order(StringComparer.Ordinal));
    }

    [Fact]
    public async Task Azure_SQL_Database_reads_its_one_database_without_three_part_names()
    {
        await using var server = new ScriptedSqlServer { Shape = ServerShape.AzureSqlDatabase, EngineEdition = 5, ProductVersion = "12.0.2000.8", CurrentDatabase = "sales" };
        Statements(server.Database("sales"));
        await using var h = new PollerHarness(server, o => o.Azure = true);
        await h.PollAsync();

        Assert.Equal(QueryStoreSignal.AzureCandidate.Text, Assert.Single(server.RequestsFor("query_store_runtime_stats')")).Text);
        Assert.Equal(QueryStoreSignal.Stats("", text: true).Text, Assert.Single(server.RequestsFor("sys.query_store_runtime_stats AS rs")).Text);
        Assert.Equal(4, LastPoll(h).Count(r => r.Database == "sales"));
    }

    [Fact]
    public async Task With_statement_text_off_no_text_is_asked_for_read_logged_or_exported()
    {
        await using var server = new ScriptedSqlServer();
        Statements(server.Database("sales"));
        var aggregator = new LogFlushAggregator();
        await using var h = new PollerHarness(server, next: aggregator, fleet: f => f.StatementText = false);
        await h.PollAsync();
        await NextAsync(h);

        var stats = server.RequestsFor("sys.query_store_runtime_stats AS rs");
        Assert.Equal(2, stats.Count);
        Assert.All(stats, r => Assert.Equal(QueryStoreSignal.Stats("[sales].", text: false).Text, r.Text));
        Assert.All(stats, r => Assert.DoesNotContain("query_sql_text", r.Text, StringComparison.Ordinal));
        var rows = h.Sink.Values<QueryStoreRow>();
        Assert.Equal(8, rows.Count);
        Assert.All(rows, r => Assert.Null(r.Text));
        Assert.Equal(["0x00000000000000A1", "0x0000000000000C03", "0xFFFFFFFFFFFFFFF0", "other"], Series(aggregator).Written.Keys.Order(StringComparer.Ordinal));
        var check = string.Join("\n", QueryStoreSignal.Describe(LastPoll(h)));
        Assert.Contains("most log recently: 0xFFFFFFFFFFFFFFF0 15.6 KiB; 0x00000000000000A1 9.8 KiB; 0x0000000000000C03 200 B", check, StringComparison.Ordinal);
        foreach (var fragment in new[] { "INSERT", "UPDATE", "SELECT c0" })
        {
            Assert.DoesNotContain(fragment, check, StringComparison.Ordinal);
            Assert.DoesNotContain(fragment, h.Logger.Everything, StringComparison.Ordinal);
        }

        AssertNoTextInLabels(aggregator);
    }

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task Check_says_what_query_store_holds_and_shows_text_only_when_allowed(bool text)
    {
        await using var server = new ScriptedSqlServer();
        Statements(server.Database("sales"));
        server.AddDatabase("offdb").QueryStoreState = "OFF";
        var result = await LogFlushMonitor.SqlServer.Check.InstanceChecker.CheckAsync(new SqlServerInstanceOptions { Name = "prod-1", ConnectionString = server.ConnectionString() },
            new SqlServerSourceOptions { CommandTimeout = TimeSpan.FromSeconds(5), StatementText = text }, null, CancellationToken.None);

        Assert.Contains("Query Store of offdb: off: " + QueryStoreStates.Explain(QueryStoreStates.Off), result.WillCollect);
        var sales = Assert.Single(result.WillCollect, l => l.StartsWith("Query Store of sales: read_write; most log recently: ", StringComparison.Ordinal));
        Assert.Equal(text
            ? "Query Store of sales: read_write; most log recently: 0xFFFFFFFFFFFFFFF0 7.8 KiB " + TextB + "; 0x00000000000000A1 4.9 KiB INSERT INTO dbo.Orders (Id, Note) VALUES (@p0, @p1); 0x0000000000000C03 100 B " + TextC[..200]
            : "Query Store of sales: read_write; most log recently: 0xFFFFFFFFFFFFFFF0 7.8 KiB; 0x00000000000000A1 4.9 KiB; 0x0000000000000C03 100 B",
            sales);
        Assert.DoesNotContain(result.Problems, p => p.Contains("Query Store", StringComparison.Ordinal));
    }

    private static List<string> ReadDatabases(ScriptedSqlServer server, int skip = 0) =>
        [.. server.RequestsFor("sys.database_query_store_options").Skip(skip).Select(r => System.Text.RegularExpressions.Regex.Match(r.Text, @"FROM \[([^\]]*)\]").Groups[1].Value).Order(StringComparer.Ordinal)];

    private static (Dictionary<string, double> Written, Dictionary<string, double> Executions) Series(LogFlushAggregator aggregator)
    {
        var buffers = new MeasurementBuffers();
        aggregator.Read(buffers);
        var written = MetricCatalog.All.Single(f => f.Name == "sqlserver.database.statement.log.written");
        var executions = MetricCatalog.All.Single(f => f.Name == "sqlserver.database.statement.executions");
        static string Hash(ReadOnlySpan<KeyValuePair<string, object?>> tags)
        {
            foreach (var t in tags)
            {
                if (t.Key == MetricAttributes.QueryHash)
                {
                    return (string)t.Value!;
                }
            }

            return "";
        }

        return (buffers.Double(written).ToDictionary(m => Hash(m.Tags), m => m.Value),
            buffers.Long(executions).ToDictionary(m => Hash(m.Tags), m => (double)m.Value));
    }

    private static long? Gauge(LogFlushAggregator aggregator, string state)
    {
        var buffers = new MeasurementBuffers();
        aggregator.Read(buffers);
        var family = MetricCatalog.All.Single(f => f.Name == "sqlserver.monitor.query_store.databases");
        var m = buffers.Long(family).Where(m => m.Tags.ToArray().Any(t => t.Key == QueryStoreSignal.StateAttribute && (string?)t.Value == state)).ToList();
        return m.Count == 0 ? null : m.Sum(x => x.Value);
    }

    private static void AssertNoTextInLabels(LogFlushAggregator aggregator)
    {
        var buffers = new MeasurementBuffers();
        aggregator.Read(buffers);
        foreach (var family in MetricCatalog.All.Where(f => f.Kind is MetricKind.Counter or MetricKind.Gauge))
        {
            var values = family.IsInteger ? buffers.Long(family).SelectMany(m => m.Tags.ToArray()) : buffers.Double(family).SelectMany(m => m.Tags.ToArray());
            Assert.All(values, t => Assert.False(t.Value is string s && (s.Contains("INSERT", StringComparison.Ordinal) || s.Contains("UPDATE", StringComparison.Ordinal) || s.Contains("SELECT", StringComparison.Ordinal)), $"{family.Name}: {t.Key}={t.Value}"));
        }
    }
}
