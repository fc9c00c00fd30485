using System.Buffers.Binary;
using LogFlushMonitor.XEvent.Binary;
using LogFlushMonitor.XEvent.TestSupport;
using Xunit.Abstractions;

namespace LogFlushMonitor.XEvent.Tests;

/// <summary>
/// Mutations of a writer-made log-flush file (log_flush_start with write_size and database_id,
/// log_flush_complete, WRITELOG waits, event_sequence and database_name actions), so that field values are
/// fuzzed as well as framing. For every mutation, with a hang timeout:
/// <list type="number">
/// <item>Throw mode raises nothing but <see cref="XelFormatException"/> (naming the file and an offset inside it);
/// materialising every event raises nothing else either.</item>
/// <item>SkipAndReport mode raises nothing at all.</item>
/// <item>No silent loss: every event of the original whose record starts before the point where the file simply
/// ends (its zero tail or incomplete last buffer, if any) is delivered at the same offset (its values may
/// differ: judging them is the mapper's job), unless the result says so in one of three ways: status Damaged
/// (with the skipped ranges), an error naming the offset, or more events lost by event_sequence gaps than the
/// original has (a length field changed so that the record walk swallows whole records and lands on a later
/// record boundary is only visible this way: the format has no checksum this reader knows). The one loss no
/// signal reveals is excepted and counted: a buffer's data-length field lowered to an earlier record boundary
/// with no later event to show the gap (those records then read as slack, which may hold anything).</item>
/// </list>
/// </summary>
public class LogFlushFuzzTests(ITestOutputHelper output)
{
    private const int Mutations = 2500;
    private static readonly TimeSpan Hang = TimeSpan.FromSeconds(30);
    private static readonly XelReaderOptions Report = new() { Damage = XelDamageHandling.SkipAndReport, TrackEventSequence = true };

    private static byte[] Seed()
    {
        var start = new DateTime(2026, 11, 22, 8, 0, 0, DateTimeKind.Utc);
        using var ms = new MemoryStream();
        using (var w = new XelWriter(ms, start, new XelWriterOptions { BufferSize = 2048 }))
        {
            var rng = new Random(5);
            var t = start;
            for (var i = 0; i < 240; i++)
            {
                t = t.AddTicks(rng.Next(1, 5000));
                var db = (uint)rng.Next(5, 9);
                w.LogFlushStart(t, db, "db" + db, rng.Next(10) == 0 ? 61440u : 512u, (ulong)i, (ulong)(3 * i) + 1, rows: 2, pendingWrites: 1);
                w.LogFlushComplete(t.AddTicks(100), db, "db" + db, (ulong)i, (ulong)rng.Next(50, 3000), (ulong)(3 * i) + 2);
                w.WaitCompleted(t.AddTicks(150), XelWriter.WriteLogKey, (ulong)rng.Next(0, 20), db, (ulong)(3 * i) + 3, 0, "db" + db);
            }
        }

        return ms.ToArray();
    }

    [Fact]
    public async Task Log_flush_file_mutated_2500_times_never_hangs_raises_only_typed_errors_and_never_loses_events_silently()
    {
        var clean = Seed();
        var buffers = GeneratedSets.Buffers(clean);
        var eventBuffers = buffers.Where(b => b.Type == 0).ToList();
        var records = eventBuffers.SelectMany(b => GeneratedSets.RecordOffsets(clean, b)).ToList();
        Assert.Equal(720, records.Count);
        Assert.True(eventBuffers.Count > 20, $"{eventBuffers.Count} event buffers");
        var fields = FieldOffsets(clean, records);

        var rng = new Random(20261123);
        int ok = 0, damaged = 0, errors = 0, typed = 0, undetectable = 0, bySequence = 0;
        for (var i = 0; i < Mutations; i++)
        {
            var copy = Mutate(clean, buffers, records, fields, rng, out var how);
            var run = Task.Run(() => Check(copy, how, records, eventBuffers, clean));
            Assert.True(await Task.WhenAny(run, Task.Delay(Hang)) == run, $"Mutation {i} ({how}) did not finish within {Hang}");
            var (status, throwModeError, seenBySequence, silentButExplained) = await run;
            bySequence += seenBySequence ? 1 : 0;
            switch (status)
            {
                case XelFileStatus.Ok: ok++; break;
                case XelFileStatus.Damaged: damaged++; break;
                default: errors++; break;
            }

            typed += throwModeError ? 1 : 0;
            undetectable += silentButExplained ? 1 : 0;
        }

        output.WriteLine($"ok {ok}, damaged {damaged}, file errors {errors}; Throw mode raised {typed}; losses shown only by event_sequence gaps {bySequence}; lowered data lengths (undetectable by design) {undetectable}");
        Assert.True(ok > 200 && damaged > 200 && typed > 200, $"ok {ok}, damaged {damaged}, typed {typed}: the mutations must exercise every outcome");
        Assert.True(undetectable < Mutations / 50, $"{undetectable} undetectable losses");
    }

