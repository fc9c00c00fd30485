using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using LogFlushMonitor.XEvent.Metadata;

namespace LogFlushMonitor.XEvent.Binary;

/// <summary>
/// Decodes a sequence of buffers: the buffers of a .xel file, or the <c>data</c> column of the rows of
/// <c>sys.fn_MSxe_read_event_stream</c>. Metadata buffers are merged; a header (file magic) starts a fresh
/// metadata state; event buffers are pushed record by record to a handler.
/// </summary>
public sealed class XEventBufferDecoder
{
    /// <summary>Creates a decoder; <paramref name="sourceName"/> names the source in errors.</summary>
    public XEventBufferDecoder(string? sourceName = null)
    {
        SourceName = sourceName;
    }

    /// <summary>The merged metadata of the current stream or file.</summary>
    public XEventMetadata Metadata { get; internal set; } = new();

    /// <summary>Names the source in exceptions (a file name, a session name).</summary>
    public string? SourceName { get; set; }

    /// <summary>Events decoded so far.</summary>
    public long EventCount { get; internal set; }

    /// <summary>Index of the current source in a file set (0 for a single stream); see <see cref="XEventRecord.SourceIndex"/>.</summary>
    internal int SourceIndex { get; set; }

    /// <summary>
    /// The reference time of the buffer being decoded (<see cref="XelClock"/>): measured by the file readers before a
    /// buffer's records are delivered (<see cref="MeasureClock"/>); the live stream's buffers are not measured.
    /// </summary>
    internal BufferClock Clock { get; } = new();

    /// <summary>Measures the reference time of the event buffer whose data area is [<paramref name="pos"/>, <paramref name="end"/>).</summary>
    internal void MeasureClock(ReadOnlySpan<byte> buffer, int pos, int end) => Clock.Measure(buffer, pos, end, Metadata);

    /// <summary>Forgets all metadata (a new stream, file or connection).</summary>
    public void Reset() => Metadata = new XEventMetadata();

    /// <summary>Decodes one buffer (or header row), pushing its events to a handler passed by ref.</summary>
    public XEventBufferKind Decode<THandler>(ReadOnlySpan<byte> buffer, ref THandler handler)
        where THandler : IXEventHandler => Decode(buffer, 0, ref handler);

    /// <summary>Decodes one buffer; <paramref name="baseOffset"/> is its position in the source, for errors.</summary>
    public XEventBufferKind Decode<THandler>(ReadOnlySpan<byte> buffer, long baseOffset, ref THandler handler)
        where THandler : IXEventHandler => Decode(buffer, baseOffset, recogniseHeader: true, ref handler);

    /// <summary>
    /// Decodes one row of <c>sys.fn_MSxe_read_event_stream</c> by its <c>type</c> column (<see cref="LiveStreamRowType"/>):
    /// event and metadata buffers are decoded by their own buffer header; a header row starts a fresh metadata state
    /// and its data is not parsed (nothing public describes it, nor shows that it starts with the .xel file magic); an
    /// index row holds no events. A row of any other type raises <see cref="XelFormatException"/>, as an undecodable
    /// buffer does: the caller counts and skips it.
    /// </summary>
    public XEventBufferKind DecodeRow<THandler>(int type, ReadOnlySpan<byte> data, ref THandler handler)
        where THandler : IXEventHandler
    {
        switch (type)
        {
            case LiveStreamRowType.Events:
            case LiveStreamRowType.Metadata:
                return data.IsEmpty ? XEventBufferKind.End : DecodeBuffer(data, ref handler);
            case LiveStreamRowType.Header:
                Reset();
                return XEventBufferKind.Header;
            case LiveStreamRowType.Index:
                return XEventBufferKind.Index;
            default:
                throw Error($"Live-stream row of unknown type {type} ({data.Length} bytes)", 0);
        }
    }

    /// <summary>
    /// Decodes one event or metadata buffer by its 32-byte buffer header only: a caller that knows the kind of the
    /// bytes from elsewhere (the live stream's row type) does not let a .xel file magic at their start decide.
    /// </summary>
    public XEventBufferKind DecodeBuffer<THandler>(ReadOnlySpan<byte> buffer, ref THandler handler)
        where THandler : IXEventHandler => Decode(buffer, 0, recogniseHeader: false, ref handler);

