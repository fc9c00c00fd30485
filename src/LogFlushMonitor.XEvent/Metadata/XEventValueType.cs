namespace LogFlushMonitor.XEvent.Metadata;

/// <summary>How a value is stored and decoded (internal shape of <see cref="XEventValueType"/>).</summary>
internal enum ValueKind : byte
{
    Unknown,
    Signed,
    Unsigned,
    Boolean,
    Float,
    Guid,
    UnicodeString,
    AnsiString,
    Binary,
    Xml,
    ActivityId,
    Map,
    BitmaskMap,
}

/// <summary>The resolved type of a field or action: a base type, or a map stored as an integer.</summary>
public sealed class XEventValueType
{
    internal XEventValueType(uint rid, string name, XEventBaseType baseType, int size, XEventMap? map)
    {
        Rid = rid;
        Name = name;
        BaseType = baseType;
        Size = size;
        Map = map;
        Kind = Classify(baseType, map);
    }

    /// <summary>The type's RID as written in the metadata.</summary>
    public uint Rid { get; }

    /// <summary>Type or map name.</summary>
    public string Name { get; }

    /// <summary>Base type (for a map, the unsigned integer of its value size).</summary>
    public XEventBaseType BaseType { get; }

    /// <summary>Storage size: bytes, 0 for variable length, -1 when unknown.</summary>
    public int Size { get; }

    /// <summary>The map when the value is a map key, otherwise null.</summary>
    public XEventMap? Map { get; }

    internal ValueKind Kind { get; }

    internal static XEventValueType Unresolved(uint rid) =>
        new(rid, "unknown_0x" + rid.ToString("X8", System.Globalization.CultureInfo.InvariantCulture), XEventBaseType.Unknown, -1, null);

    internal static XEventValueType ForMap(XEventMap map)
    {
        var bt = map.ValueSize switch
        {
            1 => XEventBaseType.UInt8,
            2 => XEventBaseType.UInt16,
            4 => XEventBaseType.UInt32,
            8 => XEventBaseType.UInt64,
            _ => XEventBaseType.Unknown,
        };
        return new XEventValueType(map.Rid, map.Name, bt, bt == XEventBaseType.Unknown ? -1 : map.ValueSize, map);
    }

    private static ValueKind Classify(XEventBaseType t, XEventMap? map)
    {
        if (map is not null)
        {
            return t == XEventBaseType.Unknown ? ValueKind.Unknown : map.IsBitmask ? ValueKind.BitmaskMap : ValueKind.Map;
        }

        return t switch
        {
            XEventBaseType.Int8 or XEventBaseType.Int16 or XEventBaseType.Int32 or XEventBaseType.Int64 => ValueKind.Signed,
            XEventBaseType.UInt8 or XEventBaseType.UInt16 or XEventBaseType.UInt32 or XEventBaseType.UInt64
                or XEventBaseType.CpuCycle or XEventBaseType.FileTime or XEventBaseType.Pointer
                or XEventBaseType.GuidPointer => ValueKind.Unsigned,
            XEventBaseType.Boolean => ValueKind.Boolean,
            XEventBaseType.Float32 or XEventBaseType.Float64 => ValueKind.Float,
            XEventBaseType.Guid => ValueKind.Guid,
            XEventBaseType.UnicodeString => ValueKind.UnicodeString,
            XEventBaseType.AnsiString => ValueKind.AnsiString,
            XEventBaseType.BinaryData or XEventBaseType.Callstack => ValueKind.Binary,
            XEventBaseType.Xml => ValueKind.Xml,
            XEventBaseType.ActivityId or XEventBaseType.ActivityIdXfer => ValueKind.ActivityId,
            _ => ValueKind.Unknown,
        };
    }

    /// <inheritdoc />
    public override string ToString() => Name;
}
