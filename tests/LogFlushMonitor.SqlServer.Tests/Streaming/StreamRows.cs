using System.Buffers.Binary;
using LogFlushMonitor.XEvent.TestSupport;

namespace LogFlushMonitor.SqlServer.Tests.Streaming;

/// <summary>Live-stream rows for tests: a real .xel file split into its buffers, and log-flush buffers from the writer.</summary>
internal static class StreamRows
{
    public static readonly DateTime Start = new(2026, 11, 22, 10, 0, 0, DateTimeKind.Utc);

    /// <summary>A .xel file as the stream would send it: the 512-byte file header as a header row, then each buffer.</summary>
    public static List<(int Type, byte[] Data)> SplitXel(string path)
    {
        var bytes = File.ReadAllBytes(path);
        int headerLength = BinaryPrimitives.ReadUInt16LittleEndian(bytes.AsSpan(6));
        var rows = new List<(int, byte[])> { (2, bytes[..headerLength]) };
        for (var pos = headerLength; pos + 32 <= bytes.Length;)
        {
            var padded = (int)BinaryPrimitives.ReadUInt32LittleEndian(bytes.AsSpan(pos + 0x10));
            if (padded <= 32)
            {
                break;
            }

            rows.Add((BinaryPrimitives.ReadUInt16LittleEndian(bytes.AsSpan(pos + 0x0E)), bytes[pos..(pos + padded)]));
            pos += padded;
        }

        return rows;
    }

    /// <summary>
    /// Rows with log_flush_start events numbered <paramref name="firstSequence"/>.. (database 5, write sizes cycling 512, 4096,
    /// 61440), one event buffer per <paramref name="perBuffer"/> events.
    /// </summary>
    public static List<(int Type, byte[] Data)> Flushes(long firstSequence, int count, int perBuffer = 100, int databaseId = 5) =>
        XelWriter.WriteLiveStreamBuffers(Start, w =>
        {
            for (var i = 0; i < count; i++)
            {
                var seq = firstSequence + i;
                w.LogFlushStart(Start.AddMilliseconds(seq), (uint)databaseId, null, SizeOf(seq), (ulong)seq, (ulong)seq);
                if ((i + 1) % perBuffer == 0)
                {
                    w.Flush();
                }
            }
        }).ToList();

    public static uint SizeOf(long sequence) => (sequence % 3) switch { 0 => 512u, 1 => 4096u, _ => 61440u };

    /// <summary>The shared wait-until helper (<see cref="Testing.Eventually"/>) with this project's generous default.</summary>
    public static Task Eventually(Func<bool> condition, string what, double seconds = 60) =>
        Testing.Eventually.Until(condition, what, TimeSpan.FromSeconds(seconds));
}
