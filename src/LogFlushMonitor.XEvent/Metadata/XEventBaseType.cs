namespace LogFlushMonitor.XEvent.Metadata;

/// <summary>The base types of Extended Events values, by their id in the metadata.</summary>
public enum XEventBaseType
{
    /// <summary>Not known to this reader.</summary>
    Unknown = 0,
    /// <summary>Signed 8-bit integer (from sources only).</summary>
    Int8 = 1,
    /// <summary>Signed 16-bit integer.</summary>
    Int16 = 2,
    /// <summary>Signed 32-bit integer.</summary>
    Int32 = 3,
    /// <summary>Signed 64-bit integer.</summary>
    Int64 = 4,
    /// <summary>Unsigned 8-bit integer.</summary>
    UInt8 = 5,
    /// <summary>Unsigned 16-bit integer.</summary>
    UInt16 = 6,
    /// <summary>Unsigned 32-bit integer.</summary>
    UInt32 = 7,
    /// <summary>Unsigned 64-bit integer.</summary>
    UInt64 = 8,
    /// <summary>32-bit float (from sources only).</summary>
    Float32 = 9,
    /// <summary>64-bit float (from sources only).</summary>
    Float64 = 10,
    /// <summary>CPU cycle count, u64 (from sources only).</summary>
    CpuCycle = 11,
    /// <summary>FILETIME, u64 (from sources only).</summary>
    FileTime = 12,
    /// <summary>Pointer, 8 bytes.</summary>
    Pointer = 13,
    /// <summary>Pointer to a GUID, 8 bytes.</summary>
    GuidPointer = 16,
    /// <summary>ANSI string, variable (code page configurable).</summary>
    AnsiString = 19,
    /// <summary>UTF-16LE string without terminator, variable.</summary>
    UnicodeString = 20,
    /// <summary>GUID, variable slot holding 16 bytes.</summary>
    Guid = 21,
    /// <summary>Binary data, variable.</summary>
    BinaryData = 22,
    /// <summary>Call stack, variable.</summary>
    Callstack = 23,
    /// <summary>Activity id: GUID + u32 sequence (20 bytes).</summary>
    ActivityId = 24,
    /// <summary>Activity id transfer: GUID + u32 (20 bytes).</summary>
    ActivityIdXfer = 25,
    /// <summary>Boolean, 1 byte.</summary>
    Boolean = 26,
    /// <summary>XML text in UTF-16LE, variable.</summary>
    Xml = 27,
}

/// <summary>Facts about base types that do not depend on metadata.</summary>
public static class XEventBaseTypes
{
    /// <summary>Storage size of a base type: bytes, 0 for variable length, -1 when unknown.</summary>
    public static int SizeOf(XEventBaseType type) => type switch
    {
        XEventBaseType.Int8 or XEventBaseType.UInt8 or XEventBaseType.Boolean => 1,
        XEventBaseType.Int16 or XEventBaseType.UInt16 => 2,
        XEventBaseType.Int32 or XEventBaseType.UInt32 or XEventBaseType.Float32 => 4,
        XEventBaseType.Int64 or XEventBaseType.UInt64 or XEventBaseType.Float64 or XEventBaseType.CpuCycle
            or XEventBaseType.FileTime or XEventBaseType.Pointer or XEventBaseType.GuidPointer => 8,
        XEventBaseType.ActivityId or XEventBaseType.ActivityIdXfer => 20,
        XEventBaseType.AnsiString or XEventBaseType.UnicodeString or XEventBaseType.Guid or XEventBaseType.BinaryData
            or XEventBaseType.Callstack or XEventBaseType.Xml => 0,
        _ => -1,
    };

    /// <summary>Maps a metadata type name (as in XML <c>&lt;type name=".."/&gt;</c>) to a base type.</summary>
    public static XEventBaseType FromName(string? name) => name switch
    {
        "int8" => XEventBaseType.Int8,
        "int16" => XEventBaseType.Int16,
        "int32" => XEventBaseType.Int32,
        "int64" => XEventBaseType.Int64,
        "uint8" => XEventBaseType.UInt8,
        "uint16" => XEventBaseType.UInt16,
        "uint32" => XEventBaseType.UInt32,
        "uint64" => XEventBaseType.UInt64,
        "float32" => XEventBaseType.Float32,
        "float64" => XEventBaseType.Float64,
        "cpu_cycle" => XEventBaseType.CpuCycle,
        "filetime" => XEventBaseType.FileTime,
        "ptr" => XEventBaseType.Pointer,
        "guid_ptr" => XEventBaseType.GuidPointer,
        "ansi_string" => XEventBaseType.AnsiString,
        "unicode_string" => XEventBaseType.UnicodeString,
        "guid" => XEventBaseType.Guid,
        "binary_data" => XEventBaseType.BinaryData,
        "callstack" => XEventBaseType.Callstack,
        "activity_id" => XEventBaseType.ActivityId,
        "activity_id_xfer" => XEventBaseType.ActivityIdXfer,
        "boolean" => XEventBaseType.Boolean,
        "xml" => XEventBaseType.Xml,
        _ => XEventBaseType.Unknown,
    };
}
