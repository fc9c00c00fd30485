using System.Globalization;
using System.Runtime.CompilerServices;
using LogFlushMonitor.Core.XEvents;
using LogFlushMonitor.XEvent.Binary;
using LogFlushMonitor.XEvent.Metadata;

namespace LogFlushMonitor.Analysis;

/// <summary>
/// The lean log-flush mapper of <c>analyze</c>: reads only what the report needs (log_flush_start database_id,
/// write_size and log_block_id; log_flush_complete database_id, log_block_id and duration; wait_completed and wait_info wait_type, opcode and
/// duration; the database_id, database_name and client_app_name actions; the timestamp) straight into a <see cref="LogFlushTally"/>,
/// and counts per file (by <see cref="XEventRecord.SourceIndex"/>) what each file held. One instance per reading
/// thread; event_sequence gaps are counted by the reader. An event whose database id is out of range or whose
/// timestamp cannot be computed is counted as malformed, with its offset, and skipped.
/// </summary>
/// <remarks>
/// <para>The fields, their units and the flush-latency rule are the service's (<see cref="LogFlushFields"/>,
/// <see cref="FlushLatencyRule"/>): latency is the complete's time minus its start's. A worker sees only some buffers,
/// so a complete whose start it has not seen is kept (<see cref="PendingCompletes"/>) and starts its table lets go of are
/// spilled; <see cref="FlushPairing.Finish"/> pairs them across workers after reading, and settles the duration field's
/// unit for the completes that have no start at all over every worker's pairs. The figures are the same however the
/// buffers were split.</para>
/// <para>Per event it allocates nothing once a database's name, an application's name and a file's other event kinds have been seen.</para>
/// </remarks>
internal sealed class XelTallyMapper
{
    private const int TickEvents = 8192;

    private readonly InstanceTally _instance;
    private readonly TimeSeriesRecorder? _series;
    private readonly XEventUnits _units = new();
    private readonly List<PendingComplete> _pending = [];
    private readonly Dictionary<uint, string> _otherNames = [];
    private readonly ClientAppNames _apps = new();
    private FileTally[] _files = [];
    private long _fileBase;
    private LogFlushFields _h;
    private string? _lastWaitType;
    private bool _lastIsWriteLog;
    private Core.Aggregation.CommitPart? _lastPart;
    private int _tick = TickEvents;

    /// <summary>Creates a mapper counting into <paramref name="tally"/> (and, for the HTML report, <paramref name="series"/>).</summary>
    public XelTallyMapper(LogFlushTally tally, TimeSeriesRecorder? series = null)
    {
        Tally = tally;
        _instance = tally.Instance(AnalyzeRunner.InstanceName);
        _series = series;
        Latency = new FlushLatencyRule(new FlushPairTable(FlushPairing.TableCapacity, spillCapacity: FlushPairing.SpillCapacity), _units, settleAsItGoes: false);
    }

    /// <summary>This worker's pairing: its table of outstanding starts and its unit evidence.</summary>
    public FlushLatencyRule Latency { get; }

    /// <summary>The part of the events' time that counts (compare's windows); events outside are read and not counted.</summary>
    public TimeWindow Window { get; init; } = TimeWindow.All;

    /// <summary>Completes whose start this worker had not seen, for <see cref="FlushPairing.Finish"/>.</summary>
    public IReadOnlyList<PendingComplete> PendingCompletes => _pending;

    /// <summary>The databases counted so far.</summary>
    public LogFlushTally Tally { get; }

    /// <summary>The time series, when kept.</summary>
    public TimeSeriesRecorder? Series => _series;

    /// <summary>Per file of the current set, in the order the reader was given them.</summary>
    public IReadOnlyList<FileTally> Files => _files;

    /// <summary>Called every few thousand events on the reading thread (the sequential reader's progress).</summary>
    public Action? OnTick { get; set; }

    /// <summary>
    /// Starts a set of <paramref name="files"/> files; <paramref name="firstOrdinal"/> is the run-wide number of the
    /// first, so "the first name in reading order" holds across sets.
    /// </summary>
    public void BeginSet(int files, long firstOrdinal)
    {
        _files = new FileTally[files];
        for (var i = 0; i < files; i++)
        {
            _files[i] = new FileTally();
        }

        _fileBase = firstOrdinal;
    }

    /// <summary>Resolves the handles of the events and fields read.</summary>
    public void OnMetadataChanged(XEventMetadata metadata)
    {
        _otherNames.Clear();
        _lastWaitType = null;
        _h = LogFlushFields.Resolve(metadata, _units);
        Latency.OnMetadata(_h);
    }

