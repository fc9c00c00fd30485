namespace LogFlushMonitor.Recording;

/// <summary>The <c>type</c> of an NDJSON line: which sample it holds.</summary>
internal enum NdjsonRecordType : byte
{
    None,
    Flush,
    FlushComplete,
    Wait,
    Counter,
    WaitStats,
    FileStats,
    ServerStart,
    PollCompleted,
    Loss,
    DatabaseName,
    FlushBucket,
    WriteLogWaiting,
    LogWriters,
    HadrReplica,
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
    Object = 1 << 7,
    Counter = 1 << 8,
    CounterInstance = 1 << 9,
    Value = 1 << 10,
    CntrType = 1 << 11,
    WaitingTasks = 1 << 12,
    WaitTime = 1 << 13,
    FileId = 1 << 14,
    Writes = 1 << 15,
    Bytes = 1 << 16,
    Stall = 1 << 17,
    StartTime = 1 << 18,
    Kind = 1 << 19,
    Count = 1 << 20,
    Sessions = 1 << 21,
    LongestWait = 1 << 22,
    App = 1 << 23,
    Transactions = 1 << 24,
    LogBytesUsed = 1 << 25,
    LogBytesReserved = 1 << 26,
    Ag = 1 << 27,
    Replica = 1 << 28,
    Role = 1 << 29,
    AvailabilityMode = 1 << 30,
}