    private XEventBufferKind Decode<THandler>(ReadOnlySpan<byte> buffer, long baseOffset, bool recogniseHeader, ref THandler handler)
        where THandler : IXEventHandler
    {
        var kind = Begin(buffer, baseOffset, out var pos, out var end, recogniseHeader);
        if (kind == XEventBufferKind.Metadata || kind == XEventBufferKind.Header)
        {
            handler.OnMetadataChanged(Metadata);
        }
        else if (kind == XEventBufferKind.Events)
        {
            var none = default(NoRecordObserver);
            DecodeRecords(buffer, ref pos, end, baseOffset, int.MaxValue, ref handler, ref none, out var failure);
            if (failure.Problem is not null)
            {
                throw Error(failure.Problem, failure.Offset);
            }
        }

        return kind;
    }

    /// <summary>Convenience for class handlers.</summary>
    public XEventBufferKind Decode(ReadOnlySpan<byte> buffer, IXEventHandler handler) => Decode(buffer, 0, ref handler);

    /// <summary>
    /// Validates a buffer header; merges metadata or resets at a header. For event buffers returns the
    /// record area [dataStart, dataEnd).
    /// </summary>
    internal XEventBufferKind Begin(ReadOnlySpan<byte> buffer, long baseOffset, out int dataStart, out int dataEnd, bool recogniseHeader = true)
    {
        dataStart = dataEnd = 0;
        if (recogniseHeader && buffer.Length >= 6 && BinaryPrimitives.ReadUInt32LittleEndian(buffer) == XelConstants.FileMagic)
        {
            CheckVersion("file header", BinaryPrimitives.ReadUInt16LittleEndian(buffer[4..]), baseOffset + 4);
            Reset();
            return XEventBufferKind.Header;
        }

        if (buffer.Length < XelConstants.BufferHeaderLength)
        {
            throw Error($"Buffer of {buffer.Length} bytes is shorter than a buffer header", baseOffset);
        }

        var header = BufferHeader.Parse(buffer);
        if (header.IsZeroed)
        {
            return XEventBufferKind.End;
        }

        if (header.Problem(buffer.Length) is { } problem)
        {
            if (header.LogVersion != XelConstants.SupportedVersion)
            {
                throw new XelUnsupportedVersionException("buffer log", header.LogVersion, SourceName, baseOffset + 0x0C);
            }

            throw Error(problem.Text, baseOffset + problem.Offset);
        }

        dataStart = header.DataOffset;
        dataEnd = header.DataEnd;
        switch (header.Type)
        {
            case 0:
                return XEventBufferKind.Events;
            case 1:
                MetadataParser.Merge(Metadata, buffer, dataStart, dataEnd, baseOffset, SourceName);
                return XEventBufferKind.Metadata;
            case 2:
                return XEventBufferKind.Header;
            case 3:
                return XEventBufferKind.Index;
            default:
                return XEventBufferKind.Unknown;
        }
    }