    private static (XelFileStatus Status, bool ThrowModeError, bool SeenBySequence, bool Undetectable) Check(
        byte[] copy, string how, List<int> records, List<(int Offset, int Length, int Type, int DataOffset, int DataLength)> eventBuffers, byte[] clean)
    {
        var threw = false;
        try
        {
            using var strict = new XelReader(new MemoryStream(copy, writable: false), "fuzz.xel");
            while (strict.Read())
            {
                var r = strict.Current;
                r.ToData(strict.Metadata);
                r.TryGetTimestamp(out _);
            }
        }
        catch (XelFormatException e)
        {
            threw = true;
            Assert.Equal("fuzz.xel", e.FileName);
            Assert.InRange(e.Offset, 0, copy.Length);
        }
        catch (Exception e)
        {
            Assert.Fail($"{how}: Throw mode raised {e.GetType().Name}: {e}");
        }

        XelFileResult result;
        var seen = new Fingerprint { Positions = [] };
        try
        {
            using var reader = new XelReader(new MemoryStream(copy, writable: false), "fuzz.xel", Report);
            reader.ReadAll(ref seen);
            result = Assert.Single(reader.Files);
        }
        catch (Exception e)
        {
            Assert.Fail($"{how}: SkipAndReport mode raised {e.GetType().Name}: {e}");
            throw;
        }

        if (result.Status != XelFileStatus.Ok)
        {
            return (result.Status, threw, false, false);
        }

        var end = result.Tail == XelTailKind.None ? long.MaxValue : result.TailOffset;
        var delivered = seen.Positions!.Select(p => p.Position).ToHashSet();
        var missing = records.Where(r => r < end && !delivered.Contains(r)).ToList();
        if (missing.Count == 0)
        {
            return (result.Status, threw, false, false);
        }

        if (result.EventsLost > 0)
        {
            // The seed numbers its events 1..720 without a gap: any gap reported is the loss, made visible.
            return (result.Status, threw, true, false);
        }

        // The one loss the format cannot reveal: a lowered data length ending at an earlier record boundary.
        foreach (var b in eventBuffers)
        {
            var field = b.Offset + 0x18;
            var newLength = BinaryPrimitives.ReadUInt32LittleEndian(copy.AsSpan(field));
            var lowered = newLength < b.DataLength && copy.AsSpan(b.Offset, 0x18).SequenceEqual(clean.AsSpan(b.Offset, 0x18));
            if (lowered && missing.All(m => m >= b.Offset + b.DataOffset + newLength && m < b.Offset + b.Length))
            {
                return (result.Status, threw, false, true);
            }
        }

        var changed = Enumerable.Range(0, Math.Min(copy.Length, clean.Length)).Where(k => copy[k] != clean[k]).Select(k => $"{k}:{clean[k]:X2}->{copy[k]:X2}");
        Assert.Fail($"{how}: reported Ok ({result}) but {missing.Count} events are missing ({string.Join(", ", missing)}); bytes changed: {string.Join(", ", changed)}");
        return default;
    }

