using LogFlushMonitor.Core.Signals;
using System.Text.RegularExpressions;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.SqlServer.Polling;
using LogFlushMonitor.SqlServer.Tests.Scripted;

namespace LogFlushMonitor.SqlServer.Tests.Polling;

public class CounterPollerTests
{
    [Fact]
    public async Task Counters_of_a_named_instance_are_trimmed_matched_after_the_colon_and_paired_with_their_base()
    {
        await using var server = new ScriptedSqlServer { InstanceName = "PROD" };
        await using var h = new PollerHarness(server, fleet: f => f.Counters = ["Log Cache Hit Ratio"]);
        await h.PollAsync();
        await h.PollAsync();

        Assert.All(h.Sink.Counters, c => Assert.Equal("prod-1", c.Instance));
        var counters = h.Sink.Values<CounterRow>();
        Assert.All(counters, c =>
        {
            Assert.Equal("Databases", c.ObjectName);
            Assert.Equal(c.CounterName.Trim(), c.CounterName);
            Assert.Equal(c.CounterInstance.Trim(), c.CounterInstance);
        });
        var flushes = counters.Where(c => c.CounterName == "Log Flushes/sec" && c.CounterInstance == "sales").ToList();
        Assert.Equal([100L, 200L], flushes.Select(c => c.Value));
        Assert.All(flushes, c => Assert.Equal(PerfCounterType.BulkCount, c.CounterType));
        var ratio = counters.First(c => c.CounterName == "Log Cache Hit Ratio" && c.CounterInstance == "sales");
        Assert.Equal((90L, 100L, PerfCounterType.LargeRawFraction), (ratio.Value, ratio.BaseValue, ratio.CounterType));
        Assert.DoesNotContain(counters, c => c.CounterType == PerfCounterType.LargeRawBase);
        // _Total counts the internal instances too: model_msdb's 81 and model_replicatedmaster's 89 flushes (the Linux capture).
        Assert.Contains(counters, c => c.CounterInstance == "_Total" && c.CounterName == "Log Flushes/sec" && c.Value == (2 * (100 + 4)) + 81 + 89);
    }

    [Fact]
    public async Task Internal_instances_are_skipped_and_PollCompleted_follows_the_rows()
    {
        await using var server = new ScriptedSqlServer();
        await using var h = new PollerHarness(server);
        await h.PollAsync();

        Assert.DoesNotContain(h.Sink.Values<CounterRow>(), c => c.CounterInstance is "mssqlsystemresource" or "model_msdb");
        var all = h.Sink.All.ToList();
        var completed = all.FindIndex(s => s is PollEnded p && p.Signal == SignalRegistry.Counters);
        Assert.True(completed > all.FindLastIndex(s => s is Polled<CounterRow>), "the end of the counters poll must come after the last counter row");
    }

    [Fact]
    public async Task Include_and_exclude_lists_are_applied_to_the_rows_and_never_sent()
    {
        await using var server = new ScriptedSqlServer();
        server.AddDatabase("orders");
        await using var h = new PollerHarness(server, o =>
        {
            o.IncludeDatabases = ["SALES", "orders"];
            o.ExcludeDatabases = ["orders"];
        });
        await h.PollAsync();

        Assert.Equal(["_Total", "sales"], h.Sink.Values<CounterRow>().Select(c => c.CounterInstance).Distinct().Order());
        Assert.Equal(["sales"], h.Sink.Values<FileStatsRow>().Select(f => f.DatabaseName).Distinct());
        Assert.All(server.RequestsFor("sys.dm_os_performance_counters").Concat(server.RequestsFor("sys.dm_io_virtual_file_stats")), request =>
        {
            Assert.Empty(request.Parameters);
            Assert.DoesNotContain("sales", request.Text, StringComparison.OrdinalIgnoreCase);
        });
    }

    [Fact]
    public async Task A_list_of_2500_names_works_where_one_parameter_per_name_fails_with_error_8003()
    {
        // 2,500 names, as a large estate's include list: SQL Server refuses a request of more than 2,100 parameters.
        await using var server = new ScriptedSqlServer();
        var include = Enumerable.Range(0, 2_499).Select(i => $"db_{i:0000}").Append("sales").ToList();
        var exclude = Enumerable.Range(0, 2_500).Select(i => $"old_{i:0000}").ToList();
        await using var h = new PollerHarness(server, o =>
        {
            o.IncludeDatabases = include;
            o.ExcludeDatabases = exclude;
        });
        await h.PollAsync();

        Assert.True(h.Health.IsUp("prod-1", InstancePoller.Component), string.Join("\n", h.Logger.Lines.Select(l => l.Message)));
        Assert.Equal(["_Total", "sales"], h.Sink.Values<CounterRow>().Select(c => c.CounterInstance).Distinct().Order());
        Assert.Equal(["sales"], h.Sink.Values<FileStatsRow>().Select(f => f.DatabaseName).Distinct());
        Assert.DoesNotContain(h.Logger.Lines, l => l.Message.Contains("8003", StringComparison.Ordinal));
    }

