using LogFlushMonitor.Core.Pipeline;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.XEvent.Binary;
using LogFlushMonitor.XEvent.Metadata;

namespace LogFlushMonitor.Core.XEvents;

/// <summary>
/// Turns decoded Extended Events into samples: <c>sqlserver.log_flush_start</c> and <c>log_flush_complete</c>
/// into <see cref="LogFlushEvent"/>, <c>sqlos.wait_completed</c> and <c>wait_info</c> (end only) into
/// <see cref="WaitEvent"/>; every other event is counted by name and skipped. Gaps in
/// <c>package0.event_sequence</c> are reported as losses.
/// </summary>
/// <remarks>
/// <para>
/// A complete's <see cref="LogFlushEvent.Duration"/> is the time since its start (<see cref="FlushLatencyRule"/>:
/// paired on database_id and log_block_id); only a complete without a start falls back on its duration field, in the
/// unit the pairs settled (logged once through <see cref="FlushLatencyRule.OnSettled"/>), else the description's,
/// else milliseconds. The same rule, fields and units feed analyze's tally.
/// </para>
/// <para>Used by one reading thread (a file reader or a live stream's read loop). Handles are resolved once per
/// metadata change; per event nothing is allocated once a database's name has been seen.</para>
/// </remarks>
public sealed class XEventSampleMapper : IXEventHandler
{
    private readonly string _instance;
    private readonly IEventSink _sink;
    private readonly XEventUnits _units;
    private readonly FlushLatencyRule _latency;
    private readonly Dictionary<int, string> _names = [];
    private readonly Dictionary<string, long> _otherEvents = new(StringComparer.Ordinal);
    private readonly Dictionary<uint, string> _otherNames = [];
    private readonly ClientAppNames _apps = new();
    private SequenceGapTracker _gaps;
    private int _lastNameId = -1;
    private string? _lastName;
    private LogFlushFields _h;
    private ulong _highestClock;
    private XEventPackage? _highestPackage;
    private long _latestFlushTicks;

    /// <summary>Creates a mapper delivering samples of <paramref name="instance"/> to <paramref name="sink"/>.</summary>
    /// <param name="instance">Instance name of every sample.</param>
    /// <param name="sink">Where samples go.</param>
    /// <param name="units">Units of the duration fields when no description names one (the catalog's; default milliseconds).</param>
    /// <param name="pairs">The table of outstanding flush starts (default: a table of <see cref="FlushPairTable.DefaultCapacity"/> that other threads may read).</param>
    public XEventSampleMapper(string instance, IEventSink sink, XEventUnits? units = null, FlushPairTable? pairs = null)
    {
        _instance = instance;
        _sink = sink;
        _units = units ?? new XEventUnits();
        _latency = new FlushLatencyRule(pairs ?? new FlushPairTable(concurrentReaders: true), _units);
    }

    /// <summary>The flush-latency rule: the pair table (outstanding starts per database), the unit evidence and decision.</summary>
    public FlushLatencyRule Latency => _latency;

    /// <summary>
    /// The newest timestamp of a log_flush_start or log_flush_complete mapped so far (server time; default before any):
    /// the reader's clock for how long outstanding flushes have been waiting (<see cref="StreamClock"/>). The reading
    /// thread only.
    /// </summary>
    public DateTime LatestFlushEventUtc => new(_latestFlushTicks, DateTimeKind.Utc);

    /// <summary>log_flush_start events mapped.</summary>
    public long FlushStarts { get; private set; }

    /// <summary>log_flush_complete events mapped.</summary>
    public long FlushCompletes { get; private set; }

    /// <summary>Wait events mapped.</summary>
    public long Waits { get; private set; }

    /// <summary>The client_app_name texts seen (interned per reader: the per-event path allocates nothing).</summary>
    public ClientAppNames Applications => _apps;

    /// <summary>Events missing according to event_sequence gaps (exact: an event that arrived out of order is not missing).</summary>
    public long SequenceLost => _gaps.Missing;

    /// <summary>Events of other kinds, by full name (what a file holds when it holds none of ours).</summary>
    public IReadOnlyDictionary<string, long> OtherEvents => _otherEvents;

    /// <summary>
    /// event_sequence values rejected as damaged, each counted as malformed: a jump no session makes in the time since
    /// the highest number, or a number seen before.
    /// </summary>
    public long DamagedSequences { get; private set; }

    /// <summary>Forgets the last event_sequence: a new connection or file restarts the numbering.</summary>
    public void ResetSequence() => _gaps.Reset();

    /// <inheritdoc />
    public void OnMetadataChanged(XEventMetadata metadata)
    {
        _lastNameId = -1;
        _lastName = null;
        _otherNames.Clear();
        _h = LogFlushFields.Resolve(metadata, _units);
        _latency.OnMetadata(_h);
    }