    /// <summary>
    /// The per-record loop: validates each record of the data area [pos, end) and pushes it to the handler and
    /// the observer. Bounds are checked once per record and once per action; the record's accessors then read
    /// without further checks beyond the field's own offset. Stops at the first invalid record and describes it
    /// in <paramref name="failure"/> (no exception: a reader that skips damage goes on with the next buffer).
    /// Optimised from its first call: it runs once per buffer, too few times to tier up, and its loop is hot.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    internal int DecodeRecords<THandler, TObserver>(
        ReadOnlySpan<byte> buffer, ref int position, int end, long baseOffset, int maxRecords, ref THandler handler, ref TObserver observer, out RecordFailure failure)
        where THandler : IXEventHandler
        where TObserver : struct, IRecordObserver
    {
        failure = default;
        var pos = position;
        if (pos < 0 || end > buffer.Length || pos > end)
        {
            failure = new RecordFailure($"Event data area [{pos}, {end}) lies outside its {buffer.Length}-byte buffer", baseOffset, pos);
            return 0;
        }

        var metadata = Metadata;
        var source = SourceName;
        Span<int> actionIndex = stackalloc int[MaxIndexedActions];
        var sourceIndex = SourceIndex;
        var clockReference = Clock.Reference;
        var count = 0;
        uint lastRid = 0;
        XEventDefinition? lastDefinition = null;
        var haveLast = false;
        while (pos < end && count < maxRecords)
        {
            var left = end - pos;
            if (left < XelConstants.RecordHeaderLength)
            {
                failure = new RecordFailure($"Event record header truncated ({left} bytes left in the data area)", baseOffset + pos, pos);
                break;
            }

            var rid = Bytes.U32(buffer, pos);
            var flags = Bytes.U32(buffer, pos + 4);
            var ticks = Bytes.U64(buffer, pos + 12);
            var payloadLength = Bytes.U32(buffer, pos + 20);
            var payloadStart = pos + XelConstants.RecordHeaderLength;
            if (rid >> 28 != 0)
            {
                failure = new RecordFailure($"Event record RID 0x{rid:X8} is not an event's (object type {rid >> 28}): not the start of a record", baseOffset + pos, pos);
                break;
            }

            if ((flags & XelConstants.RecordVersionMask) != XelConstants.SupportedVersion)
            {
                failure = new RecordFailure($"Event record version {flags & XelConstants.RecordVersionMask} (flags 0x{flags:X8}) is not {XelConstants.SupportedVersion}: not the start of a record", baseOffset + pos + 4, pos);
                break;
            }

            if (payloadLength > (uint)(end - payloadStart))
            {
                failure = new RecordFailure($"Event payload length {payloadLength} runs past the data area", baseOffset + pos + 20, pos);
                break;
            }

            var next = payloadStart + (int)payloadLength;
            var actionsStart = next;
            var actionsEnd = next;
            var actionCount = 0;
            // Only bit 31 is meaningful beyond the version; the other flag bits can hold garbage.
            if ((flags & XelConstants.HasActionsFlag) != 0)
            {
                while (true)
                {
                    if (end - next < 8)
                    {
                        failure = new RecordFailure("Action list runs past the data area without its terminator", baseOffset + next, pos);
                        goto Done;
                    }

                    var actionRid = Bytes.U32(buffer, next);
                    var length = Bytes.U32(buffer, next + 4);
                    if (length > (uint)(end - next - 8))
                    {
                        failure = new RecordFailure($"Action length {length} runs past the data area", baseOffset + next + 4, pos);
                        goto Done;
                    }

                    if (actionRid == XelConstants.ActionListTerminator)
                    {
                        actionsEnd = next;
                        next += 8 + (int)length;
                        break;
                    }

                    // RID bits 28-31 are the object type; every entry of an action list is an action (type 1).
                    if (actionRid >> 28 != 1)
                    {
                        failure = new RecordFailure($"Action list entry RID 0x{actionRid:X8} is not an action's (object type {actionRid >> 28})", baseOffset + next, pos);
                        goto Done;
                    }

                    if (actionCount < MaxIndexedActions)
                    {
                        actionIndex[actionCount] = next - actionsStart;
                    }

                    actionCount++;

                    next += 8 + (int)length;
                }
            }

            // A session uses a few events: the last one looked up is usually the next one too.
            if (!haveLast || rid != lastRid)
            {
                lastDefinition = metadata.EventByRid(rid);
                lastRid = rid;
                haveLast = true;
            }

            var record = new XEventRecord(
                Bytes.Slice(buffer, payloadStart, (int)payloadLength),
                Bytes.Slice(buffer, actionsStart, actionsEnd - actionsStart),
                actionCount <= MaxIndexedActions ? actionIndex[..actionCount] : default,
                lastDefinition,
                rid,
                ticks,
                baseOffset + pos,
                source,
                sourceIndex,
                clockReference);
            count++;
            observer.OnRecord(in record);
            handler.OnEvent(in record);
            pos = next;
        }

    Done:
        position = pos;
        EventCount += count;
        return count;
    }

    /// <summary>Action entries per record whose positions the loop keeps for the record's accessors.</summary>
    private const int MaxIndexedActions = 32;

    /// <summary>Walks the records of a data area without delivering them; the first problem, or null when it walks cleanly.</summary>
    internal RecordFailure Validate(ReadOnlySpan<byte> buffer, int pos, int end)
    {
        var handler = default(NullHandler);
        var observer = default(NoRecordObserver);
        var saved = EventCount;
        DecodeRecords(buffer, ref pos, end, 0, int.MaxValue, ref handler, ref observer, out var failure);
        EventCount = saved;
        return failure;
    }

    /// <summary>Rebuilds the record at <paramref name="pos"/>, which <see cref="DecodeRecords"/> validated (the pull API).</summary>
    internal XEventRecord RecordAt(ReadOnlySpan<byte> buffer, int pos, long baseOffset)
    {
        var rid = Bytes.U32(buffer, pos);
        var flags = Bytes.U32(buffer, pos + 4);
        var payloadStart = pos + XelConstants.RecordHeaderLength;
        var payloadLength = (int)Bytes.U32(buffer, pos + 20);
        var actionsStart = payloadStart + payloadLength;
        var actionsEnd = actionsStart;
        if ((flags & XelConstants.HasActionsFlag) != 0)
        {
            while (Bytes.U32(buffer, actionsEnd) != XelConstants.ActionListTerminator)
            {
                actionsEnd += 8 + (int)Bytes.U32(buffer, actionsEnd + 4);
            }
        }

        var definition = Metadata.EventByRid(rid);
        return new XEventRecord(
            buffer.Slice(payloadStart, payloadLength),
            buffer.Slice(actionsStart, actionsEnd - actionsStart),
            definition,
            rid,
            Bytes.U64(buffer, pos + 12),
            baseOffset + pos,
            SourceName,
            SourceIndex,
            Clock.Reference);
    }

    private void CheckVersion(string what, int version, long offset)
    {
        if (version != XelConstants.SupportedVersion)
        {
            throw new XelUnsupportedVersionException(what, version, SourceName, offset);
        }
    }

    private XelFormatException Error(string problem, long offset) => new(problem, SourceName, offset);

    private struct NullHandler : IXEventHandler
    {
        public readonly void OnMetadataChanged(XEventMetadata metadata)
        {
        }

        public readonly void OnEvent(in XEventRecord record)
        {
        }
    }
}

