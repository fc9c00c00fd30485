using System.Buffers.Binary;
using System.Runtime.InteropServices;

namespace LogFlushMonitor.XEvent.Binary;

/// <summary>A bounds-checked little-endian cursor over one buffer; every overrun is a typed error.</summary>
internal ref struct SpanReader
{
    private readonly ReadOnlySpan<byte> _data;
    private readonly long _baseOffset;
    private readonly string? _source;

    public SpanReader(ReadOnlySpan<byte> data, int position, long baseOffset, string? source)
    {
        _data = data;
        Position = position;
        _baseOffset = baseOffset;
        _source = source;
    }

    public int Position { get; set; }

    public readonly int Length => _data.Length;

    public ushort U16() => BinaryPrimitives.ReadUInt16LittleEndian(Take(2));

    public uint U32() => BinaryPrimitives.ReadUInt32LittleEndian(Take(4));

    public int I32() => BinaryPrimitives.ReadInt32LittleEndian(Take(4));

    public ulong U64() => BinaryPrimitives.ReadUInt64LittleEndian(Take(8));

    public long I64() => BinaryPrimitives.ReadInt64LittleEndian(Take(8));

    public byte U8() => Take(1)[0];

    public Guid Guid() => new(Take(16));

    public void Skip(int count) => Take(count);

    public ReadOnlySpan<byte> Take(int count)
    {
        if (count < 0 || count > _data.Length - Position)
        {
            throw Error($"Structure runs past the end of its buffer (needs {count} bytes)");
        }

        var s = _data.Slice(Position, count);
        Position += count;
        return s;
    }

    /// <summary>Reads a NUL-terminated UTF-16LE string.</summary>
    public string WString()
    {
        var rest = _data[Position..];
        var chars = MemoryMarshal.Cast<byte, char>(rest[..(rest.Length & ~1)]);
        var end = chars.IndexOf('\0');
        if (end < 0)
        {
            throw Error("Unterminated metadata string");
        }

        Position += (end + 1) * 2;
        // Real strings are ASCII names; decode explicitly little-endian for portability.
        return System.Text.Encoding.Unicode.GetString(rest[..(end * 2)]);
    }

    public readonly XelFormatException Error(string problem) => new(problem, _source, _baseOffset + Position);
}
