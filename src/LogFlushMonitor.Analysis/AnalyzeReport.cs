using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Advice;
using LogFlushMonitor.XEvent.Binary;

namespace LogFlushMonitor.Analysis;

/// <summary>How reading one file ended.</summary>
internal enum FileStatus
{
    /// <summary>Read to the end.</summary>
    Ok,

    /// <summary>Malformed at file level (not a .xel file header); events before the problem were counted.</summary>
    Corrupt,

    /// <summary>Read to the end, but damaged ranges were skipped or events were malformed: some events are missing.</summary>
    Damaged,

    /// <summary>A format version this reader does not support.</summary>
    UnsupportedVersion,

    /// <summary>Could not be opened or read (I/O error, permissions).</summary>
    Unreadable,
}

/// <summary>What one input file held.</summary>
internal sealed record FileReport
{
    /// <summary>Path as expanded from the input.</summary>
    public required string Path { get; init; }

    /// <summary>File size when the run started.</summary>
    public required long Bytes { get; init; }

    /// <summary>How reading ended.</summary>
    public FileStatus Status { get; init; }

    /// <summary>The problem, when <see cref="Status"/> is not <see cref="FileStatus.Ok"/>.</summary>
    public string? Error { get; init; }

    /// <summary>Byte offset of the problem, when known.</summary>
    public long? ErrorOffset { get; init; }

    /// <summary>Events decoded.</summary>
    public long Events { get; init; }

    /// <summary>sqlserver.log_flush_start events.</summary>
    public long FlushStarts { get; init; }

    /// <summary>sqlserver.log_flush_complete events.</summary>
    public long FlushCompletes { get; init; }

    /// <summary>Completed WRITELOG waits (wait_completed, or wait_info end).</summary>
    public long WriteLogWaits { get; init; }

    /// <summary>Events missing according to event_sequence gaps.</summary>
    public long EventsLost { get; init; }

    /// <summary>Events of other kinds by full name.</summary>
    public IReadOnlyDictionary<string, long> OtherEvents { get; init; } = new Dictionary<string, long>();

    /// <summary>Completed waits of other types by wait type.</summary>
    public IReadOnlyDictionary<string, long> OtherWaits { get; init; } = new Dictionary<string, long>();

    /// <summary>Byte ranges the reader skipped as damaged, in file order.</summary>
    public IReadOnlyList<XelDamage> Damage { get; init; } = [];

    /// <summary>Bytes skipped as damaged.</summary>
    public long BytesSkipped => Damage.Sum(d => d.Length);

    /// <summary>How the data ended: zeros (preallocated space) or an incomplete last buffer (a file being written), whose events are not read.</summary>
    public XelTailKind Tail { get; init; }

    /// <summary>Where the tail starts.</summary>
    public long TailOffset { get; init; }

    /// <summary>Bytes in the tail.</summary>
    public long TailBytes { get; init; }

    /// <summary>Events read but skipped because a value was out of range (a damaged database id, an impossible timestamp).</summary>
    public long MalformedEvents { get; init; }

    /// <summary>The first malformed events, by offset.</summary>
    public IReadOnlyList<MalformedEvent> Malformed { get; init; } = [];

    /// <summary>True when the file holds any event the report is about.</summary>
    public bool HasRelevantEvents => FlushStarts + FlushCompletes + WriteLogWaits > 0;
}

/// <summary>Statistics of a set of durations, in milliseconds (percentiles within 10 %, see LatencyDistribution); null where not kept.</summary>
internal sealed record DurationStats(long Count, double MeanMs, double? P50Ms, double P95Ms, double? P99Ms, double MaxMs);

/// <summary>One application's, or one statement's, WRITELOG waits in a database.</summary>
/// <param name="Name">The client_app_name or the query hash (<c>0x</c> and 16 hex digits), or <see cref="ApplicationRanking.OtherName"/>.</param>
/// <param name="Waits">Its WRITELOG waits.</param>
/// <param name="Seconds">Seconds it waited on WRITELOG in all.</param>
/// <param name="Share">Its part (0..1) of the database's whole WRITELOG time (waits without the action included); 0 when that is 0.</param>
/// <param name="Text">A statement's text (its first 200 characters) when a recording's Query Store rows gave it; null otherwise.</param>
internal sealed record WriteLogShare(string Name, long Waits, double Seconds, double Share, string? Text = null);

/// <summary>One database's figures.</summary>
internal sealed record DatabaseReport
{
    /// <summary>The instance: <see cref="AnalyzeRunner.InstanceName"/> for .xel files, the recorded name for an NDJSON recording.</summary>
    public string Instance { get; init; } = AnalyzeRunner.InstanceName;

    /// <summary>Name from sqlserver.database_name, or "id:N".</summary>
    public required string Database { get; init; }

    /// <summary>database_id.</summary>
    public required int DatabaseId { get; init; }

    /// <summary>log_flush_start events.</summary>
    public long Flushes { get; init; }

    /// <summary>Sum of write_size.</summary>
    public long Bytes { get; init; }

