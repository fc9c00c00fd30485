using LogFlushMonitor.XEvent.Binary;
using LogFlushMonitor.XEvent.Metadata;
using LogFlushMonitor.XEvent.TestSupport;

namespace LogFlushMonitor.XEvent.Tests;

/// <summary>
/// What the test writer writes, the reader reads back exactly. These prove the writer and reader agree
/// (and feed aggregation tests elsewhere); only the real-file tests prove the format.
/// </summary>
public class WriterRoundTripTests
{
    private static readonly DateTime Start = new(2026, 11, 22, 10, 0, 0, DateTimeKind.Utc);

    private sealed record Expected(string Event, DateTime Time, ulong A, ulong B, ulong C, uint? Db, string? DbName, ulong? Seq);

    private static List<Expected> WriteMixed(XelWriter w, int count, int seed)
    {
        var rng = new Random(seed);
        var expected = new List<Expected>();
        var t = Start;
        for (var i = 0; i < count; i++)
        {
            t = t.AddTicks(rng.Next(1, 50_000));
            var db = (uint)rng.Next(1, 40);
            var name = rng.Next(4) == 0 ? null : "db" + db + new string('x', rng.Next(0, 30));
            ulong? seq = rng.Next(10) == 0 ? null : (ulong)i + 1;
            switch (rng.Next(4))
            {
                case 0:
                    var size = (uint)(rng.Next(1, 121) * 512);
                    var block = (ulong)rng.NextInt64();
                    w.LogFlushStart(t, db, name, size, block, seq);
                    expected.Add(new("log_flush_start", t, size, block, 0, db, name, seq));
                    break;
                case 1:
                    var dur = (ulong)rng.Next(0, 1_000_000);
                    var blk = (ulong)rng.NextInt64();
                    w.LogFlushComplete(t, db, name, blk, dur, seq);
                    expected.Add(new("log_flush_complete", t, blk, dur, 0, db, name, seq));
                    break;
                case 2:
                    uint? wdb = rng.Next(3) == 0 ? null : db;
                    var key = rng.Next(2) == 0 ? XelWriter.WriteLogKey : 66u;
                    var wd = (ulong)rng.Next(0, 5000);
                    w.WaitCompleted(t, key, wd, wdb, seq, signalDuration: 3);
                    expected.Add(new("wait_completed", t, key, wd, 3, wdb, null, seq));
                    break;
                default:
                    var op = (byte)rng.Next(2);
                    var d2 = (ulong)rng.Next(0, 5000);
                    w.WaitInfo(t, XelWriter.WriteLogKey, op, d2, db, seq);
                    expected.Add(new("wait_info", t, XelWriter.WriteLogKey, op, d2, db, null, seq));
                    break;
            }
        }

        return expected;
    }

    /// <summary>Resolves handles once per metadata change, as the log-flush consumer will.</summary>
    private struct LogFlushHandler : IXEventHandler
    {
        private EventHandle _start, _complete, _waitCompleted, _waitInfo;
        private FieldHandle _startDb, _startSize, _startBlock, _completeBlock, _completeDuration;
        private FieldHandle _wcType, _wcDuration, _wcSignal, _wiType, _wiOpcode, _wiDuration;
        private ActionHandle _dbId, _dbName, _sequence;
        private readonly char[] _name = new char[128];

        public LogFlushHandler()
        {
        }

        public List<Expected> Seen { get; } = [];

        public int MetadataChanges { get; private set; }

