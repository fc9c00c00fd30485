using System.Buffers.Binary;
using LogFlushMonitor.XEvent.Binary;
using LogFlushMonitor.XEvent.Metadata;
using LogFlushMonitor.XEvent.TestSupport;

namespace LogFlushMonitor.XEvent.Tests;

/// <summary>
/// The clock rule of issue 31 (docs/xel-format.md, "Timestamps the file cannot produce"): each event buffer's median
/// time is what its events are judged by, the same with the sequential and the parallel reader.
/// </summary>
public sealed class BufferClockTests
{
    private static readonly DateTime Start = new(2026, 11, 22, 8, 0, 0, DateTimeKind.Utc);

    [Theory]
    [InlineData(new long[] { 5 }, 5)]
    [InlineData(new long[] { 3, 1, 2 }, 2)]
    [InlineData(new long[] { 1, 2, 3, 4 }, 2)]
    [InlineData(new long[] { 9, 9, 1, 9, 1, 9, 1 }, 9)]
    [InlineData(new long[] { 1, 2, 3, 4, 5, 6, long.MaxValue }, 4)]
    public void The_median_is_the_lower_middle_value(long[] values, long median)
    {
        Assert.Equal(median, BufferClock.Median(values.ToArray()));
    }

    [Fact]
    public void An_overwritten_clock_is_out_of_line_for_both_readers_and_its_neighbours_are_not()
    {
        using var ms = new MemoryStream();
        using (var w = new XelWriter(ms, Start, new XelWriterOptions { BufferSize = 4096 }))
        {
            for (var i = 0; i < 300; i++)
            {
                w.LogFlushStart(Start.AddMilliseconds(i), 5, "db", 512, (ulong)i);
            }
        }

        var bytes = ms.ToArray();
        var positions = new List<long>();
        using (var reader = new XelReader(new MemoryStream(bytes), "clean.xel"))
        {
            while (reader.Read())
            {
                positions.Add(reader.Current.Position);
            }
        }

        var victim = positions[150];
        BinaryPrimitives.WriteUInt32LittleEndian(bytes.AsSpan((int)victim + 16), 0x0000_8000);
        var path = Path.Combine(Path.GetTempPath(), $"lfm-clock-{Guid.NewGuid():N}.xel");
        File.WriteAllBytes(path, bytes);
        try
        {
            var sequential = new OutOfLine();
            using (var reader = XelReader.Open(path))
            {
                reader.ReadAll(ref sequential);
            }

            var handlers = new[] { new OutOfLine(), new OutOfLine() };
            XelParallelReader.Read([path], handlers, new XelReaderOptions { Damage = XelDamageHandling.SkipAndReport });

            Assert.Equal([victim], sequential.Positions);
            Assert.Equal([victim], handlers.SelectMany(h => h.Positions).ToList());
            Assert.True(sequential.Judged > 250, $"{sequential.Judged} events judged by their buffer's median");
        }
        finally
        {
            File.Delete(path);
        }
    }

    private sealed class OutOfLine : IXEventHandler
    {
        public List<long> Positions { get; } = [];

        public int Judged { get; private set; }

        public void OnMetadataChanged(XEventMetadata metadata)
        {
        }

        public void OnEvent(in XEventRecord record)
        {
            Judged += record.TryGetBufferTime(out _) ? 1 : 0;
            if (record.TryGetTimestampTicks(out var ticks) && record.IsTimeOutOfLine(ticks))
            {
                Positions.Add(record.Position);
            }
        }
    }
}