    /// <summary>Flushes per write-size bucket, in the order of <see cref="WriteSizeBuckets.UpperBounds"/>.</summary>
    public required IReadOnlyList<long> Buckets { get; init; }

    /// <summary>Share of flushes of at most 512 bytes (0..1).</summary>
    public double SingleSectorShare { get; init; }

    /// <summary>The median write size: the upper bound (bytes) of the 512-byte slot the middle flush falls in; null without flushes.</summary>
    public long? WriteSizeP50 { get; init; }

    /// <summary>The 99th percentile write size, by slot as <see cref="WriteSizeP50"/>; 61,441 stands for "over 60 KB".</summary>
    public long? WriteSizeP99 { get; init; }

    /// <summary>Share of flushes of a full 60 KB block (0..1).</summary>
    public double FullBlockShare { get; init; }

    /// <summary>log_flush_complete durations, when any.</summary>
    public DurationStats? FlushDuration { get; init; }

    /// <summary>WRITELOG waits, when any.</summary>
    public DurationStats? WriteLog { get; init; }

    /// <summary>The 10 seconds with the most WRITELOG time waited, when any wait.</summary>
    public WriteLogWindow? WriteLogBusiestWindow { get; init; }

    /// <summary>
    /// WRITELOG time by client application: the top 5 by time waited, then other; empty when no wait carried the
    /// client_app_name action (<see cref="WriteLogWaitsWithApplication"/> is 0).
    /// </summary>
    public IReadOnlyList<WriteLogShare> WriteLogByApplication { get; init; } = [];

    /// <summary>WRITELOG waits that carried the client_app_name action (0: the session did not collect it).</summary>
    public long WriteLogWaitsWithApplication { get; init; }

    /// <summary>
    /// WRITELOG time by statement: the top 5 query hashes by time waited, then other, each with its text when the
    /// recording's Query Store rows named it; empty when no wait carried the query_hash action.
    /// </summary>
    public IReadOnlyList<WriteLogShare> WriteLogByStatement { get; init; } = [];

    /// <summary>WRITELOG waits that carried the query_hash action (0: the session did not collect it).</summary>
    public long WriteLogWaitsWithStatement { get; init; }

    /// <summary>First event time of this database.</summary>
    public DateTime? FirstEventUtc { get; init; }

    /// <summary>Last event time of this database.</summary>
    public DateTime? LastEventUtc { get; init; }

    /// <summary>Where commit time went, from the wait events (WRITELOG and the other parts' waits), when any waited.</summary>
    public CommitBudgetSnapshot? CommitBudget { get; init; }

    /// <summary>The flush latency held against the storage line (an .xel names no Azure tier: SQL Server's), when 100 flushes were timed.</summary>
    public StorageVerdict? Storage { get; init; }

    /// <summary>Advice, most important first.</summary>
    public required IReadOnlyList<AdviceItem> Advice { get; init; }

    /// <summary>Average flush size, null without flushes.</summary>
    public double? AverageFlushBytes => Flushes > 0 ? (double)Bytes / Flushes : null;

    /// <summary>Seconds between the first and last event.</summary>
    public double SpanSeconds => FirstEventUtc is { } f && LastEventUtc is { } l ? (l - f).TotalSeconds : 0;

    /// <summary>Flushes per second over the time range, null when the range is empty.</summary>
    public double? FlushesPerSecond => Flushes > 0 && SpanSeconds > 0 ? Flushes / SpanSeconds : null;
}

/// <summary>The result of one run: files, databases, how it ended.</summary>
internal sealed record AnalyzeReport(IReadOnlyList<FileReport> Files, IReadOnlyList<DatabaseReport> Databases, AnalyzeOutcome Outcome, TimeSpan Elapsed)
{
    /// <summary>Entries a folder or glob matched that are not regular files (named pipes, devices, directories): not read.</summary>
    public IReadOnlyList<XelSkippedEntry> Skipped { get; init; } = [];

    /// <summary>How flush latency was paired and in which unit unpaired completes were read (null without .xel input).</summary>
    public FlushPairingSummary? FlushPairing { get; init; }

    /// <summary>
    /// What the recordings' polled signals add up to (one table per signal that had rows, in registry order); empty for
    /// .xel files, which hold events only.
    /// </summary>
    public IReadOnlyList<Core.Signals.SignalTable> Signals { get; init; } = [];

    /// <summary>Bytes skipped as damaged in all files.</summary>
    public long TotalBytesSkipped => Files.Sum(f => f.BytesSkipped);

    /// <summary>Malformed events skipped in all files.</summary>
    public long TotalMalformed => Files.Sum(f => f.MalformedEvents);

    /// <summary>Bytes of all input files.</summary>
    public long TotalBytes => Files.Sum(f => f.Bytes);

    /// <summary>Events decoded in all files.</summary>
    public long TotalEvents => Files.Sum(f => f.Events);

    /// <summary>Events lost in all files.</summary>
    public long TotalLost => Saturating.Sum(Files.Select(f => f.EventsLost));

    /// <summary>True when any file holds a log flush or WRITELOG event.</summary>
    public bool HasRelevantEvents => Files.Any(f => f.HasRelevantEvents);
}
