using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Core.Signals;
using LogFlushMonitor.SqlServer.Tests.Scripted;

namespace LogFlushMonitor.SqlServer.Tests.Polling;

/// <summary>
/// The top log writers (sys.dm_tran_database_transactions with the sessions' program_name), through the real SqlClient
/// and Dapper against the scripted server: bounded to the top 5 programs per database and "other" (issue 22 item 3).
/// </summary>
public class LogWritersPollerTests
{
    [Fact]
    public async Task Seven_programs_fold_into_the_five_using_the_most_log_and_other_with_nothing_lost()
    {
        await using var server = new ScriptedSqlServer();
        var aggregator = new LogFlushAggregator();
        await using var h = new PollerHarness(server, next: aggregator);
        for (var p = 0; p < 7; p++)
        {
            server.OpenTransactions.Add(("sales", "app" + p, (p + 1) * 1_000_000L, (p + 1) * 2_000_000L));
        }

        server.OpenTransactions.Add(("sales", "app6", 500_000L, 600_000L)); // a second transaction of the biggest writer
        server.OpenTransactions.Add(("sales", null, 9_000_000L, 9_000_000L)); // an internal session: no program name
        server.OpenTransactions.Add(("sales", "reader", 0L, 0L)); // holds no log: not a writer
        await h.PollAsync();

        var request = Assert.Single(server.RequestsFor("sys.dm_tran_database_transactions"));
        Assert.Equal(LogWritersSignal.Statement.Text, request.Text);
        var writers = h.Sink.Values<LogWritersRow>();
        Assert.Equal(["app2", "app3", "app4", "app5", "app6", "other"], writers.Select(w => w.Application).Order(StringComparer.Ordinal));
        var app6 = Assert.Single(writers, w => w.Application == "app6");
        Assert.Equal((2, 7_500_000L, 14_600_000L), (app6.Transactions, app6.LogBytesUsed, app6.LogBytesReserved));
        var other = Assert.Single(writers, w => w.Application == "other");
        Assert.Equal((3, 1_000_000L + 2_000_000L + 9_000_000L), (other.Transactions, other.LogBytesUsed));
        Assert.Equal(Enumerable.Range(1, 7).Sum(p => p * 1_000_000L) + 500_000L + 9_000_000L, writers.Sum(w => w.LogBytesUsed));
        Assert.Single(h.Sink.Of<PollEnded>(), p => p.Signal == SignalRegistry.LogWriters);

        // The next poll sees two programs only: the others' series go (retired by the poll), none is left over.
        server.OpenTransactions.RemoveAll(t => t.Program is not "app0" and not "app1");
        await h.PollAsync();
        Assert.Equal(["app0", "app1"], LogWriterSeries(aggregator).Order(StringComparer.Ordinal));
    }

    [Fact]
    public async Task A_hostile_program_name_is_cut_to_the_attribute_length_and_counted()
    {
        await using var server = new ScriptedSqlServer();
        var aggregator = new LogFlushAggregator();
        await using var h = new PollerHarness(server, next: aggregator);
        var hostile = "'; DROP TABLE x; --\"\n\r\u0007" + new string('w', 3_000); // program_name is nvarchar(128): a forged 3 KB one
        server.OpenTransactions.Add(("sales", hostile, 4096, 8192));
        var truncated = MetricAttributes.Truncated;
        await h.PollAsync();

        Assert.Equal(hostile, Assert.Single(h.Sink.Values<LogWritersRow>()).Application); // the server's text, whole
        Assert.Equal([hostile[..MetricAttributes.MaxValueLength]], LogWriterSeries(aggregator));
        Assert.True(MetricAttributes.Truncated > truncated);
    }

    [Fact]
    public async Task Without_view_server_state_the_poll_fails_loudly_and_reads_no_writers()
    {
        await using var server = new ScriptedSqlServer();
        await using var h = new PollerHarness(server);
        server.OpenTransactions.Add(("sales", "app", 4096, 8192));
        server.DenyPermission();
        await h.PollAsync();

        Assert.Empty(h.Sink.Values<LogWritersRow>());
        Assert.Single(h.Logger.Lines, l => l.EventId == 501 && l.Message.Contains("log_writers", StringComparison.Ordinal));
    }

    private static List<string> LogWriterSeries(LogFlushAggregator aggregator)
    {
        var buffers = new MeasurementBuffers();
        aggregator.Read(buffers);
        var family = MetricCatalog.All.Single(f => f.Name == "sqlserver.database.log.writer.used");
        return [.. buffers.Long(family).Select(m => (string)m.Tags.ToArray().Single(t => t.Key == MetricAttributes.Application).Value!)];
    }
}