    /// <summary>Counts one event.</summary>
    /// <remarks>
    /// Each kind of event has a method of its own, and the rare paths (a malformed event, a name to read, an event of
    /// another kind) are not inlined into them: the frame each event pays for stays small (a single method with every
    /// path inlined zeroed a 336-byte frame per event).
    /// </remarks>
    public void OnEvent(in XEventRecord record)
    {
        if (--_tick == 0)
        {
            _tick = TickEvents;
            OnTick?.Invoke();
        }

        var handle = record.EventHandle;
        var file = _files[record.SourceIndex];
        if (handle == _h.FlushStart && handle.IsValid)
        {
            FlushStart(record, file);
        }
        else if (handle == _h.FlushComplete && handle.IsValid)
        {
            FlushComplete(record, file);
        }
        else if (handle == _h.WaitCompleted && handle.IsValid)
        {
            Wait(record, file, _h.WaitCompletedType, _h.WaitCompletedDuration, _h.WaitCompletedUnit, "wait_completed");
        }
        else if (handle == _h.WaitInfo && handle.IsValid)
        {
            if (_h.IsWaitEnd(record))
            {
                Wait(record, file, _h.WaitInfoType, _h.WaitInfoDuration, _h.WaitInfoUnit, "wait_info");
            }
        }
        else
        {
            CountOther(record, file);
        }
    }

    private void FlushStart(in XEventRecord record, FileTally file)
    {
        if (!TryDatabase(record, _h.StartDatabaseId, "log_flush_start", file, out var id) || !TryTimestamp(record, "log_flush_start", file, out var ticks))
        {
            return;
        }

        record.TryGetUInt64(_h.StartWriteSize, out var size);
        record.TryGetUInt64(_h.StartBlockId, out var block);
        Latency.Start(_h, id, block, ticks);
        if (!Window.Contains(ticks))
        {
            return;
        }

        var db = Database(record, id);
        db.Touch(ticks);
        db.Sizes.Add((uint)Math.Min(size, uint.MaxValue));
        file.FlushStarts++;
        _series?.Flush(_instance.Name, id, new DateTime(ticks, DateTimeKind.Utc));
    }

    private void FlushComplete(in XEventRecord record, FileTally file)
    {
        if (!TryDatabase(record, _h.CompleteDatabaseId, "log_flush_complete", file, out var id) || !TryTimestamp(record, "log_flush_complete", file, out var ticks))
        {
            return;
        }

        record.TryGetUInt64(_h.CompleteDuration, out var duration);
        record.TryGetUInt64(_h.CompleteBlockId, out var block);
        if (!Window.Contains(ticks))
        {
            // Still paired, so its start leaves the table: only the counting is skipped.
            Latency.TryPair(_h, id, block, ticks, duration, out _);
            return;
        }

        var db = Database(record, id);
        db.Touch(ticks);
        db.Completed(ticks);
        if (Latency.TryPair(_h, id, block, ticks, duration, out var latency))
        {
            db.FlushDurations.AddTicks(latency);
        }
        else if (!Unpaired(record, file, db, id, block, ticks, duration))
        {
            return;
        }

        file.FlushCompletes++;
    }

    /// <summary>A complete without its start here: kept for the pairing across workers, or (when too many are kept) counted by its duration field now.</summary>
    /// <remarks>
    /// Its duration field is judged in milliseconds, the larger of the two units it may be in (the unit is settled only
    /// at the end): a value that would last beyond its buffer's events (<see cref="XelClock"/>) is malformed.
    /// </remarks>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private bool Unpaired(in XEventRecord record, FileTally file, DatabaseTally db, int id, ulong block, long ticks, ulong duration)
    {
        var longest = DurationUnits.ToTicks(duration, DurationUnit.Milliseconds);
        if (record.IsDurationOutOfLine(ticks, longest))
        {
            ImpossibleDuration(record, "log_flush_complete", file, duration, "(read as milliseconds, the longer of its two possible units)", longest);
            return false;
        }

        if (_h.CanPair && _pending.Count < FlushPairing.PendingCapacity)
        {
            _pending.Add(new PendingComplete(id, block, ticks, duration));
        }
        else
        {
            db.AddUnpairedDuration(duration);
        }

        return true;
    }

