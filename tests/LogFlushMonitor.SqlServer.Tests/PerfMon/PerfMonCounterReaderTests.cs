using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.SqlServer.PerfMon;

namespace LogFlushMonitor.SqlServer.Tests.PerfMon;

public class PerfMonCounterReaderTests
{
    private const int Bulk = PerfMonCounterTypes.RateOfCountsPerSecond64;
    private const int Items64 = PerfMonCounterTypes.NumberOfItems64;

    [Theory]
    [InlineData(null, "SQLServer:Databases")]
    [InlineData("", "SQLServer:Databases")]
    [InlineData("MSSQLSERVER", "SQLServer:Databases")]
    [InlineData("mssqlserver", "SQLServer:Databases")]
    [InlineData(@"DBHOST\MSSQLSERVER", "SQLServer:Databases")]
    [InlineData("SQL2022", "MSSQL$SQL2022:Databases")]
    [InlineData(@"DBHOST\SQL2022", "MSSQL$SQL2022:Databases")]
    [InlineData(" SQLEXPRESS ", "MSSQL$SQLEXPRESS:Databases")]
    public void The_category_names_the_default_or_the_named_instance(string? sqlInstance, string category)
    {
        Assert.Equal(category, PerfMonCounterReader.CategoryFor(sqlInstance));
        Assert.Equal(category, NewReader(new RecordingSink(), sqlInstance: sqlInstance).CategoryName);
    }

    [Fact]
    public void Rows_become_DMV_shaped_samples_then_a_counters_poll_completes()
    {
        var sink = new RecordingSink();
        var time = new ManualTimeProvider();
        var reader = NewReader(sink, time);

        reader.Deliver(
        [
            new("Log Flushes/sec", "sales", Bulk, 1200, 999),
            new("Percent Log Used", "_Total", Items64, 37, 0),
            new("Log Flush Write Time (ms)", "sales", PerfMonCounterTypes.AverageCount64, 5000, 250),
            new("Log Cache Hit Ratio", "sales", PerfMonCounterTypes.LargeRawFraction, 90, 100),
        ]);

        var counters = sink.Of<CounterSample>();
        Assert.Equal(3, counters.Count);
        var flushes = counters[0];
        Assert.Equal(new CounterSample("prod-1", time.GetUtcNow().UtcDateTime, "Databases", "Log Flushes/sec", "sales", 1200, PerfCounterType.BulkCount), flushes);
        Assert.Equal(PerfCounterType.LargeRawCount, counters[1].CounterType);
        Assert.Equal(0, counters[1].BaseValue);
        Assert.Equal((PerfCounterType.AverageBulk, 5000L, 250L), (counters[2].CounterType, counters[2].Value, counters[2].BaseValue));
        var last = Assert.IsType<PollCompleted>(sink.All[^1]);
        Assert.Equal(new PollCompleted("prod-1", time.GetUtcNow().UtcDateTime, PollKind.Counters), last);
    }

    [Fact]
    public void Every_log_counter_is_delivered_under_its_DMV_name_whatever_case_PerfMon_returns()
    {
        var sink = new RecordingSink();
        NewReader(sink).Deliver(PerfMonCounterReader.LogCounters.Select((c, i) => new PerfMonRow(c.ToLowerInvariant(), "_Total", Bulk, i, 0)));

        Assert.Equal(PerfMonCounterReader.LogCounters, sink.Of<CounterSample>().Select(c => c.CounterName));
        Assert.Equal(8, PerfMonCounterReader.LogCounters.Count);
    }

    [Fact]
    public void Total_is_kept_internal_databases_skipped_and_the_lists_applied()
    {
        var sink = new RecordingSink();
        var reader = NewReader(sink, include: ["sales", "hr", "mssqlsystemresource"], exclude: ["hr"]);

        reader.Deliver(new[] { "_Total", "sales", "hr", "stock", "mssqlsystemresource", "model_msdb" }.Select(db => new PerfMonRow("Log Flushes/sec", db, Bulk, 1, 0)));

        Assert.Equal(["_Total", "sales"], sink.Of<CounterSample>().Select(c => c.CounterInstance));
    }

    [Fact]
    public void Other_counters_and_types_without_arithmetic_are_skipped_but_the_poll_still_completes()
    {
        var sink = new RecordingSink();

        NewReader(sink).Deliver(
        [
            new("Data File(s) Size (KB)", "_Total", Items64, 1, 0),
            new("Log Flushes/sec", "_Total", PerfMonCounterTypes.AverageCount64 + 1, 1, 0),
        ]);

        Assert.Empty(sink.Of<CounterSample>());
        Assert.Single(sink.Of<PollCompleted>());
    }

    [SkippableFact]
    public void Off_Windows_nothing_is_available_and_a_poll_delivers_nothing_without_throwing()
    {
        Skip.If(OperatingSystem.IsWindows(), "this checks the behaviour off Windows");
        var sink = new RecordingSink();
        var reader = NewReader(sink);

        Assert.False(reader.IsAvailable);
        Assert.False(reader.Poll());
        Assert.Empty(sink.All);
    }

    internal static PerfMonCounterReader NewReader(
        IPollSink sink,
        TimeProvider? time = null,
        string? sqlInstance = null,
        string[]? include = null,
        string[]? exclude = null) =>
        new("prod-1", sqlInstance, sink, time ?? new ManualTimeProvider(), include, exclude);
}