/// <summary>
/// Where and why a record could not be decoded: the problem (null when there was none), the offset of the bad
/// field in the source, and the start of the bad record in its buffer.
/// </summary>
internal readonly record struct RecordFailure(string? Problem, long Offset, int RecordStart);

/// <summary>Sees every record the decoder delivers (before the handler); a struct so an empty one costs nothing.</summary>
internal interface IRecordObserver
{
    void OnRecord(in XEventRecord record);
}

/// <summary>The observer that does nothing.</summary>
internal struct NoRecordObserver : IRecordObserver
{
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public readonly void OnRecord(in XEventRecord record)
    {
    }
}

/// <summary>
/// Values of the <c>type</c> column of <c>sys.fn_MSxe_read_event_stream</c> (int, not null; Microsoft documents it only
/// as "the event type"). They follow the buffer types of the .xel format: 0 events, 1 metadata, 2 a header that
/// starts a new stream (or file, in file mode), 3 an index. Public descriptions of XELite's live reader say type-2
/// rows mark a new file and are not parsed as buffers. Beliefs to confirm on a real server (docs/sqlserver.md).
/// </summary>
public static class LiveStreamRowType
{
    /// <summary>An event buffer.</summary>
    public const int Events = 0;

    /// <summary>A metadata buffer.</summary>
    public const int Metadata = 1;

    /// <summary>A stream or file header: a fresh metadata state starts.</summary>
    public const int Header = 2;

    /// <summary>An index buffer (file mode): no events.</summary>
    public const int Index = 3;
}
