namespace LogFlushMonitor.XEvent;

/// <summary>Constants of the binary format (docs/xel-format.md).</summary>
public static class XelConstants
{
    /// <summary>The u32 that starts a file header (and a live-stream header row).</summary>
    public const uint FileMagic = 0xEFAB375A;

    /// <summary>The only format version seen on real files, and the only one accepted.</summary>
    public const int SupportedVersion = 10;

    /// <summary>Length of every buffer header.</summary>
    public const int BufferHeaderLength = 32;

    /// <summary>Size of an event record's fixed header.</summary>
    public const int RecordHeaderLength = 24;

    /// <summary>The record RID that terminates an event's action list.</summary>
    public const uint ActionListTerminator = 0x60000000;

    /// <summary>The low six bits of an event record's flags: its version (always <see cref="SupportedVersion"/>).</summary>
    public const uint RecordVersionMask = 0x3F;

    /// <summary>Flag bit of an event record meaning actions follow the payload.</summary>
    public const uint HasActionsFlag = 0x80000000;

    /// <summary>Length of the file header written by servers.</summary>
    public const int DefaultFileHeaderLength = 0x200;
}

/// <summary>Kinds of buffer, from the u16 at 0x0E of the buffer header.</summary>
public enum XEventBufferKind
{
    /// <summary>Event records.</summary>
    Events = 0,

    /// <summary>Package metadata.</summary>
    Metadata = 1,

    /// <summary>A file or stream header (recognised by the magic).</summary>
    Header = 2,

    /// <summary>An index buffer (skipped).</summary>
    Index = 3,

    /// <summary>Anything else (skipped).</summary>
    Unknown = -1,

    /// <summary>A zeroed header: end of data.</summary>
    End = -2,
}
