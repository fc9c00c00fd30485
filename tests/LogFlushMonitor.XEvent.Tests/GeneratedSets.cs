using System.Buffers.Binary;
using LogFlushMonitor.XEvent.TestSupport;

namespace LogFlushMonitor.XEvent.Tests;

/// <summary>Writer-made files for reader tests: mixed events, small buffers, event_sequence numbering.</summary>
internal static class GeneratedSets
{
    public static readonly DateTime Start = new(2026, 11, 22, 12, 0, 0, DateTimeKind.Utc);

    /// <summary>
    /// Writes <paramref name="events"/> events (flush start and complete, waits, and the every-type probe) with
    /// event_sequence numbers from <paramref name="firstSequence"/>; <paramref name="gapEvery"/> skips a number
    /// now and then, <paramref name="restartAt"/> restarts the numbering at 1 (a new session) after that event.
    /// </summary>
    public static byte[] Write(int events, ulong firstSequence, int seed, XelWriterOptions? options = null, int gapEvery = 0, int restartAt = -1)
    {
        using var ms = new MemoryStream();
        using (var w = new XelWriter(ms, Start, options ?? new XelWriterOptions { BufferSize = 4096 }))
        {
            var rng = new Random(seed);
            var t = Start;
            var seq = firstSequence;
            for (var i = 0; i < events; i++)
            {
                t = t.AddTicks(rng.Next(1, 20_000));
                var db = (uint)rng.Next(5, 9);
                var name = "db" + db;
                switch (rng.Next(10))
                {
                    case < 4:
                        w.LogFlushStart(t, db, name, (uint)rng.Next(1, 121) * 512, (ulong)i, seq);
                        break;
                    case < 7:
                        w.LogFlushComplete(t, db, name, (ulong)i, (ulong)rng.Next(10, 5000), seq);
                        break;
                    case < 9:
                        w.WaitCompleted(t, rng.Next(2) == 0 ? XelWriter.WriteLogKey : 66u, (ulong)rng.Next(0, 30), db, seq, 1, name);
                        break;
                    default:
                        w.TypesProbe(t, new TypesProbeValues
                        {
                            Int32 = -i, UInt64 = (ulong)i * 977, Text = "text " + i, Ansi = "ansi", Guid = Guid.NewGuid(),
                            Binary = [(byte)i, 2, 3], Xml = "<x/>", Color = 2, Flags = 5, Boolean = i % 2 == 0,
                        }, seq);
                        break;
                }

                seq++;
                if (gapEvery > 0 && rng.Next(gapEvery) == 0)
                {
                    seq += (ulong)rng.Next(1, 4);
                }

                if (i == restartAt)
                {
                    seq = 1;
                }
            }
        }

        return ms.ToArray();
    }

    /// <summary>(offset, padded length, type, data offset, data length) of every buffer.</summary>
    public static List<(int Offset, int Length, int Type, int DataOffset, int DataLength)> Buffers(byte[] file)
    {
        var list = new List<(int, int, int, int, int)>();
        int pos = BinaryPrimitives.ReadUInt16LittleEndian(file.AsSpan(6));
        while (pos + 32 <= file.Length)
        {
            var padded = (int)BinaryPrimitives.ReadUInt32LittleEndian(file.AsSpan(pos + 0x10));
            if (padded <= 32)
            {
                break;
            }

            list.Add((pos, padded, BinaryPrimitives.ReadUInt16LittleEndian(file.AsSpan(pos + 0x0E)),
                BinaryPrimitives.ReadUInt16LittleEndian(file.AsSpan(pos + 0x16)), (int)BinaryPrimitives.ReadUInt32LittleEndian(file.AsSpan(pos + 0x18))));
            pos += padded;
        }

        return list;
    }

    /// <summary>Offsets of every event record, by buffer, read with the format rules (not the reader).</summary>
    public static List<int> RecordOffsets(byte[] file, (int Offset, int Length, int Type, int DataOffset, int DataLength) buffer)
    {
        var list = new List<int>();
        var p = buffer.Offset + buffer.DataOffset;
        var end = p + buffer.DataLength;
        while (p < end)
        {
            list.Add(p);
            var flags = BinaryPrimitives.ReadUInt32LittleEndian(file.AsSpan(p + 4));
            p += 24 + (int)BinaryPrimitives.ReadUInt32LittleEndian(file.AsSpan(p + 20));
            if ((flags & 0x80000000) != 0)
            {
                while (true)
                {
                    var rid = BinaryPrimitives.ReadUInt32LittleEndian(file.AsSpan(p));
                    p += 8 + (int)BinaryPrimitives.ReadUInt32LittleEndian(file.AsSpan(p + 4));
                    if (rid == 0x60000000)
                    {
                        break;
                    }
                }
            }
        }

        return list;
    }
}
