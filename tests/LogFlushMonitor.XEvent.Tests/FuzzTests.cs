using System.Buffers.Binary;
using LogFlushMonitor.XEvent.Binary;
using LogFlushMonitor.XEvent.TestSupport;

namespace LogFlushMonitor.XEvent.Tests;

/// <summary>Mutated copies of the real file: every run decodes or raises XelFormatException, and none hangs.</summary>
public class FuzzTests
{
    private const int Mutations = 3000;

    [Fact]
    public async Task Real_file_mutated_3000_times_either_decodes_or_raises_a_typed_error()
    {
        var clean = File.ReadAllBytes(TestData.RealXelFile);
        var lengthFields = LengthFieldOffsets(clean);
        // A hang must fail the test, not stall it. Not a speed assertion: the bound is far beyond any real run,
        // even on a machine shared with several builds.
        var hang = TimeSpan.FromSeconds(30);

        var rng = new Random(20261122);
        int decoded = 0, typedErrors = 0;
        for (var i = 0; i < Mutations; i++)
        {
            var copy = Mutate(clean, lengthFields, rng, out var how);
            Exception? error = null;
            var run = Task.Run(() =>
            {
                try
                {
                    DecodeEverything(copy);
                }
                catch (Exception ex)
                {
                    error = ex;
                }
            });

            var finished = await Task.WhenAny(run, Task.Delay(hang)) == run;
            Assert.True(finished, $"Mutation {i} ({how}) did not finish within {hang}");
            await run;

            if (error is null)
            {
                decoded++;
            }
            else if (error is XelFormatException xe)
            {
                typedErrors++;
                Assert.Equal("fuzz.xel", xe.FileName);
                Assert.InRange(xe.Offset, 0, copy.Length);
            }
            else
            {
                Assert.Fail($"Mutation {i} ({how}) raised {error.GetType().Name}: {error}");
            }
        }

        // Both outcomes must really occur, or the mutations are not exercising anything.
        Assert.True(decoded > 100, $"decoded {decoded}");
        Assert.True(typedErrors > 100, $"typed errors {typedErrors}");
    }

    private static void DecodeEverything(byte[] bytes)
    {
        using var reader = new XelReader(new MemoryStream(bytes, writable: false), "fuzz.xel");
        var handler = new EveryFieldHandler();
        while (reader.Read())
        {
            var record = reader.Current;
            record.ToData(reader.Metadata);
            record.TryGetTimestamp(out _);
            handler.OnMetadataChanged(reader.Metadata);
            handler.OnEvent(record);
        }
    }

    private static byte[] Mutate(byte[] clean, List<int> lengthFields, Random rng, out string how)
    {
        var copy = (byte[])clean.Clone();
        switch (rng.Next(5))
        {
            case 0:
            {
                var n = rng.Next(1, 9);
                for (var k = 0; k < n; k++)
                {
                    copy[rng.Next(copy.Length)] = (byte)rng.Next(256);
                }

                how = $"{n} random bytes";
                return copy;
            }

            case 1:
            {
                var len = rng.Next(copy.Length);
                how = $"truncated to {len}";
                return copy[..len];
            }

            case 2:
            {
                var at = lengthFields[rng.Next(lengthFields.Count)];
                var value = rng.Next(3) switch
                {
                    0 => (uint)rng.Next(),
                    1 => BinaryPrimitives.ReadUInt32LittleEndian(copy.AsSpan(at)) + (uint)rng.Next(-64, 64),
                    _ => uint.MaxValue - (uint)rng.Next(16),
                };
                BinaryPrimitives.WriteUInt32LittleEndian(copy.AsSpan(at), value);
                how = $"length at {at} set to {value}";
                return copy;
            }

            case 3:
            {
                // Swap two length fields.
                var a = lengthFields[rng.Next(lengthFields.Count)];
                var b = lengthFields[rng.Next(lengthFields.Count)];
                var va = BinaryPrimitives.ReadUInt32LittleEndian(copy.AsSpan(a));
                BinaryPrimitives.WriteUInt32LittleEndian(copy.AsSpan(a), BinaryPrimitives.ReadUInt32LittleEndian(copy.AsSpan(b)));
                BinaryPrimitives.WriteUInt32LittleEndian(copy.AsSpan(b), va);
                how = $"lengths at {a} and {b} swapped";
                return copy;
            }

            default:
            {
                // A run of random bytes inside the metadata (strings, counts, offsets).
                var at = rng.Next(0x200, 0x5000 - 16);
                rng.NextBytes(copy.AsSpan(at, rng.Next(1, 16)));
                how = $"metadata bytes at {at}";
                return copy;
            }
        }
    }

    /// <summary>Offsets of u32 length fields: buffer lengths, package record sizes, payload and action lengths.</summary>
    private static List<int> LengthFieldOffsets(byte[] file)
    {
        var result = new List<int>();
        var pos = 0x200;
        while (pos < file.Length)
        {
            var padded = (int)BinaryPrimitives.ReadUInt32LittleEndian(file.AsSpan(pos + 0x10));
            var type = BinaryPrimitives.ReadUInt16LittleEndian(file.AsSpan(pos + 0x0E));
            int dataOffset = BinaryPrimitives.ReadUInt16LittleEndian(file.AsSpan(pos + 0x16));
            var dataLength = (int)BinaryPrimitives.ReadUInt32LittleEndian(file.AsSpan(pos + 0x18));
            result.Add(pos + 0x10);
            result.Add(pos + 0x18);
            var p = pos + dataOffset;
            var end = p + dataLength;
            while (p < end)
            {
                if (type == 1)
                {
                    result.Add(p + 2);
                    p += (int)BinaryPrimitives.ReadUInt32LittleEndian(file.AsSpan(p + 2));
                    continue;
                }

                result.Add(p + 20);
                var flags = BinaryPrimitives.ReadUInt32LittleEndian(file.AsSpan(p + 4));
                p += 24 + (int)BinaryPrimitives.ReadUInt32LittleEndian(file.AsSpan(p + 20));
                if ((flags & 0x80000000) != 0)
                {
                    while (true)
                    {
                        result.Add(p + 4);
                        var rid = BinaryPrimitives.ReadUInt32LittleEndian(file.AsSpan(p));
                        p += 8 + (int)BinaryPrimitives.ReadUInt32LittleEndian(file.AsSpan(p + 4));
                        if (rid == 0x60000000)
                        {
                            break;
                        }
                    }
                }
            }

            pos += padded;
        }

        return result;
    }
}
