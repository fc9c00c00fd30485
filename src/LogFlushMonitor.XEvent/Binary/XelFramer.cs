using System.Buffers.Binary;
using LogFlushMonitor.XEvent.Metadata;

namespace LogFlushMonitor.XEvent.Binary;

/// <summary>One buffer the framer found: where it is and where its data area lies (from the buffer start).</summary>
internal readonly record struct XelFrame(XEventBufferKind Kind, long Offset, int Length, int DataStart, int DataEnd);

/// <summary>
/// Walks the buffers of one .xel file and decides, from the bytes alone, what each region is: a buffer to
/// decode, damage to skip (in <see cref="XelDamageHandling.SkipAndReport"/> mode, recorded in the file's
/// result) or the end of the data. The rules (docs/analyze.md, "How files are read"):
/// <list type="bullet">
/// <item>EOF exactly after a buffer ends the file.</item>
/// <item>A zeroed buffer header (padded length ≤ 32) followed by zeros only ends the file (a zero tail).</item>
/// <item>A zeroed or invalid header followed by other data is damage: the framer scans forward in 512-byte
/// steps for the next plausible buffer whose content also decodes, skips to it, and records the skipped bytes.</item>
/// <item>A buffer cut by EOF ends the file (an incomplete tail), unless a plausible buffer follows its data
/// area inside it: then its length field was damaged and the buffer ends where the next one starts.</item>
/// <item>Likewise a buffer whose slack (after its data, beyond sector padding) holds a plausible buffer.</item>
/// <item>A buffer of a type other than events or metadata, and an unreadable metadata buffer, are skipped
/// as damage.</item>
/// <item>An event buffer whose sequence number (the u32 at 0x08, strictly increasing in the event buffers of a file)
/// is not above the previous one's is a buffer written twice (or a damaged number): skipped as damage, so its events
/// are not counted twice. 0xFFFFFFFF (no number: metadata buffers, and the event buffers of some files) is not
/// checked.</item>
/// </list>
/// In <see cref="XelDamageHandling.Throw"/> mode every such finding raises <see cref="XelFormatException"/>
/// instead (a zero tail still ends the file quietly; an incomplete tail raises unless allowed).
/// </summary>
internal sealed class XelFramer
{
    private const int Sector = 512;

    /// <summary>The largest step between the sequence numbers of two consecutive event buffers taken as real.</summary>
    private const uint MaxBufferSequenceStep = 1 << 20;

    private readonly XelByteSource _source;
    private readonly XelReaderOptions _options;
    private readonly XelFileResult _result;
    private readonly string? _name;
    private readonly XEventBufferDecoder _validator;
    private long _position;
    private bool _ended;
    private uint? _lastSequence;

    public XelFramer(XelByteSource source, XelReaderOptions options, XelFileResult result)
    {
        _source = source;
        _options = options;
        _result = result;
        _name = result.Path;
        _validator = new XEventBufferDecoder(_name);
    }

    private bool Report => _options.Damage == XelDamageHandling.SkipAndReport;

    /// <summary>The file offset of the next buffer.</summary>
    public long Position => _position;

    /// <summary>Reads and checks the file header (magic, version, length); raises on a problem.</summary>
    public void ReadFileHeader()
    {
        var got = _source.Ensure(0, 8);
        var head = _source.Get(0, got);
        if (got < 8 || BinaryPrimitives.ReadUInt32LittleEndian(head) != XelConstants.FileMagic)
        {
            throw Error("Not an XEL file: the file header magic 0xEFAB375A is missing", 0);
        }

        var version = BinaryPrimitives.ReadUInt16LittleEndian(head[4..]);
        if (version != XelConstants.SupportedVersion)
        {
            throw new XelUnsupportedVersionException("file header", version, _name, 4);
        }

        int headerLength = BinaryPrimitives.ReadUInt16LittleEndian(head[6..]);
        if (headerLength < 8)
        {
            throw Error($"File header length {headerLength} is too short", 6);
        }

        if (_source.Ensure(0, headerLength) < headerLength)
        {
            throw Error("File truncated inside its header", 8);
        }

        _position = headerLength;
        _source.Release(_position);
    }

