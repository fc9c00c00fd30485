using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Text;
using LogFlushMonitor.XEvent.Metadata;

namespace LogFlushMonitor.XEvent.Binary;

/// <summary>An activity id value: a GUID and a sequence number.</summary>
public readonly record struct XEventActivityId(Guid Id, uint Sequence)
{
    /// <inheritdoc />
    public override string ToString() => $"{Id:D}-{Sequence}";
}

/// <summary>A map value: the raw key and its text (flags joined by ", " for a bitmask map).</summary>
public readonly record struct XEventMapValue(ulong Key, string Text)
{
    /// <inheritdoc />
    public override string ToString() => Text;
}

/// <summary>
/// One located field or action value: its bytes (already bounds-checked) and its type. Typed accessors
/// return false when the type does not fit, instead of mis-reading.
/// </summary>
public readonly ref struct XEventValue
{
    internal XEventValue(ReadOnlySpan<byte> bytes, ValueKind kind, XEventValueType? type)
    {
        Bytes = bytes;
        Kind = kind;
        Type = type;
    }

    /// <summary>The raw value bytes.</summary>
    public ReadOnlySpan<byte> Bytes { get; }

    /// <summary>The value's type, when known.</summary>
    public XEventValueType? Type { get; }

    internal ValueKind Kind { get; }

    /// <summary>
    /// True for UTF-16LE text (unicode_string, xml): <see cref="Bytes"/> are the characters, so a caller can hash and
    /// compare them with a string's bytes without decoding (interning an action's text per event without allocating).
    /// </summary>
    public bool IsUtf16Text => Kind is ValueKind.UnicodeString or ValueKind.Xml;

    /// <summary>True for integers (of any width), pointers, booleans and map keys.</summary>
    public bool IsInteger => ((1 << (int)Kind) & (IntegerKinds | (1 << (int)ValueKind.Signed))) != 0;

    /// <summary>True for text values (unicode, ANSI, XML).</summary>
    public bool IsString => ((1 << (int)Kind) & StringKinds) != 0;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static bool IsUnsignedKind(ValueKind kind) => ((1 << (int)kind) & IntegerKinds) != 0;

    // Kind tests as bit masks: one AND instead of a chain of compares on the per-value path.
    private const int IntegerKinds = (1 << (int)ValueKind.Unsigned) | (1 << (int)ValueKind.Boolean) | (1 << (int)ValueKind.Map) | (1 << (int)ValueKind.BitmaskMap);
    private const int StringKinds = (1 << (int)ValueKind.UnicodeString) | (1 << (int)ValueKind.AnsiString) | (1 << (int)ValueKind.Xml);

    /// <summary>Reads an unsigned integer of any width; false for negative or non-integer values.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool TryGetUInt64(out ulong value)
    {
        if (((1 << (int)Kind) & IntegerKinds) != 0)
        {
            return TryReadUnsigned(out value);
        }

        if (Kind == ValueKind.Signed)
        {
            var ok = TryReadSigned(out var s) && s >= 0;
            value = ok ? (ulong)s : 0;
            return ok;
        }

        value = 0;
        return false;
    }

    /// <summary>Reads a signed integer of any width; false when it does not fit.</summary>
    public bool TryGetInt64(out long value)
    {
        if (Kind == ValueKind.Signed)
        {
            return TryReadSigned(out value);
        }

        if (TryGetUInt64(out var u) && u <= long.MaxValue)
        {
            value = (long)u;
            return true;
        }

        value = 0;
        return false;
    }

    /// <summary>Reads a value that fits in 32 unsigned bits.</summary>
    public bool TryGetUInt32(out uint value)
    {
        var ok = TryGetUInt64(out var u) && u <= uint.MaxValue;
        value = ok ? (uint)u : 0;
        return ok;
    }

    /// <summary>Reads a value that fits in 32 signed bits.</summary>
    public bool TryGetInt32(out int value)
    {
        var ok = TryGetInt64(out var s) && s is >= int.MinValue and <= int.MaxValue;
        value = ok ? (int)s : 0;
        return ok;
    }

    /// <summary>Reads a boolean (any non-zero byte is true).</summary>
    public bool TryGetBoolean(out bool value)
    {
        var ok = Kind == ValueKind.Boolean && Bytes.Length == 1;
        value = ok && Bytes[0] != 0;
        return ok;
    }

    /// <summary>Reads a float32 or float64 as a double.</summary>
    public bool TryGetDouble(out double value)
    {
        value = 0;
        if (Kind != ValueKind.Float)
        {
            return false;
        }

        if (Bytes.Length == 4)
        {
            value = BinaryPrimitives.ReadSingleLittleEndian(Bytes);
            return true;
        }

        if (Bytes.Length == 8)
        {
            value = BinaryPrimitives.ReadDoubleLittleEndian(Bytes);
            return true;
        }

        return false;
    }

    /// <summary>Reads a GUID (also the GUID part of an activity id).</summary>
    public bool TryGetGuid(out Guid value)
    {
        if ((Kind == ValueKind.Guid && Bytes.Length == 16) || (Kind == ValueKind.ActivityId && Bytes.Length == 20))
        {
            value = new Guid(Bytes[..16]);
            return true;
        }

        value = default;
        return false;
    }

    /// <summary>Reads an activity id (GUID + sequence).</summary>
    public bool TryGetActivityId(out XEventActivityId value)
    {
        if (Kind == ValueKind.ActivityId && Bytes.Length == 20)
        {
            value = new XEventActivityId(new Guid(Bytes[..16]), BinaryPrimitives.ReadUInt32LittleEndian(Bytes[16..]));
            return true;
        }

        value = default;
        return false;
    }

    /// <summary>Reads a map value: its key and text (no allocation for a value map; flags are formatted).</summary>
    public bool TryGetMap(out ulong key, out string text)
    {
        text = string.Empty;
        if (Kind is not (ValueKind.Map or ValueKind.BitmaskMap) || !TryReadUnsigned(out key))
        {
            key = 0;
            return false;
        }

        var map = Type!.Map!;
        if (Kind == ValueKind.Map)
        {
            // An unknown key is a valid value (a newer server): the text is then empty.
            map.TryGetText(key, out text);
        }
        else
        {
            text = map.FormatFlags(key);
        }

        return true;
    }

    /// <summary>Reads a bitmask map's raw flags.</summary>
    public bool TryGetFlags(out ulong flags)
    {
        if (Kind == ValueKind.BitmaskMap)
        {
            return TryReadUnsigned(out flags);
        }

        flags = 0;
        return false;
    }

    /// <summary>Number of chars <see cref="TryCopyString"/> needs; -1 when the value is not text.</summary>
    public int StringLength => Kind switch
    {
        ValueKind.UnicodeString or ValueKind.Xml => Bytes.Length / 2,
        ValueKind.AnsiString => Bytes.Length,
        _ => -1,
    };

    /// <summary>Decodes text into a caller buffer without allocating. ANSI text is read as Latin-1.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool TryCopyString(Span<char> destination, out int charsWritten)
    {
        charsWritten = 0;
        if (Kind == ValueKind.UnicodeString && BitConverter.IsLittleEndian)
        {
            // The common case first: UTF-16LE bytes are the chars.
            var chars = MemoryMarshal.Cast<byte, char>(Bytes);
            if (chars.Length > destination.Length)
            {
                return false;
            }

            chars.CopyTo(destination);
            charsWritten = chars.Length;
            return true;
        }

        var n = StringLength;
        if (n < 0 || n > destination.Length)
        {
            return false;
        }

        if (Kind == ValueKind.AnsiString)
        {
            Encoding.Latin1.GetChars(Bytes, destination);
        }
        else if (BitConverter.IsLittleEndian)
        {
            MemoryMarshal.Cast<byte, char>(Bytes[..(n * 2)]).CopyTo(destination);
        }
        else
        {
            Encoding.Unicode.GetChars(Bytes[..(n * 2)], destination);
        }

        charsWritten = n;
        return true;
    }

    /// <summary>Compares text with a string without allocating.</summary>
    public bool StringEquals(ReadOnlySpan<char> text) =>
        (Kind is ValueKind.UnicodeString or ValueKind.Xml)
        && Bytes.Length == text.Length * 2
        && MemoryMarshal.AsBytes(text).SequenceEqual(Bytes);

    /// <summary>Allocating convenience: text values and map texts; null otherwise.</summary>
    public string? GetString(Encoding? ansiEncoding = null) => Kind switch
    {
        ValueKind.UnicodeString or ValueKind.Xml => Encoding.Unicode.GetString(Bytes[..(Bytes.Length & ~1)]),
        ValueKind.AnsiString => (ansiEncoding ?? Encoding.Latin1).GetString(Bytes),
        ValueKind.Map or ValueKind.BitmaskMap => TryGetMap(out _, out var t) ? t : null,
        _ => null,
    };

    /// <summary>
    /// Allocating convenience for materialised events: long, ulong, bool, double, Guid, string, byte[],
    /// <see cref="XEventActivityId"/> or <see cref="XEventMapValue"/>; null when the type is unknown.
    /// </summary>
    public object? ToObject(Encoding? ansiEncoding = null)
    {
        switch (Kind)
        {
            case ValueKind.Signed:
                return TryReadSigned(out var s) ? s : null;
            case ValueKind.Unsigned:
                return TryReadUnsigned(out var u) ? u : null;
            case ValueKind.Boolean:
                return TryGetBoolean(out var b) ? b : null;
            case ValueKind.Float:
                return TryGetDouble(out var d) ? d : null;
            case ValueKind.Guid:
                return TryGetGuid(out var g) ? g : null;
            case ValueKind.ActivityId:
                return TryGetActivityId(out var a) ? a : null;
            case ValueKind.UnicodeString or ValueKind.AnsiString or ValueKind.Xml:
                return GetString(ansiEncoding);
            case ValueKind.Binary:
                return Bytes.ToArray();
            case ValueKind.Map or ValueKind.BitmaskMap:
                return TryGetMap(out var k, out var t) ? new XEventMapValue(k, t) : null;
            default:
                return null;
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private bool TryReadUnsigned(out ulong value)
    {
        var b = Bytes;
        switch (b.Length)
        {
            case 1:
                value = b[0];
                return true;
            case 2:
                value = BinaryPrimitives.ReadUInt16LittleEndian(b);
                return true;
            case 4:
                value = BinaryPrimitives.ReadUInt32LittleEndian(b);
                return true;
            case 8:
                value = BinaryPrimitives.ReadUInt64LittleEndian(b);
                return true;
            default:
                value = 0;
                return false;
        }
    }

    private bool TryReadSigned(out long value)
    {
        var b = Bytes;
        switch (b.Length)
        {
            case 1:
                value = (sbyte)b[0];
                return true;
            case 2:
                value = BinaryPrimitives.ReadInt16LittleEndian(b);
                return true;
            case 4:
                value = BinaryPrimitives.ReadInt32LittleEndian(b);
                return true;
            case 8:
                value = BinaryPrimitives.ReadInt64LittleEndian(b);
                return true;
            default:
                value = 0;
                return false;
        }
    }
}
