using System.Globalization;
using System.Text;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Pipeline;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;
using LogFlushMonitor.SqlServer.Histogram;
using LogFlushMonitor.SqlServer.Sessions;
using LogFlushMonitor.SqlServer.Tests.Sessions;
using LogFlushMonitor.SqlServer.Tests.Streaming;
using LogFlushMonitor.XEvent.Xml;

namespace LogFlushMonitor.SqlServer.Tests.Histogram;

public sealed class HistogramTests
{
    internal static string Xml(bool truncated, params (long Value, long Count)[] slots)
    {
        var sb = new StringBuilder();
        sb.Append(CultureInfo.InvariantCulture, $"<HistogramTarget truncated=\"{(truncated ? 1 : 0)}\" buckets=\"256\">");
        foreach (var (value, count) in slots)
        {
            sb.Append(CultureInfo.InvariantCulture, $"<Slot count=\"{count}\"><value>{value}</value></Slot>");
        }

        return sb.Append("</HistogramTarget>").ToString();
    }

    private static List<(long, long)> Apply(HistogramDeltas deltas, params (long Value, long Count)[] slots)
    {
        var got = new List<(long, long)>();
        deltas.Apply(XEventXmlReader.ReadHistogram(Xml(false, slots)), (v, n) => got.Add((v, n)));
        return got;
    }

    [Fact]
    public void The_first_reading_of_a_session_that_ran_before_is_a_baseline_then_increases_are_delivered()
    {
        var deltas = new HistogramDeltas();
        Assert.Empty(Apply(deltas, (512, 1000), (4096, 10)));
        Assert.Equal([(512L, 5L), (61440L, 2L)], Apply(deltas, (512, 1005), (4096, 10), (61440, 2)));
    }

    [Fact]
    public void A_session_we_just_started_counts_from_zero()
    {
        var deltas = new HistogramDeltas();
        deltas.CountFromZero();
        Assert.Equal([(512L, 7L)], Apply(deltas, (512, 7)));
    }

    [Fact]
    public void A_lower_count_is_a_new_baseline_and_a_vanished_slot_counts_from_zero_again()
    {
        var deltas = new HistogramDeltas();
        deltas.CountFromZero();
        Apply(deltas, (512, 100), (4096, 50));
        Assert.Empty(Apply(deltas, (512, 3))); // the session restarted: 512 fell, 4096 vanished
        Assert.Equal(1, deltas.Resets);
        Assert.Equal([(512L, 2L), (4096L, 4L)], Apply(deltas, (512, 5), (4096, 4)));
    }

    [Fact]
    public void Non_integer_slots_are_ignored_and_counted()
    {
        var deltas = new HistogramDeltas();
        deltas.CountFromZero();
        var got = new List<(long, long)>();
        deltas.Apply(new HistogramContent(false, 2, [new HistogramSlot("abc", 3), new HistogramSlot("1024", 2)]), (v, n) => got.Add((v, n)));
        Assert.Equal([(1024L, 2L)], got);
        Assert.Equal(1, deltas.NonIntegerSlots);
    }

    [Fact]
    public void Per_database_targets_up_to_the_cap_else_one_instance_wide_target()
    {
        var two = new DatabaseSelection(DatabaseFilterKind.Include, [5, 6], new Dictionary<int, string> { [5] = "sales", [6] = "hr" });
        Assert.Equal([new HistogramTarget("lfm_h5", 5, "sales"), new HistogramTarget("lfm_h6", 6, "hr")], HistogramSource.Plan("lfm", two, azure: false, maxSessions: 2));
        Assert.Equal([new HistogramTarget("lfm_h", null, "(all)")], HistogramSource.Plan("lfm", two, azure: false, maxSessions: 1));
        Assert.Equal([new HistogramTarget("lfm_h", null, "(all)")], HistogramSource.Plan("lfm", two, azure: true, maxSessions: 8));
    }