    /// <summary>Finds the next events or metadata buffer; false at the end of the file's data.</summary>
    public bool Next(out XelFrame frame, CancellationToken cancellationToken)
    {
        frame = default;
        while (!_ended)
        {
            cancellationToken.ThrowIfCancellationRequested();
            var at = _position;
            _source.Release(at);
            var got = _source.Ensure(at, XelConstants.BufferHeaderLength);
            if (got == 0)
            {
                return End();
            }

            if (got < XelConstants.BufferHeaderLength)
            {
                return IncompleteTail(at, got, "buffer header");
            }

            var header = BufferHeader.Parse(_source.Get(at, XelConstants.BufferHeaderLength));
            if (header.IsZeroed)
            {
                SkipDamage(at, null, cancellationToken);
                continue;
            }

            var problem = header.Padded > (uint)_options.MaxBufferSize
                ? ($"Buffer length {header.Padded} exceeds the limit of {_options.MaxBufferSize}", 0x10)
                : header.Problem(header.Padded);
            if (problem is { } p)
            {
                if (!Report)
                {
                    throw header.LogVersion != XelConstants.SupportedVersion
                        ? new XelUnsupportedVersionException("buffer log", header.LogVersion, _name, at + 0x0C)
                        : Error(p.Text, at + p.Offset);
                }

                SkipDamage(at, (p.Text, at + p.Offset), cancellationToken);
                continue;
            }

            var length = (int)header.Padded;
            var available = _source.Ensure(at, length);
            if (available < length || length - header.SectorAlignedDataEnd >= XelConstants.BufferHeaderLength)
            {
                // A buffer cut by EOF, or with more slack than sector padding: a length field too large hides the
                // buffers after it. A plausible buffer after the data area says which.
                if (FindBufferInside(at, header, available) is { } next)
                {
                    var problemText = $"Buffer length {header.Padded} overlaps the buffer that starts at {next}: its length field is damaged";
                    if (!Report)
                    {
                        throw Error(problemText, at + 0x10);
                    }

                    _result.AddDamage(new XelDamage(at, 0, problemText, at + 0x10));
                    length = (int)(next - at);
                }
                else if (available < length)
                {
                    return IncompleteTail(at, available, "buffer");
                }
            }

            _position = at + length;
            switch (header.Type)
            {
                case 0:
                    if (RepeatsSequence(header, at, length))
                    {
                        break;
                    }

                    frame = new XelFrame(XEventBufferKind.Events, at, length, header.DataOffset, header.DataEnd);
                    return true;
                case 1:
                    frame = new XelFrame(XEventBufferKind.Metadata, at, length, header.DataOffset, header.DataEnd);
                    return true;
                default:
                    var text = $"Buffer of type {header.Type} ({length} bytes) is neither events nor metadata; it was skipped";
                    if (!Report)
                    {
                        throw Error(text, at + 0x0E);
                    }

                    _result.AddDamage(new XelDamage(at, length, text, at + 0x0E));
                    break;
            }
        }

        return false;
    }

    /// <summary>
    /// True (the buffer is damage, recorded or raised) when an event buffer's sequence number is not above the last
    /// one of this file: a buffer appended twice repeats its number, and would repeat its events.
    /// </summary>
    private bool RepeatsSequence(in BufferHeader header, long at, int length)
    {
        if (header.Sequence == BufferHeader.NoSequence)
        {
            return false;
        }

        if (_lastSequence is { } last && header.Sequence <= last)
        {
            var text = header.Sequence == last
                ? $"Event buffer sequence number {header.Sequence} repeats the previous event buffer's: a buffer written twice; its {length} bytes were skipped so its events are not counted twice"
                : $"Event buffer sequence number {header.Sequence} goes back from {last}: a buffer written again or a damaged number; its {length} bytes were skipped";
            if (!Report)
            {
                throw Error(text, at + 0x08);
            }

            _result.AddDamage(new XelDamage(at, length, text, at + 0x08));
            return true;
        }

        // A number far above the last is more likely a damaged one than a million buffers the session dropped: the
        // buffer is read, but its number does not become the baseline (it would make every later buffer look repeated).
        if (_lastSequence is not { } previous || header.Sequence - previous <= MaxBufferSequenceStep)
        {
            _lastSequence = header.Sequence;
        }

        return false;
    }

