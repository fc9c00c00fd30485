using LogFlushMonitor.XEvent.Binary;
using LogFlushMonitor.XEvent.Metadata;
using LogFlushMonitor.XEvent.TestSupport;

namespace LogFlushMonitor.XEvent.Tests;

/// <summary>Buffer decoder behaviour on writer-made rows (agreement of writer and reader, not format proof).</summary>
public class DecoderTests
{
    private static readonly DateTime Start = new(2026, 11, 22, 11, 0, 0, DateTimeKind.Utc);

    [Fact]
    public void Writer_round_trip_redefined_event_gets_a_new_handle_and_old_handles_stop_matching()
    {
        // Same stream (no header in between), but the second metadata declares database_id as uint16:
        // the field offsets move, so the merged definition must be replaced, not reused.
        var first = XelWriter.WriteLiveStreamBuffers(Start, w => w.LogFlushStart(Start.AddSeconds(1), 7, null, 512, 70),
            new XelWriterOptions { DatabaseIdType = XEventBaseType.UInt32 });
        var second = XelWriter.WriteLiveStreamBuffers(Start, w => w.LogFlushStart(Start.AddSeconds(2), 8, null, 1024, 80),
            new XelWriterOptions { DatabaseIdType = XEventBaseType.UInt16 }).Skip(1);

        var decoder = new XEventBufferDecoder();
        var handler = new ResolvingHandler();
        foreach (var (type, data) in first.Concat(second))
        {
            decoder.DecodeRow(type, data, ref handler);
        }

        Assert.Equal([(7UL, 512UL, 70UL), (8UL, 1024UL, 80UL)], handler.Values);
        Assert.Equal(1, handler.StaleMatches.Count(m => m));
        Assert.False(handler.StaleMatches[1]);
    }

    [Fact]
    public void Writer_round_trip_events_before_their_metadata_are_delivered_without_a_definition()
    {
        var rows = XelWriter.WriteLiveStreamBuffers(Start, w => w.LogFlushStart(Start.AddSeconds(1), 7, "db", 512, 70, 1)).ToList();
        var decoder = new XEventBufferDecoder("no-metadata");
        var probe = new RecordProbe();
        decoder.Decode(rows[^1].Data, ref probe);

        Assert.Equal(1, probe.Count);
        Assert.True(probe.Undefined);
        Assert.False(probe.HadTimestamp);
        Assert.Equal("no-metadata", probe.TimestampError!.FileName);
    }

    [Fact]
    public void Short_or_corrupt_rows_raise_typed_errors()
    {
        var decoder = new XEventBufferDecoder("row");
        var probe = new RecordProbe();
        var ex = Assert.Throws<XelFormatException>(() => decoder.Decode(new byte[10], ref probe));
        Assert.Contains("shorter than a buffer header", ex.Message, StringComparison.Ordinal);

        var rows = XelWriter.WriteLiveStreamBuffers(Start, w => w.LogFlushStart(Start.AddSeconds(1), 7, "db", 512, 70, 1)).ToList();
        decoder.DecodeRow(rows[0].Type, rows[0].Data, ref probe);
        decoder.DecodeRow(rows[1].Type, rows[1].Data, ref probe);
        var events = (byte[])rows[2].Data.Clone();
        BitConverter.TryWriteBytes(events.AsSpan(77 + 20), 100_000u); // payload length of the first record
        var bad = Assert.Throws<XelFormatException>(() => decoder.Decode(events, 4096, ref probe));
        Assert.Equal(4096 + 77 + 20, bad.Offset);

        var wrongVersion = new byte[512];
        BitConverter.TryWriteBytes(wrongVersion, XelConstants.FileMagic);
        wrongVersion[4] = 9;
        var v = Assert.Throws<XelUnsupportedVersionException>(() => decoder.Decode(wrongVersion, ref probe));
        Assert.Equal(9, v.Version);
    }

    private struct ResolvingHandler : IXEventHandler
    {
        private FieldHandle _db, _size, _block;
        private EventHandle _previous, _current;

        public ResolvingHandler()
        {
        }

        public List<(ulong, ulong, ulong)> Values { get; } = [];

        public List<bool> StaleMatches { get; } = [];

        public void OnMetadataChanged(XEventMetadata m)
        {
            _previous = _current;
            _current = m.GetEventHandle("sqlserver.log_flush_start");
            _db = m.GetFieldHandle("sqlserver.log_flush_start", "database_id");
            _size = m.GetFieldHandle("sqlserver.log_flush_start", "write_size");
            _block = m.GetFieldHandle("sqlserver.log_flush_start", "log_block_id");
        }

        public readonly void OnEvent(in XEventRecord r)
        {
            // True only for the first event: the handle resolved before the re-definition matched it.
            StaleMatches.Add(_previous.IsValid ? r.EventHandle == _previous : r.EventHandle == _current);
            Assert.True(r.TryGetUInt64(_db, out var db));
            Assert.True(r.TryGetUInt64(_size, out var size));
            Assert.True(r.TryGetUInt64(_block, out var block));
            Values.Add((db, size, block));
        }
    }

    private struct RecordProbe : IXEventHandler
    {
        public int Count { get; private set; }

        public bool Undefined { get; private set; }

        public bool HadTimestamp { get; private set; }

        public XelFormatException? TimestampError { get; private set; }

        public readonly void OnMetadataChanged(XEventMetadata metadata)
        {
        }

        public void OnEvent(in XEventRecord record)
        {
            Count++;
            Undefined = record.Definition is null && record.Name.Length == 0 && !record.EventHandle.IsValid;
            HadTimestamp = record.TryGetTimestamp(out _);
            try
            {
                _ = record.TimestampUtc;
            }
            catch (XelFormatException ex)
            {
                TimestampError = ex;
            }
        }
    }
}