    /// <inheritdoc />
    public void OnEvent(in XEventRecord record)
    {
        var handle = record.EventHandle;
        if (!handle.IsValid)
        {
            Count(record);
            return;
        }

        if (handle == _h.FlushStart)
        {
            var seq = Sequence(record);
            var dbId = DatabaseId(record, _h.StartDatabaseId);
            record.TryGetUInt64(_h.StartWriteSize, out var size);
            record.TryGetUInt64(_h.StartBlockId, out var block);
            var time = record.TimestampUtc;
            Latest(time);
            _latency.Start(_h, dbId, block, time.Ticks);
            FlushStarts++;
            _sink.OnLogFlush(new LogFlushEvent(_instance, dbId, Name(record, dbId), (uint)Math.Min(size, uint.MaxValue), block, time, null, seq));
        }
        else if (handle == _h.FlushComplete)
        {
            var seq = Sequence(record);
            var dbId = DatabaseId(record, _h.CompleteDatabaseId);
            record.TryGetUInt64(_h.CompleteBlockId, out var block);
            record.TryGetUInt64(_h.CompleteDuration, out var duration);
            var time = record.TimestampUtc;
            Latest(time);
            if (!_latency.TryPair(_h, dbId, block, time.Ticks, duration, out var latency))
            {
                latency = _latency.Fallback(duration);
            }

            FlushCompletes++;
            _sink.OnLogFlush(new LogFlushEvent(_instance, dbId, Name(record, dbId), 0, block, time, TimeSpan.FromTicks(latency), seq));
        }
        else if (handle == _h.WaitCompleted)
        {
            MapWait(record, _h.WaitCompletedType, _h.WaitCompletedDuration, _h.WaitCompletedUnit);
        }
        else if (handle == _h.WaitInfo)
        {
            if (!_h.IsWaitEnd(record))
            {
                Sequence(record);
                return;
            }

            MapWait(record, _h.WaitInfoType, _h.WaitInfoDuration, _h.WaitInfoUnit);
        }
        else
        {
            Sequence(record);
            Count(record);
        }
    }

    private void Latest(DateTime time)
    {
        if (time.Ticks > _latestFlushTicks)
        {
            _latestFlushTicks = time.Ticks;
        }
    }

    private void MapWait(in XEventRecord record, FieldHandle typeField, FieldHandle durationField, DurationUnit unit)
    {
        var seq = Sequence(record);
        if (!record.TryGetMap(typeField, out _, out var waitType))
        {
            return;
        }

        record.TryGetUInt64(durationField, out var duration);
        var dbId = record.TryGetUInt64(_h.DatabaseIdAction, out var id) ? (int)id : 0;
        var app = _h.ClientAppNameAction.IsValid && record.TryGetAction(_h.ClientAppNameAction, out var appValue) ? _apps.Intern(appValue) : null;
        ulong? statement = _h.TryGetQueryHash(record, out var hash) ? hash : null;
        Waits++;
        _sink.OnWait(new WaitEvent(_instance, waitType, TimeSpan.FromTicks(DurationUnits.ToTicks(duration, unit)), dbId, Name(record, dbId), record.TimestampUtc, seq, app, statement));
    }

    private long Sequence(in XEventRecord record)
    {
        if (!record.TryGetInt64(_h.SequenceAction, out var seq))
        {
            return 0;
        }

        if (_gaps.JumpsFarAhead(seq) && _gaps.IsImplausible(seq, SecondsSinceHighest(record)))
        {
            // A damaged value (one flipped bit), not events the session lost: counted as one malformed record.
            DamagedSequences++;
            _sink.OnSourceLoss(_instance, LossKind.Malformed, 1);
            return 0;
        }

        var duplicates = _gaps.Duplicates;
        _gaps.Observe(seq, _instance, _sink);
        if (_gaps.Duplicates != duplicates)
        {
            DamagedSequences++;
            _sink.OnSourceLoss(_instance, LossKind.Malformed, 1);
        }
        else if (seq == _gaps.Highest)
        {
            _highestClock = record.Ticks;
            _highestPackage = record.Definition?.Package;
        }

        return seq;
    }

    private double SecondsSinceHighest(in XEventRecord record) =>
        _highestPackage is { } then && record.Definition?.Package is { } now
            && then.TryTicksToFileTime(_highestClock, out var from) && now.TryTicksToFileTime(record.Ticks, out var to)
            ? Math.Max(0, to - from) / 1e7
            : 0;

    private int DatabaseId(in XEventRecord record, FieldHandle field) =>
        record.TryGetUInt64(field, out var id) || record.TryGetUInt64(_h.DatabaseIdAction, out id) ? (int)Math.Min(id, int.MaxValue) : 0;

    /// <summary>
    /// The database_name action, read once per database id: names do not change under a running session (a
    /// rename shows up through the pollers), so steady state neither scans the actions for it nor allocates.
    /// </summary>
    private string? Name(in XEventRecord record, int databaseId)
    {
        if (_lastNameId == databaseId && _lastName is not null)
        {
            return _lastName;
        }

        if (!_names.TryGetValue(databaseId, out var name)
            && _h.DatabaseNameAction.IsValid
            && record.TryGetAction(_h.DatabaseNameAction, out var value)
            && value.GetString() is { } decoded)
        {
            name = decoded;
            _names[databaseId] = name;
        }

        _lastNameId = databaseId;
        _lastName = name;
        return name;
    }

    private void Count(in XEventRecord record)
    {
        if (!_otherNames.TryGetValue(record.EventRid, out var key))
        {
            key = record.Definition is { } d ? d.Package.Name + "." + d.Name : "unknown(" + record.EventRid.ToString(System.Globalization.CultureInfo.InvariantCulture) + ")";
            _otherNames[record.EventRid] = key;
        }

        _otherEvents[key] = _otherEvents.GetValueOrDefault(key) + 1;
    }
}
