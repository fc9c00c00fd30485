using System.Buffers.Binary;
using LogFlushMonitor.XEvent.Binary;
using LogFlushMonitor.XEvent.TestSupport;

namespace LogFlushMonitor.XEvent.Tests;

/// <summary>Damage is reported with where and how many bytes were skipped; a file that simply ends is ok.</summary>
public class DamageTests
{
    private static readonly XelReaderOptions Report = new() { Damage = XelDamageHandling.SkipAndReport, TrackEventSequence = true };

    private static (XelFileResult File, long Events) ReadReport(byte[] bytes, string name = "f.xel")
    {
        using var reader = new XelReader(new MemoryStream(bytes), name, Report);
        var handler = new Fingerprint();
        reader.ReadAll(ref handler);
        return (Assert.Single(reader.Files), handler.Count);
    }

    private static long CountEvents(byte[] bytes, XelReaderOptions? options = null)
    {
        using var reader = new XelReader(new MemoryStream(bytes), "f.xel", options);
        var handler = new Fingerprint();
        reader.ReadAll(ref handler);
        return handler.Count;
    }

    [Fact]
    public void Real_file_with_512_zeroed_bytes_at_its_event_buffer_is_damaged_not_ok_with_fewer_events()
    {
        var bytes = File.ReadAllBytes(TestData.RealXelFile);
        bytes.AsSpan(20480, 512).Clear();

        var (file, events) = ReadReport(bytes);

        Assert.Equal(XelFileStatus.Damaged, file.Status);
        Assert.Equal(0, events);
        var damage = Assert.Single(file.Damage);
        Assert.Equal(20480, damage.Offset);
        Assert.Equal(bytes.Length - 20480, damage.Length);
        Assert.Contains("Zeroed buffer header", damage.Problem, StringComparison.Ordinal);

        // Throw mode (the default) raises instead of ending quietly.
        var ex = Assert.Throws<XelFormatException>(() => CountEvents(bytes));
        Assert.Equal(20480, ex.Offset);
        Assert.Contains("not all zero", ex.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_zeroed_buffer_in_the_middle_is_skipped_to_the_next_buffer_and_counted()
    {
        var clean = GeneratedSets.Write(2000, 1, seed: 3);
        var buffers = GeneratedSets.Buffers(clean).Where(b => b.Type == 0).ToList();
        var victim = buffers[buffers.Count / 2];
        var lost = GeneratedSets.RecordOffsets(clean, victim).Count;
        var bytes = (byte[])clean.Clone();
        bytes.AsSpan(victim.Offset, 512).Clear();

        var (file, events) = ReadReport(bytes);

        Assert.Equal(XelFileStatus.Damaged, file.Status);
        Assert.Equal(2000 - lost, events);
        var damage = Assert.Single(file.Damage);
        Assert.Equal((victim.Offset, (long)victim.Length), (damage.Offset, damage.Length));
        Assert.Contains($"next readable buffer starts at {victim.Offset + victim.Length}", damage.Problem, StringComparison.Ordinal);
        // The buffer's events are missing from the numbering too.
        Assert.Equal(lost, file.EventsLost);
    }

    [Fact]
    public void Zeros_after_the_last_buffer_and_a_cut_last_buffer_are_a_file_that_simply_ends()
    {
        var clean = GeneratedSets.Write(500, 1, seed: 4);
        var last = GeneratedSets.Buffers(clean)[^1];
        var lastEvents = GeneratedSets.RecordOffsets(clean, last).Count;

        var padded = clean.Concat(new byte[8192]).ToArray();
        var (zeros, zeroEvents) = ReadReport(padded);
        Assert.Equal(XelFileStatus.Ok, zeros.Status);
        Assert.Equal(500, zeroEvents);
        Assert.Equal((XelTailKind.Zeros, (long)clean.Length, 8192L), (zeros.Tail, zeros.TailOffset, zeros.TailBytes));
        Assert.Equal(500, CountEvents(padded)); // quiet in Throw mode too

        var cut = clean[..(clean.Length - 300)];
        var (tail, tailEvents) = ReadReport(cut);
        Assert.Equal(XelFileStatus.Ok, tail.Status);
        Assert.Equal(500 - lastEvents, tailEvents);
        Assert.Equal((XelTailKind.IncompleteBuffer, (long)last.Offset, (long)last.Length - 300), (tail.Tail, tail.TailOffset, tail.TailBytes));
        Assert.Throws<XelFormatException>(() => CountEvents(cut));
        Assert.Equal(500 - lastEvents, CountEvents(cut, new XelReaderOptions { AllowTruncatedTail = true }));
    }

    [Fact]
    public void A_bad_record_skips_the_rest_of_its_buffer_only()
    {
        var clean = GeneratedSets.Write(2000, 1, seed: 5);
        var buffers = GeneratedSets.Buffers(clean).Where(b => b.Type == 0).ToList();
        var victim = buffers[3];
        var records = GeneratedSets.RecordOffsets(clean, victim);
        var bad = records[2];
        var bytes = (byte[])clean.Clone();
        BinaryPrimitives.WriteUInt32LittleEndian(bytes.AsSpan(bad + 20), 1_000_000); // payload length

        var (file, events) = ReadReport(bytes);

        Assert.Equal(2000 - (records.Count - 2), events);
        var damage = Assert.Single(file.Damage);
        Assert.Equal(bad, damage.Offset);
        Assert.Equal(bad + 20, damage.ProblemOffset);
        Assert.Equal(victim.Offset + victim.DataOffset + victim.DataLength - bad, damage.Length);
        Assert.Equal(bad + 20, Assert.Throws<XelFormatException>(() => CountEvents(bytes)).Offset);
    }

    [Fact]
    public void A_buffer_length_that_swallows_the_next_buffer_is_repaired_and_reported()
    {
        var clean = GeneratedSets.Write(2000, 1, seed: 6);
        var buffers = GeneratedSets.Buffers(clean).Where(b => b.Type == 0).ToList();
        var victim = buffers[2];
        var bytes = (byte[])clean.Clone();
        BinaryPrimitives.WriteUInt32LittleEndian(bytes.AsSpan(victim.Offset + 0x10), (uint)(victim.Length + buffers[3].Length));

        var (file, events) = ReadReport(bytes);

        Assert.Equal(2000, events);
        var damage = Assert.Single(file.Damage);
        Assert.Equal((victim.Offset, 0L, victim.Offset + 0x10L), (damage.Offset, damage.Length, damage.ProblemOffset));
        Assert.Equal(XelFileStatus.Damaged, file.Status);
        Assert.Throws<XelFormatException>(() => CountEvents(bytes));
    }

    [Fact]
    public void Buffers_of_an_unknown_type_and_unreadable_metadata_are_skipped_as_damage()
    {
        var clean = GeneratedSets.Write(2000, 1, seed: 7, new XelWriterOptions { BufferSize = 4096, ResendMetadataEveryBuffers = 4 });
        var all = GeneratedSets.Buffers(clean);
        var events = all.Where(b => b.Type == 0).ToList();
        var retyped = events[5];
        var resent = all.Where(b => b.Type == 1).Skip(1).First();
        var bytes = (byte[])clean.Clone();
        BinaryPrimitives.WriteUInt16LittleEndian(bytes.AsSpan(retyped.Offset + 0x0E), 7);
        BinaryPrimitives.WriteUInt32LittleEndian(bytes.AsSpan(resent.Offset + resent.DataOffset + 2), 3); // package record size

        var (file, read) = ReadReport(bytes);

        Assert.Equal(2000 - GeneratedSets.RecordOffsets(clean, retyped).Count, read);
        Assert.Equal([(long)Math.Min(retyped.Offset, resent.Offset), Math.Max(retyped.Offset, resent.Offset)], file.Damage.Select(d => d.Offset));
        Assert.Contains(file.Damage, d => d.Problem.Contains("type 7", StringComparison.Ordinal));
        Assert.Contains(file.Damage, d => d.Problem.StartsWith("Metadata buffer unreadable", StringComparison.Ordinal));
        Assert.Throws<XelFormatException>(() => CountEvents(bytes));
    }

    [Fact]
    public void A_file_that_is_not_xel_is_corrupt_in_its_result_and_the_next_file_is_still_read()
    {
        var dir = XelTestFiles.TempDirectory();
        try
        {
            var bad = Path.Combine(dir, "a_0_1.xel");
            var good = Path.Combine(dir, "a_0_2.xel");
            File.WriteAllText(bad, "hello");
            File.WriteAllBytes(good, GeneratedSets.Write(100, 1, seed: 8));
            using var reader = XelReader.Open([bad, good], Report);
            var handler = new Fingerprint();
            reader.ReadAll(ref handler);

            Assert.Equal([XelFileStatus.Corrupt, XelFileStatus.Ok], reader.Files.Select(f => f.Status));
            Assert.Equal(0, Assert.IsType<XelFormatException>(reader.Files[0].Error).Offset);
            Assert.Equal(100, reader.Files[1].Events);
            Assert.Equal(100, handler.PerFile[1].Count);
        }
        finally
        {
            Directory.Delete(dir, recursive: true);
        }
    }

    private static XelFileResult ReadParallel(byte[] bytes, int workers = 3)
    {
        var path = Path.Combine(Path.GetTempPath(), $"damage-{Guid.NewGuid():N}.xel");
        File.WriteAllBytes(path, bytes);
        try
        {
            var handlers = Enumerable.Range(0, workers).Select(_ => new Fingerprint()).ToArray();
            return Assert.Single(XelParallelReader.Read([path], handlers, Report));
        }
        finally
        {
            File.Delete(path);
        }
    }

    [Fact]
    public void An_event_buffer_appended_twice_repeats_its_sequence_number_and_is_damage_counted_once_not_more_events()
    {
        var clean = GeneratedSets.Write(900, 1, seed: 11);
        var victim = GeneratedSets.Buffers(clean).Where(b => b.Type == 0).ToList()[2];
        var end = victim.Offset + victim.Length;
        var bytes = clean[..end].Concat(clean[victim.Offset..end]).Concat(clean[end..]).ToArray(); // written twice in a row

        foreach (var file in new[] { ReadReport(bytes).File, ReadParallel(bytes) })
        {
            Assert.Equal(XelFileStatus.Damaged, file.Status);
            Assert.Equal(900, file.Events); // not 900 + the copy's events
            Assert.Equal(0, file.EventsLost);
            var damage = Assert.Single(file.Damage);
            Assert.Equal((end, (long)victim.Length), (damage.Offset, damage.Length));
            Assert.Equal(end + 8, damage.ProblemOffset);
            Assert.Contains("repeats the previous event buffer's", damage.Problem, StringComparison.Ordinal);
        }

        Assert.Throws<XelFormatException>(() => CountEvents(bytes));
    }

    [Fact]
    public void An_event_buffer_copied_in_further_back_goes_back_in_sequence_and_is_damage()
    {
        var clean = GeneratedSets.Write(900, 1, seed: 12);
        var buffers = GeneratedSets.Buffers(clean).Where(b => b.Type == 0).ToList();
        var first = buffers[0];
        var last = buffers[^1];
        var bytes = clean.Concat(clean.AsSpan(first.Offset, first.Length).ToArray()).ToArray();

        var (file, events) = ReadReport(bytes);

        Assert.Equal(900, events);
        Assert.Contains("goes back from", Assert.Single(file.Damage).Problem, StringComparison.Ordinal);
        Assert.True(last.Offset < file.Damage[0].Offset);
    }

    [Fact]
    public void One_flipped_bit_in_an_event_sequence_value_is_damage_at_its_offset_not_two_to_the_fiftieth_lost_events()
    {
        var bytes = GeneratedSets.Write(900, 1, seed: 13);
        // The event_sequence action of the event numbered 450: RID, length 8, value.
        ReadOnlySpan<byte> pattern = [0x00, 0x24, 0x00, 0x10, 8, 0, 0, 0, 0xC2, 0x01, 0, 0, 0, 0, 0, 0];
        var at = bytes.AsSpan().IndexOf(pattern);
        Assert.True(at > 0);
        Assert.Equal(-1, bytes.AsSpan(at + 1).IndexOf(pattern));
        bytes[at + 8 + 6] ^= 0x04; // bit 50

        foreach (var file in new[] { ReadReport(bytes).File, ReadParallel(bytes) })
        {
            Assert.Equal(XelFileStatus.Damaged, file.Status);
            Assert.Equal(900, file.Events);
            Assert.Equal(1, file.EventsLost); // number 450 was never seen: one hole, not 1,125,899,906,842,624
            var damage = Assert.Single(file.Damage);
            Assert.Equal(0, damage.Length); // the event was counted; only its number is ignored
            Assert.True(damage.Offset < at && at - damage.Offset < 200, $"record at {damage.Offset}, value at {at + 8}");
            Assert.Contains("event_sequence 1125899906843074", damage.Problem, StringComparison.Ordinal);
            Assert.Contains("a damaged value, not lost events", damage.Problem, StringComparison.Ordinal);
        }
    }

    [Fact]
    public void A_scan_through_a_long_damaged_region_stops_when_cancelled()
    {
        var clean = GeneratedSets.Write(50, 1, seed: 9);
        var garbage = new byte[32 * 1024 * 1024];
        new Random(1).NextBytes(garbage);
        var first = GeneratedSets.Buffers(clean).First(b => b.Type == 0).Offset;
        var bytes = clean[..first].Concat(new byte[512]).Concat(garbage).ToArray();
        using var cts = new CancellationTokenSource();
        // Ctrl+C arrives while the reader is scanning the garbage for a readable buffer.
        var stream = new CancelWhenPassed(new MemoryStream(bytes), 4 * 1024 * 1024, cts);
        using var reader = new XelReader(stream, "g.xel", Report);
        var handler = new Fingerprint();

        Assert.Throws<OperationCanceledException>(() => reader.ReadAll(ref handler, cts.Token));
        Assert.InRange(stream.Position, 4 * 1024 * 1024, 8 * 1024 * 1024);
    }

    /// <summary>Cancels a token once the reader has read past a position.</summary>
    private sealed class CancelWhenPassed(Stream inner, long at, CancellationTokenSource cts) : Stream
    {
        public override bool CanRead => true;

        public override bool CanSeek => false;

        public override bool CanWrite => false;

        public override long Length => inner.Length;

        public override long Position
        {
            get => inner.Position;
            set => throw new NotSupportedException();
        }

        public override int Read(byte[] buffer, int offset, int count)
        {
            var n = inner.Read(buffer, offset, count);
            if (inner.Position >= at)
            {
                cts.Cancel();
            }

            return n;
        }

        public override void Flush()
        {
        }

        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

        public override void SetLength(long value) => throw new NotSupportedException();

        public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();
    }
}
