using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Hosting;
using Microsoft.Extensions.Logging;

namespace LogFlushMonitor.Tests.Hosting;

/// <summary>The periodic summary's line: a stall is named first, on a warning line of its own; otherwise the usual line.</summary>
public class SummaryLineTests
{
    private static readonly DateTime T0 = new(2026, 11, 22, 12, 0, 0, DateTimeKind.Utc);

    /// <summary>shop with 5,000 single-sector flushes in a second: the batching advice, unless a stall speaks first.</summary>
    private static DatabaseSnapshot Shop()
    {
        var aggregator = new LogFlushAggregator();
        for (var i = 0; i < 5000; i++)
        {
            aggregator.OnLogFlush(new LogFlushEvent("sql1", 5, "shop", 512, (ulong)i, T0.AddTicks(i * 2000L)));
        }

        return Assert.Single(aggregator.Snapshot());
    }

    /// <summary>
    /// master, model and msdb flush on every instance (a real server's counters) but the event session does not watch
    /// them: their "0 flush events ... no advice" lines filled a third of a fleet's summary. Left out unless they have
    /// something to say, and counted in the rest.
    /// </summary>
    [Fact]
    public void A_database_the_session_does_not_see_with_nothing_to_say_is_left_out_of_the_summary()
    {
        var shop = Shop();
        var master = shop with { Database = "master", WriteSizes = new WriteSizeDistribution(), CounterFlushesPerSecond = 2, CounterFlushWaitSecondsPerSecond = 0.002 };
        var stalled = master with { Database = "model", OutstandingFlushes = 1, OldestOutstandingFlushSeconds = 40, WriteLogWaitingSessions = 1, WriteLogLongestWaitSeconds = 40 };

        var worst = SummaryLine.Worst([master, shop, stalled], SummaryLine.MaxDatabases).Select(d => d.Database).ToList();

        // master waits more than shop by its counters (it would rank first); it is left out, the stalled model is not.
        Assert.Equal(["model", "shop"], worst);
        Assert.False(SummaryLine.WorthALine(master));
    }

