using LogFlushMonitor.XEvent.Metadata;

namespace LogFlushMonitor.XEvent.TestSupport;

/// <summary>Options of the test-only <see cref="XelWriter"/>.</summary>
public sealed record XelWriterOptions
{
    /// <summary>Capacity of an event buffer; events go to a new buffer when the next one would not fit. Multiple of 512.</summary>
    public int BufferSize { get; init; } = 64 * 1024;

    /// <summary>Base type of the <c>database_id</c> fields: <see cref="XEventBaseType.UInt16"/> or <see cref="XEventBaseType.UInt32"/>.</summary>
    public XEventBaseType DatabaseIdType { get; init; } = XEventBaseType.UInt32;

    /// <summary>Clock ticks per second declared by every package.</summary>
    public ulong TickFrequency { get; init; } = 10_000_000;

    /// <summary>Re-send the metadata buffer after this many event buffers (0 = never).</summary>
    public int ResendMetadataEveryBuffers { get; init; }

    /// <summary>Emit package0 in one metadata buffer and the rest in a second one.</summary>
    public bool SplitMetadataBuffers { get; init; }

    /// <summary>Declare <c>log_flush_complete</c> in a second package also named sqlserver (index 3), as servers do.</summary>
    public bool RepeatSqlServerPackage { get; init; }

    /// <summary>Fill slack, padding and unused flag bits with garbage, as real files sometimes do.</summary>
    public bool Garbage { get; init; } = true;

    /// <summary>
    /// The metadata description of <c>log_flush_complete.duration</c>. Milliseconds by default, the unit the public
    /// tools read it in (docs/sqlserver.md); <see cref="XelWriter.NoUnitDescription"/> names no unit, as the catalog
    /// of some servers may not.
    /// </summary>
    public string FlushDurationDescription { get; init; } = XelWriter.MillisecondsDescription;

    /// <summary>The metadata description of the <c>duration</c> fields of <c>wait_completed</c> and <c>wait_info</c> (milliseconds by default).</summary>
    public string WaitDurationDescription { get; init; } = XelWriter.MillisecondsDescription;

    /// <summary>The <c>wait_types</c> map (key to name). Defaults to <see cref="XelWriter.DefaultWaitTypes"/>.</summary>
    public IReadOnlyDictionary<uint, string>? WaitTypes { get; init; }
}

/// <summary>Values of the writer's probe event, which has a field of every base type.</summary>
public sealed record TypesProbeValues
{
    /// <summary>int8 field.</summary>
    public sbyte Int8 { get; init; }
    /// <summary>int16 field.</summary>
    public short Int16 { get; init; }
    /// <summary>int32 field.</summary>
    public int Int32 { get; init; }
    /// <summary>int64 field.</summary>
    public long Int64 { get; init; }
    /// <summary>uint8 field.</summary>
    public byte UInt8 { get; init; }
    /// <summary>uint16 field.</summary>
    public ushort UInt16 { get; init; }
    /// <summary>uint32 field.</summary>
    public uint UInt32 { get; init; }
    /// <summary>uint64 field.</summary>
    public ulong UInt64 { get; init; }
    /// <summary>float32 field.</summary>
    public float Float32 { get; init; }
    /// <summary>float64 field.</summary>
    public double Float64 { get; init; }
    /// <summary>boolean field.</summary>
    public bool Boolean { get; init; }
    /// <summary>ptr field.</summary>
    public ulong Pointer { get; init; }
    /// <summary>activity_id field.</summary>
    public Guid ActivityGuid { get; init; }
    /// <summary>activity_id sequence.</summary>
    public uint ActivitySequence { get; init; }
    /// <summary>Key of the value map <c>probe_colors</c> (1 red, 2 green, 3 blue).</summary>
    public ushort Color { get; init; }
    /// <summary>Bits of the bitmask map <c>probe_flags</c> (1 read, 2 write, 4 execute).</summary>
    public uint Flags { get; init; }
    /// <summary>A field of a type unknown to readers (base id 99, 4 bytes).</summary>
    public uint UnknownFixed { get; init; }
    /// <summary>A uint32 field after the unknown one.</summary>
    public uint AfterUnknown { get; init; }
    /// <summary>unicode_string field.</summary>
    public string Text { get; init; } = string.Empty;
    /// <summary>ansi_string field (Latin-1).</summary>
    public string Ansi { get; init; } = string.Empty;
    /// <summary>guid field.</summary>
    public Guid Guid { get; init; }
    /// <summary>binary_data field.</summary>
    public byte[] Binary { get; init; } = [];
    /// <summary>xml field.</summary>
    public string Xml { get; init; } = string.Empty;
    /// <summary>A variable field of a type unknown to readers (base id 98).</summary>
    public byte[] UnknownVariable { get; init; } = [];
}
