using System.Buffers.Binary;

namespace LogFlushMonitor.XEvent;

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
    public XEventMetadata Metadata { get; private set; } = new();

    /// <summary>Names the source in exceptions (a file name, a session name).</summary>
    public string? SourceName { get; set; }

    /// <summary>Events decoded so far.</summary>
    public long EventCount { get; private set; }

    /// <summary>Forgets all metadata (a new stream, file or connection).</summary>
    public void Reset() => Metadata = new XEventMetadata();

    /// <summary>Decodes one buffer (or header row), pushing its events to a handler passed by ref.</summary>
    public XEventBufferKind Decode<THandler>(ReadOnlySpan<byte> buffer, ref THandler handler)
        where THandler : IXEventHandler => Decode(buffer, 0, ref handler);

    /// <summary>Decodes one buffer; <paramref name="baseOffset"/> is its position in the source, for errors.</summary>
    public XEventBufferKind Decode<THandler>(ReadOnlySpan<byte> buffer, long baseOffset, ref THandler handler)
        where THandler : IXEventHandler
    {
        var kind = Begin(buffer, baseOffset, out var pos, out var end);
        if (kind == XEventBufferKind.Metadata || kind == XEventBufferKind.Header)
        {
            handler.OnMetadataChanged(Metadata);
        }
        else if (kind == XEventBufferKind.Events)
        {
            while (pos < end)
            {
                var layout = ReadRecord(buffer, pos, end, baseOffset);
                var record = CreateRecord(buffer, layout, baseOffset);
                handler.OnEvent(in record);
                pos = layout.Next;
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
    internal XEventBufferKind Begin(ReadOnlySpan<byte> buffer, long baseOffset, out int dataStart, out int dataEnd)
    {
        dataStart = dataEnd = 0;
        if (buffer.Length >= 6 && BinaryPrimitives.ReadUInt32LittleEndian(buffer) == XelConstants.FileMagic)
        {
            CheckVersion("file header", BinaryPrimitives.ReadUInt16LittleEndian(buffer[4..]), baseOffset + 4);
            Reset();
            return XEventBufferKind.Header;
        }

        if (buffer.Length < XelConstants.BufferHeaderLength)
        {
            throw Error($"Buffer of {buffer.Length} bytes is shorter than a buffer header", baseOffset);
        }

        var padded = BinaryPrimitives.ReadUInt32LittleEndian(buffer[0x10..]);
        if (padded <= XelConstants.BufferHeaderLength)
        {
            return XEventBufferKind.End;
        }

        CheckVersion("buffer log", BinaryPrimitives.ReadUInt16LittleEndian(buffer[0x0C..]), baseOffset + 0x0C);
        var type = BinaryPrimitives.ReadUInt16LittleEndian(buffer[0x0E..]);
        int dataOffset = BinaryPrimitives.ReadUInt16LittleEndian(buffer[0x16..]);
        var dataLength = BinaryPrimitives.ReadUInt32LittleEndian(buffer[0x18..]);
        var limit = (uint)Math.Min(padded, (uint)buffer.Length);
        if (dataOffset < XelConstants.BufferHeaderLength || dataOffset > limit || dataLength > limit - (uint)dataOffset)
        {
            throw Error($"Buffer data area (offset {dataOffset}, length {dataLength}) does not fit in {limit} bytes", baseOffset + 0x16);
        }

        dataStart = dataOffset;
        dataEnd = dataOffset + (int)dataLength;
        switch (type)
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

    /// <summary>Validates one record's header, payload and action list; the result locates its parts.</summary>
    internal RecordLayout ReadRecord(ReadOnlySpan<byte> buffer, int pos, int end, long baseOffset)
    {
        if (end - pos < XelConstants.RecordHeaderLength)
        {
            throw Error($"Event record header truncated ({end - pos} bytes left in the data area)", baseOffset + pos);
        }

        var rid = BinaryPrimitives.ReadUInt32LittleEndian(buffer[pos..]);
        var flags = BinaryPrimitives.ReadUInt32LittleEndian(buffer[(pos + 4)..]);
        var ticks = BinaryPrimitives.ReadUInt64LittleEndian(buffer[(pos + 12)..]);
        var payloadLength = BinaryPrimitives.ReadUInt32LittleEndian(buffer[(pos + 20)..]);
        var payloadStart = pos + XelConstants.RecordHeaderLength;
        if (payloadLength > (uint)(end - payloadStart))
        {
            throw Error($"Event payload length {payloadLength} runs past the data area", baseOffset + pos + 20);
        }

        var next = payloadStart + (int)payloadLength;
        var actionsStart = next;
        var actionsEnd = next;
        // Only bit 31 is meaningful; the other flag bits can hold garbage.
        if ((flags & XelConstants.HasActionsFlag) != 0)
        {
            while (true)
            {
                if (end - next < 8)
                {
                    throw Error("Action list runs past the data area without its terminator", baseOffset + next);
                }

                var actionRid = BinaryPrimitives.ReadUInt32LittleEndian(buffer[next..]);
                var length = BinaryPrimitives.ReadUInt32LittleEndian(buffer[(next + 4)..]);
                if (length > (uint)(end - next - 8))
                {
                    throw Error($"Action length {length} runs past the data area", baseOffset + next + 4);
                }

                if (actionRid == XelConstants.ActionListTerminator)
                {
                    actionsEnd = next;
                    next += 8 + (int)length;
                    break;
                }

                next += 8 + (int)length;
            }
        }

        EventCount++;
        return new RecordLayout(rid, ticks, pos, payloadStart, (int)payloadLength, actionsStart, actionsEnd - actionsStart, next);
    }

    internal XEventRecord CreateRecord(ReadOnlySpan<byte> buffer, in RecordLayout layout, long baseOffset)
    {
        Metadata.TryGetEventByRid(layout.Rid, out var definition);
        return new XEventRecord(
            buffer.Slice(layout.PayloadStart, layout.PayloadLength),
            buffer.Slice(layout.ActionsStart, layout.ActionsLength),
            definition,
            layout.Rid,
            layout.Ticks,
            baseOffset + layout.Start,
            SourceName);
    }

    private void CheckVersion(string what, int version, long offset)
    {
        if (version != XelConstants.SupportedVersion)
        {
            throw new XelUnsupportedVersionException(what, version, SourceName, offset);
        }
    }

    private XelFormatException Error(string problem, long offset) => new(problem, SourceName, offset);
}

/// <summary>Where the parts of one validated record are in its buffer.</summary>
internal readonly record struct RecordLayout(
    uint Rid, ulong Ticks, int Start, int PayloadStart, int PayloadLength, int ActionsStart, int ActionsLength, int Next);