        public void OnMetadataChanged(XEventMetadata m)
        {
            MetadataChanges++;
            _start = m.GetEventHandle("sqlserver.log_flush_start");
            _complete = m.GetEventHandle("sqlserver.log_flush_complete");
            _waitCompleted = m.GetEventHandle("sqlos.wait_completed");
            _waitInfo = m.GetEventHandle("sqlos.wait_info");
            _startDb = m.GetFieldHandle("sqlserver.log_flush_start", "database_id");
            _startSize = m.GetFieldHandle("sqlserver.log_flush_start", "write_size");
            _startBlock = m.GetFieldHandle("sqlserver.log_flush_start", "log_block_id");
            _completeBlock = m.GetFieldHandle("sqlserver.log_flush_complete", "log_block_id");
            _completeDuration = m.GetFieldHandle("sqlserver.log_flush_complete", "duration");
            _wcType = m.GetFieldHandle("sqlos.wait_completed", "wait_type");
            _wcDuration = m.GetFieldHandle("sqlos.wait_completed", "duration");
            _wcSignal = m.GetFieldHandle("sqlos.wait_completed", "signal_duration");
            _wiType = m.GetFieldHandle("sqlos.wait_info", "wait_type");
            _wiOpcode = m.GetFieldHandle("sqlos.wait_info", "opcode");
            _wiDuration = m.GetFieldHandle("sqlos.wait_info", "duration");
            _dbId = m.GetActionHandle("sqlserver.database_id");
            _dbName = m.GetActionHandle("sqlserver.database_name");
            _sequence = m.GetActionHandle("package0.event_sequence");
        }

        public readonly void OnEvent(in XEventRecord r)
        {
            uint? db = r.TryGetUInt64(_dbId, out var d) ? (uint)d : null;
            string? name = r.TryGetString(_dbName, _name, out var n) ? new string(_name, 0, n) : null;
            ulong? seq = r.TryGetUInt64(_sequence, out var s) ? s : null;
            if (r.EventHandle == _start)
            {
                Assert.True(r.TryGetUInt64(_startDb, out var fdb));
                Assert.Equal(db, (uint)fdb);
                Assert.True(r.TryGetUInt64(_startSize, out var size));
                Assert.True(r.TryGetUInt64(_startBlock, out var block));
                Seen.Add(new("log_flush_start", r.TimestampUtc, size, block, 0, db, name, seq));
            }
            else if (r.EventHandle == _complete)
            {
                Assert.True(r.TryGetUInt64(_completeBlock, out var block));
                Assert.True(r.TryGetUInt64(_completeDuration, out var dur));
                Seen.Add(new("log_flush_complete", r.TimestampUtc, block, dur, 0, db, name, seq));
            }
            else if (r.EventHandle == _waitCompleted)
            {
                Assert.True(r.TryGetMap(_wcType, out var key, out var text));
                Assert.Equal(key == XelWriter.WriteLogKey ? "WRITELOG" : "PAGEIOLATCH_SH", text);
                Assert.True(r.TryGetUInt64(_wcDuration, out var dur));
                Assert.True(r.TryGetUInt64(_wcSignal, out var sig));
                Seen.Add(new("wait_completed", r.TimestampUtc, key, dur, sig, db, name, seq));
            }
            else if (r.EventHandle == _waitInfo)
            {
                Assert.True(r.TryGetMap(_wiType, out var key, out _));
                Assert.True(r.TryGetMap(_wiOpcode, out var op, out var opText));
                Assert.Equal(op == 0 ? "Begin" : "End", opText);
                Assert.True(r.TryGetUInt64(_wiDuration, out var dur));
                Seen.Add(new("wait_info", r.TimestampUtc, key, op, dur, db, name, seq));
            }
            else
            {
                Assert.Fail($"unexpected event {r.Name}");
            }
        }
    }

    [Theory]
    [InlineData(XEventBaseType.UInt32, false, false, 0)]
    [InlineData(XEventBaseType.UInt16, true, true, 3)]
    public void Writer_round_trip_file_reads_back_every_value_through_handles(
        XEventBaseType databaseIdType, bool split, bool repeatPackage, int resendEvery)
    {
        var options = new XelWriterOptions
        {
            BufferSize = 2048,
            DatabaseIdType = databaseIdType,
            SplitMetadataBuffers = split,
            RepeatSqlServerPackage = repeatPackage,
            ResendMetadataEveryBuffers = resendEvery,
        };
        var ms = new MemoryStream();
        List<Expected> expected;
        int buffers;
        using (var w = new XelWriter(ms, Start, options))
        {
            expected = WriteMixed(w, 2000, 42);
            w.Flush();
            buffers = w.EventBuffers;
        }

        Assert.True(buffers > 50, $"only {buffers} buffers");
        ms.Position = 0;
        using var reader = new XelReader(ms, "rt.xel");
        var handler = new LogFlushHandler();
        reader.ReadAll(ref handler);

        Assert.Equal(expected, handler.Seen);
        if (repeatPackage)
        {
            Assert.Equal("sqlserver", reader.Metadata.Packages[3].Name);
        }
    }