    private static byte[] Mutate(byte[] clean, List<(int Offset, int Length, int Type, int DataOffset, int DataLength)> buffers,
        List<int> records, List<(int Offset, int Size)> fields, Random rng, out string how)
    {
        var copy = (byte[])clean.Clone();
        var header = XelConstants.DefaultFileHeaderLength;
        switch (rng.Next(9))
        {
            case 0:
            case 1:
            {
                // A field or action value: write_size, database_id, log_block_id, duration, event_sequence, name text.
                var (at, size) = fields[rng.Next(fields.Count)];
                var value = rng.Next(3) switch { 0 => ulong.MaxValue, 1 => (ulong)rng.NextInt64(), _ => (ulong)rng.Next(-5, 70000) };
                for (var k = 0; k < size; k++)
                {
                    copy[at + k] = (byte)(value >> (8 * k));
                }

                how = $"value of {size} bytes at {at} set to {value}";
                return copy;
            }

            case 2:
            {
                var n = rng.Next(1, 9);
                for (var k = 0; k < n; k++)
                {
                    copy[rng.Next(header, copy.Length)] = (byte)rng.Next(256);
                }

                how = $"{n} random bytes";
                return copy;
            }

            case 3:
            {
                var len = rng.Next(header, copy.Length);
                how = $"truncated to {len}";
                return copy[..len];
            }

            case 4:
            {
                // A length: buffer padded length, data length, record payload length, action length.
                var b = buffers[rng.Next(buffers.Count)];
                var r = records[rng.Next(records.Count)];
                var at = rng.Next(4) switch { 0 => b.Offset + 0x10, 1 => b.Offset + 0x18, 2 => r + 20, _ => r + 24 + (int)BinaryPrimitives.ReadUInt32LittleEndian(copy.AsSpan(r + 20)) + 4 };
                var old = BinaryPrimitives.ReadUInt32LittleEndian(copy.AsSpan(at));
                var value = rng.Next(4) switch
                {
                    0 => (uint)rng.Next(),
                    1 => old + (uint)rng.Next(-64, 64),
                    2 => old + (uint)(512 * rng.Next(-2, 3)),
                    _ => uint.MaxValue - (uint)rng.Next(16),
                };
                BinaryPrimitives.WriteUInt32LittleEndian(copy.AsSpan(at), value);
                how = $"length at {at} from {old} to {value}";
                return copy;
            }

            case 5:
            {
                var at = header + (512 * rng.Next((copy.Length - header) / 512));
                copy.AsSpan(at, Math.Min(512 * rng.Next(1, 3), copy.Length - at)).Clear();
                how = $"zeroed from {at}";
                return copy;
            }

            case 6:
            {
                // A record's flags (actions bit, version bits) or event RID.
                var r = records[rng.Next(records.Count)];
                var at = r + (rng.Next(2) == 0 ? 4 : 0) + rng.Next(4);
                copy[at] ^= (byte)(1 << rng.Next(8));
                how = $"bit flipped at {at} in the record at {r}";
                return copy;
            }

            case 7:
            {
                var b = buffers[rng.Next(buffers.Count)];
                var at = b.Offset + rng.Next(32);
                copy[at] = (byte)rng.Next(256);
                how = $"buffer header byte {at - b.Offset} of the buffer at {b.Offset}";
                return copy;
            }

            default:
            {
                // Two records' bytes swapped (same length region): events reordered or torn.
                var a = records[rng.Next(records.Count)];
                var c = records[rng.Next(records.Count)];
                var n = rng.Next(1, 48);
                if (a + n <= copy.Length && c + n <= copy.Length)
                {
                    var tmp = copy.AsSpan(a, n).ToArray();
                    clean.AsSpan(c, n).CopyTo(copy.AsSpan(a));
                    tmp.CopyTo(copy.AsSpan(c));
                }

                how = $"{n} bytes swapped between {a} and {c}";
                return copy;
            }
        }
    }

    /// <summary>(offset, size) of every fixed field in the payloads and every action value.</summary>
    private static List<(int Offset, int Size)> FieldOffsets(byte[] file, List<int> records)
    {
        var list = new List<(int, int)>();
        foreach (var r in records)
        {
            var payload = (int)BinaryPrimitives.ReadUInt32LittleEndian(file.AsSpan(r + 20));
            for (var p = 0; p + 4 <= payload; p += 4)
            {
                list.Add((r + 24 + p, 4));
            }

            var a = r + 24 + payload;
            while (true)
            {
                var rid = BinaryPrimitives.ReadUInt32LittleEndian(file.AsSpan(a));
                var len = (int)BinaryPrimitives.ReadUInt32LittleEndian(file.AsSpan(a + 4));
                if (rid == 0x60000000)
                {
                    break;
                }

                list.Add((a + 8, Math.Min(len, 8)));
                a += 8 + len;
            }
        }

        return list;
    }
}