    [Fact]
    public async Task An_average_counter_is_paired_with_a_base_spelled_differently()
    {
        await using var server = new ScriptedSqlServer();
        server.ExtraCounters.Add(("SQLServer:Databases", "Avg Log Write Time (ms)", "sales", 500, PerfCounterType.AverageBulk));
        server.ExtraCounters.Add(("SQLServer:Databases", "Average Log Write Time base", "sales", 25, PerfCounterType.LargeRawBase));
        server.ExtraCounters.Add(("SQLServer:Buffer Manager", "Page life expectancy", "", 300, PerfCounterType.LargeRawCount));
        await using var h = new PollerHarness(server, fleet: f => f.Counters = ["Avg *", "Page life expectancy"]);
        await h.PollAsync();

        var avg = h.Sink.Values<CounterRow>().Single(c => c.CounterName == "Avg Log Write Time (ms)");
        Assert.Equal((500L, 25L), (avg.Value, avg.BaseValue));
        // The real object's own pair that shares no name (sql-auditor's measurement): 100 flushes / 10 requests x 512.
        var eol = h.Sink.Values<CounterRow>().Single(c => c.CounterName == "Avg Dist From EOL/LP Request" && c.CounterInstance == "sales");
        Assert.Equal((5_120L, 10L), (eol.Value, eol.BaseValue));
        Assert.DoesNotContain(h.Sink.Values<CounterRow>(), c => c.CounterName == "Page life expectancy");
    }

    [Fact]
    public async Task By_default_the_poll_names_the_seven_log_counters_and_a_real_server_answers_only_those()
    {
        await using var server = new ScriptedSqlServer(); // answers the full Databases object: 47 counters and 3 bases per instance
        await using var h = new PollerHarness(server);
        await h.PollAsync();

        var request = server.RequestsFor("sys.dm_os_performance_counters").Single();
        Assert.Contains("counter_name IN (", request.Text, StringComparison.Ordinal);
        var sales = h.Sink.Values<CounterRow>().Where(c => c.CounterInstance == "sales").Select(c => c.CounterName).Order().ToList();
        // No availability group here, so no Database Replica row: the seven of the Databases object.
        Assert.Equal(CounterSelection.DefaultCounters.Except(["Transaction Delay", "Mirrored Write Transactions/sec"]).Order(), sales);
    }

    [Fact]
    public void The_statement_names_exactly_the_default_counters()
    {
        var names = Regex.Matches(CountersSignal.NamedStatement.Text, "N'([^']*)'").Select(m => m.Groups[1].Value)
            .Where(n => !n.Contains('%', StringComparison.Ordinal) && n != "_Total").Order();
        Assert.Equal(CounterSelection.DefaultCounters.Order(), names);
    }

    [Fact]
    public async Task Opted_in_counters_by_name_or_pattern_come_from_the_whole_object_and_everything_with_a_star()
    {
        await using var server = new ScriptedSqlServer();
        await using var pools = new PollerHarness(server, fleet: f => f.Counters = ["log pool *", "Transactions/sec"]);
        await pools.PollAsync();
        var names = pools.Sink.Values<CounterRow>().Where(c => c.CounterInstance == "sales").Select(c => c.CounterName).ToHashSet();
        Assert.Equal(8 + 15 + 1, names.Count); // the log counters (Log Growths with them), 15 Log Pool counters (their base is paired, not delivered), Transactions/sec
        Assert.DoesNotContain(server.RequestsFor("sys.dm_os_performance_counters").Last().Text, "counter_name IN (", StringComparison.Ordinal);

        await using var all = new PollerHarness(server, fleet: f => f.Counters = ["*"]);
        await all.PollAsync();
        Assert.Equal(47, all.Sink.Values<CounterRow>().Where(c => c.CounterInstance == "sales").Select(c => c.CounterName).Distinct().Count());
    }

    [Theory]
    [InlineData("Log Cache Hit Ratio", "Log Cache Hit Ratio Base")]
    [InlineData("Buffer cache hit ratio", "Buffer cache hit ratio base")]
    [InlineData("Avg Latch Wait Time (ms)", "Average Latch Wait Time Base")]
    public void Base_keys_match(string counter, string baseName) =>
        Assert.Equal(CountersSignal.BaseKey(counter, isBase: false), CountersSignal.BaseKey(baseName, isBase: true));
}