    [Fact]
    public void Writer_round_trip_live_stream_rows_decode_and_a_new_header_resets_metadata()
    {
        var rows = XelWriter.WriteLiveStreamBuffers(Start, w => WriteMixed(w, 300, 1), new XelWriterOptions { BufferSize = 4096 }).ToList();
        Assert.Equal(2, rows[0].Type);
        Assert.NotEqual(XelConstants.FileMagic, BitConverter.ToUInt32(rows[0].Data)); // nothing public shows a header row carries the magic
        Assert.Equal(1, rows[1].Type);
        Assert.All(rows.Skip(2), r => Assert.Equal(0, r.Type));

        var decoder = new XEventBufferDecoder("live");
        var handler = new LogFlushHandler();
        foreach (var (type, data) in rows)
        {
            decoder.DecodeRow(type, data, ref handler);
        }

        Assert.Equal(300, handler.Seen.Count);
        var firstMetadata = decoder.Metadata;
        var staleHandle = firstMetadata.GetEventHandle("sqlserver.log_flush_start");

        // A reconnect: a new header row, new metadata. Old handles must never match new records.
        var second = XelWriter.WriteLiveStreamBuffers(Start.AddHours(1), w => w.LogFlushStart(Start.AddHours(1).AddSeconds(1), 5, "five", 4096, 9, 1));
        var matchedStale = 0;
        var probe = new ProbeHandler(r => matchedStale += r.EventHandle == staleHandle ? 1 : 0);
        foreach (var (type, data) in second)
        {
            decoder.DecodeRow(type, data, ref probe);
        }

        Assert.NotSame(firstMetadata, decoder.Metadata);
        Assert.Equal(0, matchedStale);
        Assert.Equal(1, probe.Events);
        Assert.True(decoder.Metadata.GetEventHandle("sqlserver.log_flush_start").IsValid);
    }

    [Fact]
    public void Writer_round_trip_timestamps_use_the_package_clock_at_other_frequencies()
    {
        var ms = new MemoryStream();
        var t = Start.AddSeconds(12.5);
        using (var w = new XelWriter(ms, Start, new XelWriterOptions { TickFrequency = 1_000 }))
        {
            w.LogFlushStart(t, 1, null, 512, 1);
        }

        ms.Position = 0;
        using var reader = new XelReader(ms);
        Assert.True(reader.Read());
        Assert.Equal(12_500UL, reader.Current.Ticks);
        Assert.Equal(t, reader.Current.TimestampUtc);
    }

