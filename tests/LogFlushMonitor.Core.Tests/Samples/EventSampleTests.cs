using LogFlushMonitor.Core.Samples;

namespace LogFlushMonitor.Core.Tests.Samples;

/// <summary>The channel's event struct: what goes in comes out (its size is measured in bench/, EventQueueMemoryBenchmarks).</summary>
public sealed class EventSampleTests
{
    private static readonly DateTime T = new(2026, 11, 22, 8, 0, 0, 123, DateTimeKind.Utc);

    public static TheoryData<LogFlushEvent> Flushes =>
    [
        new LogFlushEvent("sql1", 5, "sales", 512, 77, T),
        new LogFlushEvent("sql1", 5, null, 61440, ulong.MaxValue, T, TimeSpan.FromTicks(12345), long.MaxValue),
        new LogFlushEvent("sql2", 32767, "x", 0, 0, DateTime.SpecifyKind(T, DateTimeKind.Unspecified), TimeSpan.Zero, -1),
    ];

    [Theory]
    [MemberData(nameof(Flushes))]
    public void A_flush_comes_out_as_it_went_in(LogFlushEvent flush)
    {
        var sample = EventSample.Of(flush);

        Assert.Equal(EventSampleKind.Flush, sample.Kind);
        Assert.Equal(flush, sample.Flush);
        Assert.Equal(flush.TimestampUtc.Kind, sample.Flush.TimestampUtc.Kind);
        Assert.Equal(flush.IsComplete, sample.Flush.IsComplete);
        Assert.Equal(flush.Instance, sample.Instance);
        Assert.Equal(default, sample.Wait);
    }

    [Fact]
    public void A_wait_comes_out_as_it_went_in()
    {
        var wait = new WaitEvent("sql1", "WRITELOG", TimeSpan.FromMilliseconds(12.5), 9, "orders", T, 42, "OrderService");

        var sample = EventSample.Of(wait);

        Assert.Equal(EventSampleKind.Wait, sample.Kind);
        Assert.Equal(wait, sample.Wait);
        Assert.Equal("sql1", sample.Instance);
        Assert.Equal(default, sample.Flush);
    }

    [Fact]
    public void The_default_sample_holds_nothing()
    {
        Assert.Equal(default, default(EventSample).Flush);
        Assert.Null(default(EventSample).Instance);
    }
}
