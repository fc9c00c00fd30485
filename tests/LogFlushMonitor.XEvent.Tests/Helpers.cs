using System.Buffers.Binary;
using LogFlushMonitor.XEvent.Binary;
using LogFlushMonitor.XEvent.Metadata;

namespace LogFlushMonitor.XEvent.Tests;

internal static class XelTestFiles
{
    /// <summary>Splits a whole .xel file into live-stream-like rows: the file header, then one row per buffer.</summary>
    public static List<byte[]> SplitIntoRows(byte[] file)
    {
        int headerLength = BinaryPrimitives.ReadUInt16LittleEndian(file.AsSpan(6));
        var rows = new List<byte[]> { file[..headerLength] };
        var pos = headerLength;
        while (pos < file.Length)
        {
            var padded = (int)BinaryPrimitives.ReadUInt32LittleEndian(file.AsSpan(pos + 0x10));
            rows.Add(file[pos..(pos + padded)]);
            pos += padded;
        }

        return rows;
    }

    public static string TempDirectory()
    {
        var dir = Path.Combine(Path.GetTempPath(), "xel-tests-" + Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(dir);
        return dir;
    }
}

/// <summary>Collects (name, ticks) of each event.</summary>
internal struct CollectingHandler : IXEventHandler
{
    public CollectingHandler()
    {
    }

    public List<(string Name, ulong Ticks)> Events { get; } = [];

    public int MetadataChanges { get; private set; }

    public void OnMetadataChanged(XEventMetadata metadata) => MetadataChanges++;

    public readonly void OnEvent(in XEventRecord record) => Events.Add((record.Name, record.Ticks));
}

/// <summary>Reads every field and action of every event through the non-allocating accessors.</summary>
internal struct EveryFieldHandler : IXEventHandler
{
    private readonly char[] _chars = new char[8192];
    private XEventMetadata? _metadata;

    public EveryFieldHandler()
    {
    }

    public long Values { get; private set; }

    public ulong Checksum { get; private set; }

    public void OnMetadataChanged(XEventMetadata metadata) => _metadata = metadata;

    public void OnEvent(in XEventRecord record)
    {
        var definition = record.Definition;
        if (definition is null)
        {
            return;
        }

        foreach (var field in definition.FieldArrayForTests())
        {
            if (record.TryGetField(field.Name, out var v))
            {
                Consume(v);
            }
        }

        foreach (var action in record.EnumerateActions(_metadata!))
        {
            Consume(action.Value);
        }
    }

    private void Consume(XEventValue v)
    {
        Values++;
        if (v.TryGetUInt64(out var u))
        {
            Checksum += u;
        }
        else if (v.TryGetInt64(out var s))
        {
            Checksum += (ulong)s;
        }
        else if (v.TryCopyString(_chars, out var n))
        {
            Checksum += (ulong)n + (n > 0 ? _chars[0] : 0u);
        }
        else if (v.TryGetGuid(out var g))
        {
            Checksum += (ulong)g.GetHashCode();
        }
        else
        {
            Checksum += (ulong)v.Bytes.Length;
        }
    }
}

internal static class DefinitionExtensions
{
    /// <summary>Field list without the IReadOnlyList enumerator allocation.</summary>
    public static XEventField[] FieldArrayForTests(this XEventDefinition d) => d.FieldArray;
}
