using LogFlushMonitor.XEvent.Metadata;

namespace LogFlushMonitor.XEvent.Binary;

/// <summary>Parses the package records of a metadata buffer and merges them into an <see cref="XEventMetadata"/>.</summary>
internal static class MetadataParser
{
    private const int PackageHeaderLength = 48;

    /// <summary>
    /// Parses every package record of a metadata buffer, then merges them. A malformed buffer raises
    /// <see cref="XelFormatException"/> and leaves <paramref name="metadata"/> as it was (a reader that skips
    /// damage goes on with the metadata it had).
    /// </summary>
    public static void Merge(XEventMetadata metadata, ReadOnlySpan<byte> buffer, int start, int end, long baseOffset, string? source)
    {
        var staged = new XEventMetadata();
        Parse(staged, buffer, start, end, baseOffset, source);
        metadata.MergeFrom(staged);
    }

    /// <summary>Parses a metadata buffer into a fresh metadata object (nothing else is touched).</summary>
    public static void Parse(XEventMetadata metadata, ReadOnlySpan<byte> buffer, int start, int end, long baseOffset, string? source)
    {
        var pos = start;
        while (pos < end)
        {
            var head = new SpanReader(buffer[..end], pos, baseOffset, source);
            var version = head.U16();
            if (version != XelConstants.SupportedVersion)
            {
                throw new XelUnsupportedVersionException("package record", version, source, baseOffset + pos);
            }

            var size = head.U32();
            if (size < PackageHeaderLength || size > (uint)(end - pos))
            {
                throw new XelFormatException($"Package record size {size} does not fit its metadata buffer", source, baseOffset + pos + 2);
            }

            // Each record is read through a slice, so its content can never spill into the next one.
            var record = buffer.Slice(pos, (int)size);
            ParsePackage(metadata, record, baseOffset + pos, source);
            pos += (int)size;
        }
    }

    private static void ParsePackage(XEventMetadata metadata, ReadOnlySpan<byte> record, long baseOffset, string? source)
    {
        var r = new SpanReader(record, 6, baseOffset, source);
        r.Guid(); // signature
        r.U16(); // generation
        r.U16(); // ticks-config version
        r.Skip(6);
        var startTime = r.I64();
        var frequency = r.U64();
        if (frequency == 0)
        {
            throw r.Error("Package declares a tick frequency of 0");
        }

        if (startTime < 0 || startTime > DateTime.MaxValue.ToFileTimeUtc())
        {
            throw r.Error($"Package start time {startTime} is not a valid FILETIME");
        }

        var header = ReadObjectHeader(ref r);
        var packageId = r.Guid();
        r.Guid(); // module id
        r.U16(); // minimum context version
        var collections = r.U32();
        // Each entry is 12 bytes: let the bounded reader reject absurd counts.
        r.Skip(checked((int)Math.Min(collections * 12UL, int.MaxValue)));

        var package = new XEventPackage((int)(header.Rid & 0x3FF), header.Name, packageId, startTime, frequency);
        metadata.AddPackage(package);

        var eventCount = r.U32();
        for (var i = 0u; i < eventCount; i++)
        {
            metadata.AddEvent(ReadEvent(ref r, package));
        }

        var actionCount = r.U32();
        for (var i = 0u; i < actionCount; i++)
        {
            var h = ReadObjectHeader(ref r);
            var typeRid = r.U32();
            var storage = r.U32();
            r.I32(); // flags
            metadata.AddAction(new XEventAction(h.Rid, h.Name, package.Name, typeRid, storage));
        }

        var mapCount = r.U32();
        for (var i = 0u; i < mapCount; i++)
        {
            var h = ReadObjectHeader(ref r);
            var valueSize = r.U8();
            var entryCount = r.U16();
            var entries = new List<KeyValuePair<uint, string>>(Math.Min((int)entryCount, 1024));
            for (var j = 0; j < entryCount; j++)
            {
                var key = r.U32();
                entries.Add(new(key, r.WString()));
            }

            metadata.AddMap(new XEventMap(h.Rid, h.Name, package.Name, (h.Specific & 1) != 0, valueSize, entries));
        }

        var typeCount = r.U32();
        for (var i = 0u; i < typeCount; i++)
        {
            var h = ReadObjectHeader(ref r);
            metadata.AddType(h.Rid, h.Name, r.U8());
        }

        // What follows is 0-7 padding bytes of any value: ignored.
    }

    private static XEventDefinition ReadEvent(ref SpanReader r, XEventPackage package)
    {
        var h = ReadObjectHeader(ref r);
        var staticCount = r.U16();
        var customCount = r.U16();
        var fieldCount = r.U16();
        var fixedCount = r.U16();
        var uuid = Guid.Empty;
        for (var i = 0; i < staticCount; i++)
        {
            var rid = r.U32();
            r.WString();
            var value = ReadAttributeValue(ref r, rid);
            if (i == 0 && value is Guid g)
            {
                uuid = g;
            }

            r.WString();
        }

        for (var i = 0; i < customCount; i++)
        {
            var rid = r.U32();
            r.WString();
            ReadAttributeValue(ref r, rid);
            r.U64(); // default
            r.I32();
            r.I32();
            r.WString();
        }

        var fields = new XEventField[fieldCount];
        for (var i = 0; i < fieldCount; i++)
        {
            var typeRid = r.U32();
            var name = r.WString();
            var offset = r.U16();
            var caps = r.U16();
            var description = r.WString();
            fields[i] = new XEventField(name, i, offset, typeRid, i >= fixedCount, caps, description);
        }

        return new XEventDefinition(h.Rid, h.Name, package, fields, uuid);
    }

    private static object? ReadAttributeValue(ref SpanReader r, uint rid)
    {
        switch ((rid >> 10) & 0x3FFFF)
        {
            case 16:
                return r.Guid();
            case 15:
                r.WString();
                return null;
            default:
                r.U64();
                return null;
        }
    }

    private static ObjectHeader ReadObjectHeader(ref SpanReader r)
    {
        r.U16(); // version
        r.U8(); // generic capabilities
        var specific = r.U8();
        var rid = r.U32();
        var name = r.WString();
        r.WString(); // description
        return new ObjectHeader(rid, name, specific);
    }

    private readonly record struct ObjectHeader(uint Rid, string Name, byte Specific);
}