    /// <summary>Records that a buffer the caller could not use (bad metadata) was skipped, or raises in Throw mode.</summary>
    public void SkipBuffer(in XelFrame frame, XelFormatException problem)
    {
        if (!Report)
        {
            throw problem;
        }

        _result.AddDamage(new XelDamage(frame.Offset, frame.Length, $"Metadata buffer unreadable: {problem.Problem}", problem.Offset));
    }

    /// <summary>
    /// At a zeroed (<paramref name="problem"/> null) or invalid header: a zero tail ends the file; otherwise scan
    /// for the next plausible buffer and record the bytes skipped (or raise in Throw mode).
    /// </summary>
    private void SkipDamage(long at, (string Text, long Offset)? problem, CancellationToken cancellationToken)
    {
        var nonZero = false;
        long? next = null;
        var scan = at;
        var steps = 0;
        while (true)
        {
            if (++steps % 256 == 0)
            {
                cancellationToken.ThrowIfCancellationRequested();
            }

            var got = _source.Ensure(scan, Sector);
            if (got == 0)
            {
                break;
            }

            if (scan > at && IsPlausibleBufferAt(scan))
            {
                next = scan;
                break;
            }

            nonZero |= _source.Get(scan, got).ContainsAnyExcept((byte)0);
            _source.Release(scan);
            scan += got;
            if (got < Sector)
            {
                break;
            }
        }

        var end = next ?? scan;
        if (problem is null && !nonZero && next is null)
        {
            // Zeros to the end of the file: preallocated space, nothing lost.
            _result.Tail = XelTailKind.Zeros;
            _result.TailOffset = at;
            _result.TailBytes = end - at;
            _position = end;
            _ended = true;
            return;
        }

        var what = problem is { } p ? p.Text : "Zeroed buffer header";
        var after = next is { } n
            ? $"; the next readable buffer starts at {n}"
            : problem is null ? $", but the {end - at} bytes after it are not all zero and hold no readable buffer" : "; no readable buffer follows";
        var text = $"{what}{after}: {end - at} bytes skipped";
        if (!Report)
        {
            throw Error(text, problem?.Offset ?? at);
        }

        _result.AddDamage(new XelDamage(at, end - at, text, problem?.Offset ?? at));
        _position = end;
        _ended = next is null;
    }

    /// <summary>Scans 512-byte steps after a buffer's data area (inside its claimed length) for a plausible buffer.</summary>
    private long? FindBufferInside(long at, BufferHeader header, int available)
    {
        for (var offset = header.SectorAlignedDataEnd; offset + XelConstants.BufferHeaderLength <= available; offset += Sector)
        {
            if (IsPlausibleBufferAt(at + offset))
            {
                return at + offset;
            }
        }

        return null;
    }

    /// <summary>A header that passes the strict checks and whose whole content reads cleanly.</summary>
    private bool IsPlausibleBufferAt(long at)
    {
        if (_source.Ensure(at, XelConstants.BufferHeaderLength) < XelConstants.BufferHeaderLength)
        {
            return false;
        }

        var header = BufferHeader.Parse(_source.Get(at, XelConstants.BufferHeaderLength));
        if (!header.IsPlausible(long.MaxValue) || header.Padded > (uint)_options.MaxBufferSize
            || _source.Ensure(at, (int)header.Padded) < header.Padded)
        {
            return false;
        }

        var buffer = _source.Get(at, (int)header.Padded);
        if (header.Type == 0)
        {
            return _validator.Validate(buffer, header.DataOffset, header.DataEnd).Problem is null;
        }

        try
        {
            MetadataParser.Parse(new XEventMetadata(), buffer, header.DataOffset, header.DataEnd, at, _name);
            return true;
        }
        catch (XelFormatException)
        {
            return false;
        }
    }

    private bool IncompleteTail(long at, int available, string what)
    {
        if (!Report && !_options.AllowTruncatedTail)
        {
            throw Error($"File truncated inside a {what}", at);
        }

        _result.Tail = XelTailKind.IncompleteBuffer;
        _result.TailOffset = at;
        _result.TailBytes = available;
        _position = at + available;
        return End();
    }

    private bool End()
    {
        _ended = true;
        return false;
    }

    private XelFormatException Error(string problem, long offset) => new(problem, _name, offset);
}