    [Fact]
    public void Writer_round_trip_every_base_type_through_typed_accessors_and_materialised_form()
    {
        var values = new TypesProbeValues
        {
            Int8 = -5, Int16 = -300, Int32 = -70000, Int64 = long.MinValue + 1, UInt8 = 250, UInt16 = 65000,
            UInt32 = 4_000_000_000, UInt64 = ulong.MaxValue - 1, Float32 = 1.5f, Float64 = -2.25, Boolean = true,
            Pointer = 0x7FF0_1234_5678, ActivityGuid = Guid.NewGuid(), ActivitySequence = 17, Color = 2, Flags = 5,
            UnknownFixed = 0xDEADBEEF, AfterUnknown = 12345, Text = "héllo wörld ✓", Ansi = "café", Guid = Guid.NewGuid(),
            Binary = [1, 2, 3, 0, 255], Xml = "<a b=\"1\"/>", UnknownVariable = [9, 9, 9],
        };
        var ms = new MemoryStream();
        using (var w = new XelWriter(ms, Start))
        {
            w.TypesProbe(Start.AddSeconds(1), values, sequence: 77);
        }

        ms.Position = 0;
        using var reader = new XelReader(ms);
        Assert.True(reader.Read());
        var r = reader.Current;
        var m = reader.Metadata;
        FieldHandle F(string n) => m.GetFieldHandle("package0.xel_writer_types", n);

        Assert.True(r.TryGetInt64(F("int8"), out var i8));
        Assert.Equal(-5, i8);
        Assert.False(r.TryGetUInt64(F("int8"), out _)); // negative: not an unsigned value
        Assert.True(r.TryGetInt64(F("int16"), out var i16));
        Assert.Equal(-300, i16);
        Assert.True(r.TryGetInt64(F("int32"), out var i32));
        Assert.Equal(-70000, i32);
        Assert.True(r.TryGetInt64(F("int64"), out var i64));
        Assert.Equal(long.MinValue + 1, i64);
        Assert.True(r.TryGetUInt64(F("uint8"), out var u8));
        Assert.Equal(250UL, u8);
        Assert.True(r.TryGetUInt64(F("uint16"), out var u16));
        Assert.Equal(65000UL, u16);
        Assert.True(r.TryGetField(F("uint32"), out var v32));
        Assert.True(v32.TryGetUInt32(out var u32));
        Assert.Equal(4_000_000_000u, u32);
        Assert.False(v32.TryGetInt32(out _)); // does not fit
        Assert.True(r.TryGetUInt64(F("uint64"), out var u64));
        Assert.Equal(ulong.MaxValue - 1, u64);
        Assert.False(r.TryGetInt64(F("uint64"), out _));
        Assert.True(r.TryGetField(F("float32"), out var f32));
        Assert.True(f32.TryGetDouble(out var d32));
        Assert.Equal(1.5, d32);
        Assert.True(r.TryGetField(F("float64"), out var f64));
        Assert.True(f64.TryGetDouble(out var d64));
        Assert.Equal(-2.25, d64);
        Assert.True(r.TryGetBoolean(F("boolean"), out var b));
        Assert.True(b);
        Assert.True(r.TryGetUInt64(F("pointer"), out var ptr));
        Assert.Equal(0x7FF0_1234_5678UL, ptr);
        Assert.True(r.TryGetField(F("activity"), out var act));
        Assert.True(act.TryGetActivityId(out var activity));
        Assert.Equal(new XEventActivityId(values.ActivityGuid, 17), activity);
        Assert.True(r.TryGetMap(F("color"), out var colorKey, out var colorText));
        Assert.Equal((2UL, "green"), (colorKey, colorText));
        Assert.True(r.TryGetUInt64(F("color"), out var colorAsInteger)); // map keys read as integers too
        Assert.Equal(2UL, colorAsInteger);
        Assert.True(r.TryGetUInt64(F("boolean"), out var boolAsInteger));
        Assert.Equal(1UL, boolAsInteger);
        Assert.False(r.TryGetUInt64(F("text"), out _)); // text is not an integer
        Assert.True(r.TryGetFlags(F("flags"), out var flags));
        Assert.Equal(5UL, flags);
        Assert.True(r.TryGetMap(F("flags"), out _, out var flagText));
        Assert.Equal("read, execute", flagText);
        Assert.False(r.TryGetUInt64(F("unknown_fixed"), out _)); // unknown type: never mis-read
        Assert.True(r.TryGetUInt64(F("after_unknown"), out var after)); // ...and the next field still reads
        Assert.Equal(12345UL, after);
        Assert.Equal(values.Text, r.GetString(F("text")));
        Span<char> small = stackalloc char[3];
        Assert.False(r.TryGetString(F("text"), small, out _)); // too small: no partial copy
        Span<char> big = stackalloc char[64];
        Assert.True(r.TryGetString(F("text"), big, out var n));
        Assert.Equal(values.Text, big[..n].ToString());
        Assert.True(r.TryGetField(F("text"), out var textValue) && textValue.StringEquals(values.Text));
        Assert.Equal("café", r.GetString(F("ansi")));
        Assert.True(r.TryGetGuid(F("guid"), out var g));
        Assert.Equal(values.Guid, g);
        Assert.True(r.TryGetBytes(F("binary"), out var bin));
        Assert.Equal(values.Binary, bin.ToArray());
        Assert.Equal(values.Xml, r.GetString(F("xml")));
        Assert.True(r.TryGetBytes(F("unknown_variable"), out var unk));
        Assert.Equal(values.UnknownVariable, unk.ToArray());
        Assert.False(r.TryGetUInt64(F("no_such_field"), out _));

        var data = r.ToData(m);
        Assert.Equal("package0.xel_writer_types", data.FullName);
        Assert.Equal(Start.AddSeconds(1), data.TimestampUtc);
        Assert.Equal(-5L, data.Fields["int8"]);
        Assert.Equal(ulong.MaxValue - 1, data.Fields["uint64"]);
        Assert.Equal(true, data.Fields["boolean"]);
        Assert.Equal(new XEventMapValue(5, "read, execute"), data.Fields["flags"]);
        Assert.Equal(values.Guid, data.Fields["guid"]);
        Assert.False(data.Fields.ContainsKey("unknown_fixed"));
        Assert.Equal(77UL, data.Actions["package0.event_sequence"]);
        Assert.Equal(77UL, data.GetUInt64("event_sequence"));
    }