    [Fact]
    public async Task Polled_target_deltas_become_a_write_size_distribution_and_truncation_is_counted()
    {
        await using var server = new XeScriptedServer();
        var readings = new Queue<string>([
            Xml(false, (512, 10), (4096, 2)),
            Xml(true, (512, 15), (4096, 2), (61440, 1)),
        ]);
        var last = "";
        server.HistogramXml = name =>
        {
            Assert.Equal("lfm_test_h5", name);
            lock (readings)
            {
                last = readings.Count > 0 ? readings.Dequeue() : last;
                return last;
            }
        };
        var aggregator = new LogFlushAggregator();
        var pipeline = new SamplePipeline(aggregator);
        var health = new SourceHealth();
        var options = new SqlServerInstanceOptions { Name = "prod1", SessionName = "lfm_test", Mode = CollectionMode.Histogram, IncludeDatabases = ["sales"] };
        using var instance = TestInstance.Create(options, server.ConnectionString(), pipeline.DroppingWriter, pipeline.Polls, health);
        var source = instance.Histogram;
        using var cts = new CancellationTokenSource();
        var consume = pipeline.RunAsync(cts.Token);
        var run = source.RunAsync(cts.Token);

        await StreamRows.Eventually(() => source.Polls >= 3, "three polls");
        await cts.CancelAsync();
        await run.WaitAsync(TimeSpan.FromSeconds(10));
        await consume;

        var ddl = Assert.Single(server.StatementsWith("CREATE EVENT SESSION"));
        Assert.StartsWith("CREATE EVENT SESSION [lfm_test_h5] ON SERVER", ddl, StringComparison.Ordinal);
        Assert.Contains("ADD EVENT sqlserver.log_flush_start (WHERE ([database_id] = (5)))", ddl, StringComparison.Ordinal);
        Assert.Contains("ADD TARGET package0.histogram (SET filtering_event_name = N'sqlserver.log_flush_start', source = N'write_size', source_type = (0), slots = (256))", ddl, StringComparison.Ordinal);
        Assert.Contains("EVENT_RETENTION_MODE = ALLOW_SINGLE_EVENT_LOSS", ddl, StringComparison.Ordinal);
        Assert.Equal(18, source.FlushesDelivered);
        Assert.True(source.TruncatedReadings >= 2); // the second reading and every repeat of it
        var sizes = aggregator.Snapshot().Single(d => d.DatabaseId == 5).WriteSizes;
        Assert.Equal(18, sizes.Count);
        Assert.Equal(15, sizes.CountAtMost(512));
        Assert.Equal(17, sizes.CountAtMost(4096));
        Assert.Equal(15L * 512 + 2 * 4096 + 61440, sizes.TotalBytes);
        Assert.True(health.IsUp("prod1", HistogramSource.Component));
    }

    [Fact]
    public async Task A_histogram_session_a_DBA_dropped_is_created_again_and_counts_from_zero()
    {
        await using var server = new XeScriptedServer();
        var count = 0L;
        server.HistogramXml = name => server.Session(name).Running ? Xml(false, (512, Interlocked.Read(ref count))) : null;
        var sink = new RecordingSink();
        var options = new SqlServerInstanceOptions { Name = "prod1", SessionName = "lfm_test", Mode = CollectionMode.Histogram, IncludeDatabases = ["sales"] };
        using var instance = TestInstance.Create(options, server.ConnectionString(), sink, sink, new SourceHealth());
        var source = instance.Histogram;
        using var cts = new CancellationTokenSource();
        var run = source.RunAsync(cts.Token);
        Interlocked.Exchange(ref count, 4);
        await StreamRows.Eventually(() => sink.Flushes == 4, "the first four flushes");

        server.SetSession("lfm_test_h5", defined: false, running: false);
        Interlocked.Exchange(ref count, 3); // the new session starts from zero and has counted three
        await StreamRows.Eventually(() => sink.Flushes == 7, "the re-created session's flushes");
        await cts.CancelAsync();
        await run.WaitAsync(TimeSpan.FromSeconds(10));

        Assert.Equal(2, server.StatementsWith("CREATE EVENT SESSION [lfm_test_h5]").Count);

        // Each slot's increase arrives once, weighted, as a polled row: no invented events.
        Assert.Empty(sink.Of<LogFlushEvent>());
        Assert.Equal([4L, 3L], sink.Rows<FlushBucketRow>().Select(b => b.Row.Count));
        Assert.All(sink.Rows<FlushBucketRow>(), b => Assert.Equal((5, "sales", 512u), (b.Row.DatabaseId, b.Row.DatabaseName, b.Row.WriteSize)));
    }
}
