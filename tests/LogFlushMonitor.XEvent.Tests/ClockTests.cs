using LogFlushMonitor.XEvent.Binary;
using LogFlushMonitor.XEvent.Metadata;
using LogFlushMonitor.XEvent.TestSupport;

namespace LogFlushMonitor.XEvent.Tests;

/// <summary>The event clock's conversion: the 64-bit fast path gives exactly what the 128-bit form gives.</summary>
public sealed class ClockTests
{
    private static readonly long MaxFileTime = DateTime.MaxValue.ToFileTimeUtc();

    private static bool Reference(long start, ulong frequency, ulong ticks, out long fileTime)
    {
        var total = (Int128)start + (Int128)((UInt128)ticks * 10_000_000UL / frequency);
        var ok = total >= 0 && total <= MaxFileTime;
        fileTime = ok ? (long)total : 0;
        return ok;
    }

    public static TheoryData<ulong> Frequencies => [10_000_000, 1, 3_579_545, 2_441_406, 1_000_000_000, 3_400_000_000, ulong.MaxValue];

    [Theory]
    [MemberData(nameof(Frequencies))]
    public void Ticks_convert_as_the_128_bit_form_does(ulong frequency)
    {
        long[] starts = [0, new DateTime(2026, 11, 23, 0, 0, 0, DateTimeKind.Utc).ToFileTimeUtc(), MaxFileTime - 5, MaxFileTime, MaxFileTime + 1, -1, long.MaxValue, long.MinValue];
        var random = new Random(11);
        var ticks = new List<ulong> { 0, 1, 9_999_999, 10_000_000, ulong.MaxValue / 10_000_000, ulong.MaxValue / 10_000_000 + 1, (ulong)MaxFileTime, (ulong)MaxFileTime + 1, long.MaxValue, ulong.MaxValue };
        for (var i = 0; i < 2000; i++)
        {
            ticks.Add((ulong)random.NextInt64() >> random.Next(0, 63));
        }

        foreach (var start in starts)
        {
            var package = new XEventPackage(0, "p", Guid.Empty, start, frequency);
            foreach (var t in ticks)
            {
                var expected = Reference(start, frequency, t, out var expectedTime);
                var actual = package.TryTicksToFileTime(t, out var actualTime);
                Assert.True(expected == actual && expectedTime == actualTime, $"start {start}, frequency {frequency}, ticks {t}: expected {expected}/{expectedTime}, got {actual}/{actualTime}");
            }
        }
    }
}

/// <summary><see cref="XEventRecord.TryGetTimestampTicks"/> and <see cref="XEventRecord.TryGetTimestamp"/> give DateTime.FromFileTimeUtc of the event clock on a real server's file.</summary>
public sealed class TimestampTicksTests
{
    [Fact]
    public void Every_event_of_the_real_file_gives_the_same_time_both_ways()
    {
        using var reader = XelReader.Open(TestData.RealXelFile);
        var probe = new TicksProbe();
        reader.ReadAll(ref probe);

        Assert.Equal(149, probe.Count);
        Assert.Equal(0, probe.Disagreements);
    }

    private struct TicksProbe : IXEventHandler
    {
        public int Count { get; private set; }

        public int Disagreements { get; private set; }

        public readonly void OnMetadataChanged(XEventMetadata metadata)
        {
        }

        public void OnEvent(in XEventRecord record)
        {
            Count++;
            // The reference: the package's FILETIME through DateTime's own conversion.
            var expected = record.Definition!.Package.TryTicksToFileTime(record.Ticks, out var fileTime) ? DateTime.FromFileTimeUtc(fileTime) : default;
            var a = record.TryGetTimestamp(out var utc);
            var b = record.TryGetTimestampTicks(out var ticks);
            if (!a || !b || ticks != expected.Ticks || utc != expected || utc.Kind != DateTimeKind.Utc)
            {
                Disagreements++;
            }
        }
    }
}
