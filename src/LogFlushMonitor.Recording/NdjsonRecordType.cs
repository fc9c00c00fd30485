namespace LogFlushMonitor.Recording;

/// <summary>The <c>type</c> of an NDJSON line: which sample it holds.</summary>
internal enum NdjsonRecordType : byte
{
    None,
    Flush,
    FlushComplete,
    Wait,
    Loss,

    /// <summary>A signal's row or the end of its poll (a <c>poll_completed</c> line): read by the signal's own contract.</summary>
    Signal,
}

/// <summary>The fields of an NDJSON line, as flags: which ones a line had, which ones its type requires.</summary>
[Flags]
internal enum NdjsonField
{
    None = 0,
    T = 1 << 0,
    Instance = 1 << 1,
    DbId = 1 << 2,
    Db = 1 << 3,
    WriteSize = 1 << 4,
    Duration = 1 << 5,
    WaitType = 1 << 6,
    Kind = 1 << 7,
    Count = 1 << 8,
    App = 1 << 9,
    QueryHash = 1 << 10,
}