    [Fact]
    public void The_usual_line_leaves_where_commit_time_goes_to_the_budget_line()
    {
        // The commit-time advice has its own line (event 205); the usual line's advice is the next one, or none.
        var logger = new LineLogger();
        var db = Shop() with { CommitBudget = new CommitBudgetSnapshot([new CommitBudgetPart(CommitPart.SyncReplica, 30, CommitPartSource.Events), new CommitBudgetPart(CommitPart.LocalFlush, 1, CommitPartSource.Events)], 60, 1000, []) };
        SummaryLine.Log(logger, db);

        var (_, id, message) = Assert.Single(logger.Lines);
        Assert.Equal(200, id);
        Assert.DoesNotContain("commit time", message, StringComparison.Ordinal);
        Assert.Contains("row-at-a-time", message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_stall_is_a_warning_whose_line_names_it_before_any_figure()
    {
        var logger = new LineLogger();
        SummaryLine.Log(logger, Shop() with { OutstandingFlushes = 8, OldestOutstandingFlushSeconds = 40.2, WriteLogWaitingSessions = 8, WriteLogLongestWaitSeconds = 39.8 });

        var (level, id, message) = Assert.Single(logger.Lines);
        Assert.Equal((LogLevel.Warning, 201), (level, id));
        Assert.StartsWith("sql1/shop: LOG STALL: 8 flushes outstanding for 40 s; 8 sessions waiting on WRITELOG for up to 40 s: the log device is not completing writes; 5000 flush events", message, StringComparison.Ordinal);
        Assert.DoesNotContain("batch", message, StringComparison.Ordinal);
    }

    [Fact]
    public void Without_a_stall_the_line_is_the_usual_one_with_its_first_advice()
    {
        var logger = new LineLogger();
        SummaryLine.Log(logger, Shop() with { OutstandingFlushes = 2, OldestOutstandingFlushSeconds = 0.003, WriteLogWaitingSessions = 3, WriteLogLongestWaitSeconds = 0.001 });

        var (level, id, message) = Assert.Single(logger.Lines);
        Assert.Equal((LogLevel.Information, 200), (level, id));
        Assert.StartsWith("sql1/shop: 5000 flush events, - flushes/s (counter), 100 % of 512 B, log write - ms; 100 % of flushes are 512 B: commits are row-at-a-time", message, StringComparison.Ordinal);
    }

    /// <summary>
    /// Issue 22 item 3: the line after a database's names who waited most on WRITELOG since the last summary (not since
    /// the start: an application that waited long ago is not named again) and who holds the most log now.
    /// </summary>
    [Fact]
    public void The_who_line_names_the_application_that_waited_most_since_the_last_summary_and_the_largest_log_writer()
    {
        var logger = new LineLogger();
        var baselines = new WhoBaselines();
        var first = Shop() with
        {
            WriteLogApplications = [new("ReportingJob", 30.0, 100), new("OrderService", 12.5, 900), new("other", 0.5, 20)],
            LogWriters = [new("EtlLoader", 1, 536_870_912, 600_000_000), new("OrderService", 3, 4096, 8192)],
        };
        SummaryLine.LogWho(logger, first, baselines);
        baselines.EndSummary();
        var second = first with { WriteLogApplications = [new("ReportingJob", 30.0, 100), new("OrderService", 20.0, 1500), new("other", 0.5, 20)], LogWriters = [] };
        SummaryLine.LogWho(logger, second, baselines);
        SummaryLine.LogWho(logger, Shop() with { Database = "quiet" }, baselines); // nothing known: no line
        baselines.EndSummary();

        Assert.Equal(2, logger.Lines.Count);
        Assert.Equal((LogLevel.Information, 203), (logger.Lines[0].Level, logger.Lines[0].EventId));
        Assert.Equal("sql1/shop: who: ReportingJob waited most on WRITELOG (30 s) since the last summary; EtlLoader holds the most log: 512 MiB in 1 open transaction(s)", logger.Lines[0].Message);
        Assert.Equal("sql1/shop: who: OrderService waited most on WRITELOG (7.5 s) since the last summary; no open transaction holds log", logger.Lines[1].Message);
    }

    /// <summary>
    /// Issue 34 item 3: the statements line names the query hash that waited most on WRITELOG and the one that wrote the
    /// most log (Query Store) since the last summary, with the text Query Store gave unless StatementText is off.
    /// </summary>
    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public void The_statements_line_names_the_statements_that_waited_and_wrote_most_since_the_last_summary(bool text)
    {
        var logger = new LineLogger();
        var baselines = new WhoBaselines();
        const string Insert = "INSERT INTO dbo.Orders (CustomerId, Amount) VALUES (@p0, @p1)";
        var first = Shop() with
        {
            WriteLogStatements = [new("0x4F7A1C2D3E5B6A79", 10.0, 100), new("0x1B2C3D4E5F607182", 4.0, 50), new("other", 1.0, 10)],
            LogStatements = [new("0x4F7A1C2D3E5B6A79", 1_048_576, 100, Insert), new("0x1B2C3D4E5F607182", 4_194_304, 50, "UPDATE dbo.Inventory SET Quantity = Quantity - @p0")],
        };
        SummaryLine.LogStatements(logger, first, baselines, text);
        baselines.EndSummary();
        Assert.Equal(text // the first summary: since monitoring began
            ? "sql1/shop: statements: 0x4F7A1C2D3E5B6A79 (" + Insert + ") waited most on WRITELOG (10 s) since the last summary; 0x1B2C3D4E5F607182 (UPDATE dbo.Inventory SET Quantity = Quantity - @p0) wrote the most log (Query Store): 4 MiB since the last summary"
            : "sql1/shop: statements: 0x4F7A1C2D3E5B6A79 waited most on WRITELOG (10 s) since the last summary; 0x1B2C3D4E5F607182 wrote the most log (Query Store): 4 MiB since the last summary",
            Assert.Single(logger.Lines).Message);
        logger.Lines.Clear();

        // Since then: 0x…7182 waited 6 s more, 0x…6A79 2 s; 0x…6A79 wrote 3 MiB more, 0x…7182 nothing.
        var second = first with
        {
            WriteLogStatements = [new("0x4F7A1C2D3E5B6A79", 12.0, 120), new("0x1B2C3D4E5F607182", 10.0, 90), new("other", 9.0, 99)],
            LogStatements = [new("0x4F7A1C2D3E5B6A79", 4_194_304, 400, Insert), new("0x1B2C3D4E5F607182", 4_194_304, 50, "UPDATE dbo.Inventory SET Quantity = Quantity - @p0")],
        };
        SummaryLine.LogStatements(logger, second, baselines, text);

        var (level, id, message) = Assert.Single(logger.Lines);
        Assert.Equal((LogLevel.Information, 210), (level, id));
        Assert.Equal(text
            ? "sql1/shop: statements: 0x1B2C3D4E5F607182 (UPDATE dbo.Inventory SET Quantity = Quantity - @p0) waited most on WRITELOG (6 s) since the last summary; 0x4F7A1C2D3E5B6A79 (" + Insert + ") wrote the most log (Query Store): 3 MiB since the last summary"
            : "sql1/shop: statements: 0x1B2C3D4E5F607182 waited most on WRITELOG (6 s) since the last summary; 0x4F7A1C2D3E5B6A79 wrote the most log (Query Store): 3 MiB since the last summary",
            message);
    }

    /// <summary>
    /// After the first summary, a database listed for the first time (or an application new to its top five) has no
    /// baseline: its seconds since the start are not "since the last summary", and naming it on them would blame an
    /// application for waits of an hour ago. Baselines are kept for the databases the last summary listed only.
    /// </summary>
    [Fact]
    public void An_application_without_a_baseline_is_not_named_on_its_seconds_since_the_start_and_old_baselines_go()
    {
        var logger = new LineLogger();
        var baselines = new WhoBaselines();
        var shop = Shop() with { WriteLogApplications = [new("OrderService", 2.0, 10), new("other", 0.1, 1)] };
        SummaryLine.LogWho(logger, shop, baselines);
        baselines.EndSummary();

        // An hour on: "late" is listed for the first time with 3,600 s waited since the start; shop gains a new application.
        var late = Shop() with { Database = "late", WriteLogApplications = [new("Batch", 3600.0, 50)] };
        SummaryLine.LogWho(logger, late, baselines);
        SummaryLine.LogWho(logger, shop with { WriteLogApplications = [new("OrderService", 3.0, 20), new("Nightly", 900.0, 5), new("other", 0.1, 1)] }, baselines);
        baselines.EndSummary();

        Assert.Equal(3, logger.Lines.Count);
        Assert.Equal("sql1/late: who: WRITELOG time by application is measured from this summary on; no open transaction holds log", logger.Lines[1].Message);
        Assert.Equal("sql1/shop: who: OrderService waited most on WRITELOG (1 s) since the last summary of the applications measured; 1 more measured from this summary on; no open transaction holds log", logger.Lines[2].Message);
        Assert.Equal(4, baselines.Count); // late's one, shop's three; and nothing of databases no longer listed:

        SummaryLine.LogWho(logger, late with { WriteLogApplications = [new("Batch", 3601.5, 51)] }, baselines);
        baselines.EndSummary();
        Assert.Equal("sql1/late: who: Batch waited most on WRITELOG (1.5 s) since the last summary; no open transaction holds log", logger.Lines[3].Message);
        Assert.Equal(1, baselines.Count);
    }

    [Theory]
    [InlineData(0, "0 B")]
    [InlineData(812, "812 B")]
    [InlineData(3584, "3.5 KiB")]
    [InlineData(5_138_022, "4.9 MiB")]
    [InlineData(3_221_225_472, "3 GiB")]
    public void A_small_log_writer_is_not_shown_as_0_MiB(long bytes, string shown) =>
        Assert.Equal(shown, SummaryLine.LogSize(bytes));

    /// <summary>
    /// Issue 20 item 10: one line per database was 64,000 lines a minute at 32,000 databases. The summary names at most
    /// <see cref="SummaryLine.MaxDatabases"/>, the worst first (a stall, then the most log waiting), and counts the rest.
    /// </summary>
    [Fact]
    public void A_summary_of_thousands_of_databases_names_the_worst_twenty_and_counts_the_rest()
    {
        var quiet = Shop();
        var databases = Enumerable.Range(0, 5000).Select(i => quiet with { Database = $"db{i:D4}", CounterFlushWaitSecondsPerSecond = 0.001 }).ToList();
        databases[4321] = databases[4321] with { CounterFlushWaitSecondsPerSecond = 2.5 };
        databases[17] = databases[17] with { OutstandingFlushes = 8, OldestOutstandingFlushSeconds = 40.2, WriteLogWaitingSessions = 8, WriteLogLongestWaitSeconds = 39.8 };

        var worst = SummaryLine.Worst(databases, SummaryLine.MaxDatabases).ToList();

        Assert.Equal(20, worst.Count);
        Assert.Equal(["db0017", "db4321"], worst.Take(2).Select(d => d.Database));
        var logger = new LineLogger();
        SummaryLine.LogRest(logger, databases.Count - SummaryLine.MaxDatabases, SummaryLine.MaxDatabases);
        var (_, id, message) = Assert.Single(logger.Lines);
        Assert.Equal(202, id);
        Assert.Contains("4980 more databases", message, StringComparison.Ordinal);
    }

    /// <summary>
    /// Issue 33 items 1 and 3: the line after a database's says where commit time went, largest part first, the log writes
    /// held against the storage the tier publishes (the source named) and the share of Azure's log-rate cap written.
    /// </summary>
    [Fact]
    public void The_budget_line_names_the_largest_part_first_the_storage_verdict_with_its_source_and_the_cap()
    {
        var logger = new LineLogger();
        var azure = Shop() with
        {
            // 1,000 commits waited 9 s on the replica, 2 s on the local flush and 1 s on the governor in the window.
            CommitBudget = new CommitBudgetSnapshot(
                [new(CommitPart.SyncReplica, 9, CommitPartSource.Events), new(CommitPart.LocalFlush, 2, CommitPartSource.Events), new(CommitPart.LogRateGovernor, 1, CommitPartSource.Events)],
                60, 1_000, []),
            LogWriteLatencySeconds = 0.006,
            LogWritesPerSecond = 100,
            LogRate = new("database", "GeneralPurpose", "SQLDB_GP_Gen5_2", 9_830_400, 100, 9_830_400, null, null), // 9.375 MB/s, written in full
        };
        SummaryLine.LogBudget(logger, azure);
        SummaryLine.LogBudget(logger, Shop() with { Database = "quiet" }); // nothing waited, nothing measured: no line

        var (level, id, message) = Assert.Single(logger.Lines);
        Assert.Equal((LogLevel.Information, 205), (level, id));
        Assert.Equal(
            "sql1/shop: commit time: 12 ms per commit: 9 ms waiting for the synchronous replica, 2 ms local flush, 1 ms log-rate cap; "
            + "log writes take 6 ms on average (io_stall_write_ms / num_of_writes over the last poll): within Azure SQL Database General Purpose's published 5-7 ms write latency "
            + "(Microsoft, \"Resource limits for single databases using the vCore purchasing model\"); log writes at 100 % of the GeneralPurpose cap of 9.38 MB/s",
            message);
    }

    private sealed class LineLogger : ILogger
    {
        public List<(LogLevel Level, int EventId, string Message)> Lines { get; } = [];

        public IDisposable? BeginScope<TState>(TState state)
            where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => true;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter) =>
            Lines.Add((logLevel, eventId.Id, formatter(state, exception)));
    }
}