    private void Wait(in XEventRecord record, FileTally file, FieldHandle typeField, FieldHandle durationField, DurationUnit unit, string eventName)
    {
        if (!record.TryGetMap(typeField, out _, out var waitType))
        {
            return;
        }

        if (!ReferenceEquals(waitType, _lastWaitType))
        {
            _lastWaitType = waitType;
            _lastIsWriteLog = waitType == AnalyzeSink.WriteLog;
            _lastPart = Core.Aggregation.CommitParts.OfWaitType(waitType);
        }

        var hasId = record.TryGetUInt64(_h.DatabaseIdAction, out var rawId);
        if (!_lastIsWriteLog)
        {
            file.OtherWaits[waitType] = file.OtherWaits.GetValueOrDefault(waitType) + 1;

            // Only the name is learned from other waits (as the live mapper does): it names the database if it flushes.
            if (hasId && rawId <= LogFlushTally.MaxDatabaseId)
            {
                var other = Database(record, (int)rawId);
                if (_lastPart is { } part)
                {
                    CommitPartWait(record, other, part, durationField, unit);
                }
            }

            return;
        }

        if (hasId && rawId > LogFlushTally.MaxDatabaseId)
        {
            Malformed(record, file, eventName, "sqlserver.database_id action", (long)Math.Min(rawId, long.MaxValue));
            return;
        }

        if (!TryTimestamp(record, eventName, file, out var ticks) || !Window.Contains(ticks))
        {
            return;
        }

        record.TryGetUInt64(durationField, out var duration);
        var waited = DurationUnits.ToTicks(duration, unit);
        if (record.IsDurationOutOfLine(ticks, waited))
        {
            ImpossibleDuration(record, eventName, file, duration, DurationUnits.Name(unit), waited);
            return;
        }

        var id = (int)rawId;
        var db = Database(record, id);
        var app = _h.ClientAppNameAction.IsValid ? ApplicationOf(record) : null;
        ulong? statement = _h.TryGetQueryHash(record, out var hash) ? hash : null;
        db.Touch(ticks);
        db.AddWriteLog(ticks, waited, app, statement);
        file.WriteLogWaits++;
        _series?.WriteLog(_instance.Name, id, new DateTime(ticks, DateTimeKind.Utc), TimeSpan.FromTicks(waited), app);
    }

    /// <summary>
    /// A wait of the commit budget other than WRITELOG (HADR_SYNC_COMMIT, LOGBUFFER, the log-rate governor's forms): its
    /// time added to the database's part. A wait without a readable timestamp or with a duration out of line with its
    /// buffer is left out (counted as another wait only, as before: these waits are not the report's subject).
    /// </summary>
    private static void CommitPartWait(in XEventRecord record, DatabaseTally db, Core.Aggregation.CommitPart part, FieldHandle durationField, DurationUnit unit)
    {
        if (!record.TryGetTimestampTicks(out var ticks) || record.IsTimeOutOfLine(ticks))
        {
            return;
        }

        record.TryGetUInt64(durationField, out var duration);
        var waited = DurationUnits.ToTicks(duration, unit);
        if (!record.IsDurationOutOfLine(ticks, waited))
        {
            db.AddCommitPart(part, waited);
        }
    }

    /// <summary>
    /// The wait's client_app_name, interned (this allocates only on a name's first sight); null when the event does not
    /// carry the action; empty (other) when its value is not text, since the wait did carry it.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private string? ApplicationOf(in XEventRecord record) =>
        record.TryGetAction(_h.ClientAppNameAction, out var value) ? _apps.Intern(value) ?? ClientAppNames.Unlisted : null;

