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
        await using var h = new PollerHarness(server);
        await h.PollAsync();
        await h.PollAsync();

        var counters = h.Sink.Of<CounterSample>();
        Assert.All(counters, c =>
        {
            Assert.Equal("Databases", c.ObjectName);
            Assert.Equal(c.CounterName.Trim(), c.CounterName);
            Assert.Equal(c.CounterInstance.Trim(), c.CounterInstance);
            Assert.Equal("prod-1", c.Instance);
        });
        var flushes = counters.Where(c => c.CounterName == "Log Flushes/sec" && c.CounterInstance == "sales").ToList();
        Assert.Equal([100L, 200L], flushes.Select(c => c.Value));
        Assert.All(flushes, c => Assert.Equal(PerfCounterType.BulkCount, c.CounterType));
        var ratio = counters.First(c => c.CounterName == "Log Cache Hit Ratio" && c.CounterInstance == "sales");
        Assert.Equal((90L, 100L, PerfCounterType.LargeRawFraction), (ratio.Value, ratio.BaseValue, ratio.CounterType));
        Assert.DoesNotContain(counters, c => c.CounterType == PerfCounterType.LargeRawBase);
        Assert.Contains(counters, c => c.CounterInstance == "_Total" && c.CounterName == "Log Flushes/sec" && c.Value == 2 * (100 + 4));
    }

    [Fact]
    public async Task Internal_instances_are_skipped_and_PollCompleted_follows_the_rows()
    {
        await using var server = new ScriptedSqlServer();
        await using var h = new PollerHarness(server);
        await h.PollAsync();

        Assert.DoesNotContain(h.Sink.Of<CounterSample>(), c => c.CounterInstance is "mssqlsystemresource" or "model_msdb");
        var all = h.Sink.All.ToList();
        var completed = all.FindIndex(s => s is PollCompleted { Kind: PollKind.Counters });
        Assert.True(completed > all.FindLastIndex(s => s is CounterSample), "PollCompleted(Counters) must come after the last counter row");
    }

    [Fact]
    public async Task Include_and_exclude_lists_travel_as_expanded_parameters_and_are_applied()
    {
        await using var server = new ScriptedSqlServer();
        server.AddDatabase("orders");
        await using var h = new PollerHarness(server, o =>
        {
            o.IncludeDatabases = ["sales", "orders"];
            o.ExcludeDatabases = ["orders"];
        });
        await h.PollAsync();

        Assert.Equal(["_Total", "sales"], h.Sink.Of<CounterSample>().Select(c => c.CounterInstance).Distinct().Order());
        var request = server.RequestsFor("sys.dm_os_performance_counters").Single();
        Assert.Equal(false, request.Parameter("includeAll"));
        Assert.Equal("sales", request.Parameter("include1"));
        Assert.Equal("orders", request.Parameter("include2"));
        Assert.Equal("orders", request.Parameter("exclude1"));
        Assert.Contains("object_name LIKE N'%:Databases%'", request.Text, StringComparison.Ordinal);
        Assert.DoesNotContain("'sales'", request.Text, StringComparison.Ordinal);
    }

    [Fact]
    public async Task An_average_counter_is_paired_with_a_base_spelled_differently()
    {
        await using var server = new ScriptedSqlServer();
        server.ExtraCounters.Add(("SQLServer:Databases", "Avg Log Write Time (ms)", "sales", 500, PerfCounterType.AverageBulk));
        server.ExtraCounters.Add(("SQLServer:Databases", "Average Log Write Time base", "sales", 25, PerfCounterType.LargeRawBase));
        server.ExtraCounters.Add(("SQLServer:Buffer Manager", "Page life expectancy", "", 300, PerfCounterType.LargeRawCount));
        await using var h = new PollerHarness(server);
        await h.PollAsync();

        var avg = h.Sink.Of<CounterSample>().Single(c => c.CounterName == "Avg Log Write Time (ms)");
        Assert.Equal((500L, 25L), (avg.Value, avg.BaseValue));
        Assert.DoesNotContain(h.Sink.Of<CounterSample>(), c => c.CounterName == "Page life expectancy");
    }

    [Theory]
    [InlineData("Log Cache Hit Ratio", "Log Cache Hit Ratio Base")]
    [InlineData("Buffer cache hit ratio", "Buffer cache hit ratio base")]
    [InlineData("Avg Latch Wait Time (ms)", "Average Latch Wait Time Base")]
    public void Base_keys_match(string counter, string baseName) =>
        Assert.Equal(CounterPoller.BaseKey(counter, isBase: false), CounterPoller.BaseKey(baseName, isBase: true));
}
