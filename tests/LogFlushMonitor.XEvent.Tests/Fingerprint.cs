using System.Buffers.Binary;
using LogFlushMonitor.XEvent.Binary;
using LogFlushMonitor.XEvent.Metadata;

namespace LogFlushMonitor.XEvent.Tests;

/// <summary>
/// A handler that folds every field and every action of every event (its raw bytes and, for integers and text,
/// the typed value too) into an order-independent checksum, overall and per file. Two readers that deliver the
/// same events with the same values, in any order, give the same fingerprint.
/// </summary>
internal sealed class Fingerprint : IXEventHandler
{
    private readonly char[] _chars = new char[64 * 1024];
    private XEventMetadata? _metadata;

    public long Count { get; private set; }

    public ulong Sum { get; private set; }

    public Dictionary<int, (long Count, ulong Sum)> PerFile { get; } = [];

    public List<(int File, long Position)>? Positions { get; init; }

    public void OnMetadataChanged(XEventMetadata metadata) => _metadata = metadata;

    public void OnEvent(in XEventRecord record)
    {
        var h = Mix(Mix(Mix(Mix(Offset, (ulong)record.SourceIndex), (ulong)record.Position), record.EventRid), record.Ticks);
        if (record.Definition is { } definition)
        {
            var i = 0UL;
            foreach (var field in definition.FieldHandles)
            {
                h = Mix(h, ++i);
                if (record.TryGetField(field, out var v))
                {
                    h = Mix(h, Value(v));
                }

                if (record.TryGetUInt64(field, out var u))
                {
                    h = Mix(h, u);
                }
            }
        }

        foreach (var action in record.EnumerateActions(_metadata!))
        {
            h = Mix(Mix(h, action.Rid), Value(action.Value));
        }

        Count++;
        Sum += h;
        var f = PerFile.GetValueOrDefault(record.SourceIndex);
        PerFile[record.SourceIndex] = (f.Count + 1, f.Sum + h);
        Positions?.Add((record.SourceIndex, record.Position));
    }

    public static (long Count, ulong Sum, Dictionary<int, (long, ulong)> PerFile) Merge(IEnumerable<Fingerprint> parts)
    {
        long count = 0;
        ulong sum = 0;
        var perFile = new Dictionary<int, (long, ulong)>();
        foreach (var p in parts)
        {
            count += p.Count;
            sum += p.Sum;
            foreach (var (file, (c, s)) in p.PerFile)
            {
                var (c0, s0) = perFile.GetValueOrDefault(file);
                perFile[file] = (c0 + c, s0 + s);
            }
        }

        return (count, sum, perFile);
    }

    private ulong Value(XEventValue v)
    {
        var h = Offset;
        foreach (var b in v.Bytes)
        {
            h = (h ^ b) * Prime;
        }

        if (v.TryGetUInt64(out var u))
        {
            h = Mix(h, u);
        }
        else if (v.TryGetInt64(out var s))
        {
            h = Mix(h, (ulong)s);
        }
        else if (v.TryCopyString(_chars, out var n))
        {
            foreach (var c in _chars.AsSpan(0, n))
            {
                h = (h ^ c) * Prime;
            }
        }

        return h;
    }

    private const ulong Offset = 14695981039346656037UL;
    private const ulong Prime = 1099511628211UL;

    private static ulong Mix(ulong h, ulong v)
    {
        Span<byte> b = stackalloc byte[8];
        BinaryPrimitives.WriteUInt64LittleEndian(b, v);
        foreach (var x in b)
        {
            h = (h ^ x) * Prime;
        }

        return h;
    }
}

/// <summary>A reader's per-file results in comparable form.</summary>
internal static class Outcomes
{
    public static List<string> Describe(IEnumerable<XelFileResult> files, bool withBytes = true) =>
        [.. files.Select(f => string.Join(" | ",
            f.Index, Path.GetFileName(f.Path), f.Status, f.Events, f.Tail, f.TailOffset, f.TailBytes, f.EventsLost, f.SequencedEvents,
            withBytes && f.Error is null ? f.Bytes : -1,
            f.Error is XelFormatException xe ? $"{xe.GetType().Name}@{xe.Offset}: {xe.Problem}" : f.Error?.GetType().Name ?? "-",
            string.Join("; ", f.Damage.Select(d => $"[{d.Offset}+{d.Length}] @{d.ProblemOffset} {d.Problem}"))))];
}