    [Fact]
    public void Writer_round_trip_handles_of_another_event_do_not_read()
    {
        var ms = new MemoryStream();
        using (var w = new XelWriter(ms, Start))
        {
            w.LogFlushComplete(Start.AddSeconds(1), 7, null, 99, 1234);
        }

        ms.Position = 0;
        using var reader = new XelReader(ms);
        Assert.True(reader.Read());
        var wrongEvent = reader.Metadata.GetFieldHandle("sqlserver.log_flush_start", "log_block_id");
        var right = reader.Metadata.GetFieldHandle("sqlserver.log_flush_complete", "log_block_id");
        Assert.False(reader.Current.TryGetUInt64(wrongEvent, out _));
        Assert.False(reader.Current.TryGetUInt64(default(FieldHandle), out _));
        Assert.True(reader.Current.TryGetUInt64(right, out var block));
        Assert.Equal(99UL, block);
        Assert.True(reader.Current.TryGetUInt64(reader.Metadata.GetActionHandle("sqlserver.database_id"), out var db));
        Assert.Equal(7UL, db);
        Assert.False(reader.Current.TryGetUInt64(reader.Metadata.GetActionHandle("package0.event_sequence"), out _));
    }

    [Fact]
    public void Writer_round_trip_a_large_file_streams_with_flat_memory()
    {
        var path = Path.Combine(XelTestFiles.TempDirectory(), "big_0_1.xel");
        try
        {
            long written;
            using (var fs = File.Create(path))
            using (var w = new XelWriter(fs, Start, new XelWriterOptions { BufferSize = 256 * 1024 }))
            {
                var t = Start;
                for (var i = 0; i < 400_000; i++)
                {
                    t = t.AddTicks(10);
                    w.LogFlushStart(t, 5, "db", 512, (ulong)i, (ulong)i + 1);
                }

                w.Flush();
                written = fs.Length;
            }

            Assert.True(written > 30_000_000, $"file is {written} bytes");
            using var reader = XelReader.Open(path);
            var handler = new EveryFieldHandler();
            var before = GC.GetAllocatedBytesForCurrentThread();
            reader.ReadAll(ref handler);
            var allocated = GC.GetAllocatedBytesForCurrentThread() - before;

            Assert.Equal(400_000, reader.EventCount);
            // Metadata and one pooled buffer; nothing proportional to the file.
            Assert.True(allocated < 2_000_000, $"allocated {allocated} bytes reading {written} bytes");
        }
        finally
        {
            Directory.Delete(Path.GetDirectoryName(path)!, recursive: true);
        }
    }

    private struct ProbeHandler(Action<XEventRecord> onEvent) : IXEventHandler
    {
        public int Events { get; private set; }

        public readonly void OnMetadataChanged(XEventMetadata metadata)
        {
        }

        public void OnEvent(in XEventRecord record)
        {
            Events++;
            onEvent(record);
        }
    }
}