    /// <summary>The database id from the event's field, else the database_id action, else 0; false (counted as malformed) when out of range.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private bool TryDatabase(in XEventRecord record, FieldHandle field, string eventName, FileTally file, out int id)
    {
        if (record.TryGetUInt64(field, out var u) && u <= LogFlushTally.MaxDatabaseId)
        {
            id = (int)u;
            return true;
        }

        return TryDatabaseSlow(record, field, eventName, file, out id);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private bool TryDatabaseSlow(in XEventRecord record, FieldHandle field, string eventName, FileTally file, out int id)
    {
        long raw;
        string source;
        if (record.TryGetUInt64(field, out var u))
        {
            (raw, source) = ((long)Math.Min(u, long.MaxValue), "database_id");
        }
        else if (record.TryGetInt64(field, out var signed))
        {
            (raw, source) = (signed, "database_id");
        }
        else if (record.TryGetUInt64(_h.DatabaseIdAction, out u))
        {
            (raw, source) = ((long)Math.Min(u, long.MaxValue), "sqlserver.database_id action");
        }
        else
        {
            (raw, source) = (0, "");
        }

        if (raw is >= 0 and <= LogFlushTally.MaxDatabaseId)
        {
            id = (int)raw;
            return true;
        }

        id = 0;
        Malformed(record, file, eventName, source, raw);
        return false;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static bool TryTimestamp(in XEventRecord record, string eventName, FileTally file, out long ticks)
    {
        if (record.TryGetTimestampTicks(out ticks) && !record.IsTimeOutOfLine(ticks))
        {
            return true;
        }

        NoTimestamp(record, eventName, file);
        return false;
    }

    /// <summary>A duration its buffer's events say the event cannot hold (<see cref="XelClock"/>): counted as malformed.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void ImpossibleDuration(in XEventRecord record, string eventName, FileTally file, ulong raw, string unit, long ticks) =>
        file.AddMalformed(record.Position, file.KeepsMalformedAt(record.Position)
            ? string.Create(CultureInfo.InvariantCulture,
                $"{eventName} duration {raw} {unit} ({Days(ticks)}) reaches back more than {XelClock.Tolerance.TotalDays:0} day before the events of its buffer: a damaged value")
            : null);

    private static string Days(long ticks) => ticks >= TimeSpan.TicksPerDay * 2
        ? string.Create(CultureInfo.InvariantCulture, $"{ticks / (double)TimeSpan.TicksPerDay:N0} days")
        : string.Create(CultureInfo.InvariantCulture, $"{ticks / (double)TimeSpan.TicksPerHour:N1} hours");

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void NoTimestamp(in XEventRecord record, string eventName, FileTally file) =>
        file.AddMalformed(record.Position, file.KeepsMalformedAt(record.Position) ? TimestampProblem(record, eventName) : null);

    private static string TimestampProblem(in XEventRecord record, string eventName)
    {
        if (record.TryGetTimestampTicks(out var ticks) && record.TryGetBufferTime(out var median))
        {
            var at = new DateTime(ticks, DateTimeKind.Utc);
            var reference = new DateTime(median, DateTimeKind.Utc);
            return string.Create(CultureInfo.InvariantCulture,
                $"{eventName} timestamp {at:yyyy-MM-dd HH:mm:ss} UTC lies {Days(Math.Abs(ticks - median))} from the events of its buffer (median {reference:yyyy-MM-dd HH:mm:ss} UTC), more than {XelClock.Tolerance.TotalDays:0} day: a damaged clock value (clock ticks {record.Ticks})");
        }

        return string.Create(CultureInfo.InvariantCulture, $"{eventName} has no valid timestamp (clock ticks {record.Ticks})");
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Malformed(in XEventRecord record, FileTally file, string eventName, string source, long value) =>
        file.AddMalformed(record.Position, file.KeepsMalformedAt(record.Position)
            ? string.Create(CultureInfo.InvariantCulture, $"{eventName} {source} {value} is out of range (0 to {LogFlushTally.MaxDatabaseId})")
            : null);

    /// <summary>The database's tally; reads the database_name action only while it could still name the database earlier.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private DatabaseTally Database(in XEventRecord record, int id)
    {
        var db = _instance.Database(id);
        var ordinal = _fileBase + record.SourceIndex;
        if (db.WantsNameAt(ordinal, record.Position) && _h.DatabaseNameAction.IsValid)
        {
            OfferName(record, db, ordinal);
        }

        return db;
    }

    /// <summary>Reads the database_name action; decoded once per database and thread in steady state (a worker's buffers come in file order).</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void OfferName(in XEventRecord record, DatabaseTally db, long ordinal)
    {
        if (record.TryGetAction(_h.DatabaseNameAction, out var value) && value.GetString() is { } name)
        {
            db.OfferName(name, ordinal, record.Position);
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void CountOther(in XEventRecord record, FileTally file)
    {
        if (!_otherNames.TryGetValue(record.EventRid, out var key))
        {
            key = record.Definition is { } d ? d.Package.Name + "." + d.Name : "unknown(" + record.EventRid.ToString(CultureInfo.InvariantCulture) + ")";
            _otherNames[record.EventRid] = key;
        }

        file.OtherEvents[key] = file.OtherEvents.GetValueOrDefault(key) + 1;
    }
}

/// <summary>A log_flush_complete a worker could not pair: database, log block, time (UTC ticks) and raw duration field.</summary>
internal readonly record struct PendingComplete(int DatabaseId, ulong LogBlockId, long Ticks, ulong Duration);

/// <summary>The reader's handler: a struct, so the reader's generic loop calls the mapper directly.</summary>
internal readonly struct XelTallyHandler(XelTallyMapper mapper) : IXEventHandler
{
    /// <summary>The mapper this handler feeds.</summary>
    public XelTallyMapper Mapper { get; } = mapper;

    /// <inheritdoc />
    public void OnMetadataChanged(XEventMetadata metadata) => Mapper.OnMetadataChanged(metadata);

    /// <inheritdoc />
    public void OnEvent(in XEventRecord record) => Mapper.OnEvent(record);
}
