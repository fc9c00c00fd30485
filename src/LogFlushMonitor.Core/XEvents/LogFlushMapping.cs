using LogFlushMonitor.XEvent.Binary;
using LogFlushMonitor.XEvent.Metadata;

namespace LogFlushMonitor.Core.XEvents;

/// <summary>
/// The events, fields and actions both mappers read (the service's <see cref="XEventSampleMapper"/> and analyze's
/// lean tally), resolved once per metadata change, with the unit of each duration field: the one the metadata's own
/// field description names, else the one given (the live source's catalog, else milliseconds).
/// </summary>
public struct LogFlushFields
{
    /// <summary>sqlserver.log_flush_start.</summary>
    public EventHandle FlushStart;

    /// <summary>sqlserver.log_flush_complete.</summary>
    public EventHandle FlushComplete;

    /// <summary>sqlos.wait_completed.</summary>
    public EventHandle WaitCompleted;

    /// <summary>sqlos.wait_info.</summary>
    public EventHandle WaitInfo;

    /// <summary>log_flush_start.database_id.</summary>
    public FieldHandle StartDatabaseId;

    /// <summary>log_flush_start.write_size.</summary>
    public FieldHandle StartWriteSize;

    /// <summary>log_flush_start.log_block_id.</summary>
    public FieldHandle StartBlockId;

    /// <summary>log_flush_complete.database_id.</summary>
    public FieldHandle CompleteDatabaseId;

    /// <summary>log_flush_complete.log_block_id.</summary>
    public FieldHandle CompleteBlockId;

    /// <summary>log_flush_complete.duration.</summary>
    public FieldHandle CompleteDuration;

    /// <summary>wait_completed.wait_type.</summary>
    public FieldHandle WaitCompletedType;

    /// <summary>wait_completed.duration.</summary>
    public FieldHandle WaitCompletedDuration;

    /// <summary>wait_info.wait_type.</summary>
    public FieldHandle WaitInfoType;

    /// <summary>wait_info.opcode.</summary>
    public FieldHandle WaitInfoOpcode;

    /// <summary>wait_info.duration.</summary>
    public FieldHandle WaitInfoDuration;

    /// <summary>sqlserver.database_id action.</summary>
    public ActionHandle DatabaseIdAction;

    /// <summary>sqlserver.database_name action.</summary>
    public ActionHandle DatabaseNameAction;

    /// <summary>package0.event_sequence action.</summary>
    public ActionHandle SequenceAction;

    /// <summary>sqlserver.client_app_name action (the application a wait belongs to).</summary>
    public ActionHandle ClientAppNameAction;

    /// <summary>sqlserver.query_hash action (uint64: the statement a wait belongs to; what the monitor's session adds).</summary>
    public ActionHandle QueryHashAction;

    /// <summary>sqlserver.query_hash_signed action (the same hash as int64; a file from another session may carry this one).</summary>
    public ActionHandle QueryHashSignedAction;

    /// <summary>The unit log_flush_complete.duration's description names, or null (then the pairs and the default decide).</summary>
    public DurationUnit? FlushCompleteNamed;

    /// <summary>The unit of wait_completed.duration: its description's, else the given one.</summary>
    public DurationUnit WaitCompletedUnit;

    /// <summary>The unit of wait_info.duration: its description's, else the given one.</summary>
    public DurationUnit WaitInfoUnit;

    /// <summary>Whether starts and completes can be paired (both carry log_block_id).</summary>
    public readonly bool CanPair => StartBlockId.IsValid && CompleteBlockId.IsValid;

    /// <summary>
    /// Whether a sqlos.wait_info event is the end of a wait, the one that carries its duration: wait_info fires at the
    /// start (opcode 0) and the end (1). An event without the opcode field is taken as an end.
    /// </summary>
    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining)]
    public readonly bool IsWaitEnd(in XEventRecord record) => !record.TryGetMap(WaitInfoOpcode, out var opcode, out _) || opcode == 1;

    /// <summary>
    /// The statement's query hash on <paramref name="record"/>: the <c>query_hash</c> action, else <c>query_hash_signed</c>
    /// (the same 8 bytes read as a signed integer); false when the event carries neither.
    /// </summary>
    public readonly bool TryGetQueryHash(in XEventRecord record, out ulong hash)
    {
        if (QueryHashAction.IsValid && record.TryGetUInt64(QueryHashAction, out hash))
        {
            return true;
        }

        if (QueryHashSignedAction.IsValid && record.TryGetInt64(QueryHashSignedAction, out var signed))
        {
            hash = unchecked((ulong)signed);
            return true;
        }

        hash = 0;
        return false;
    }

    /// <summary>Resolves everything in <paramref name="metadata"/>; <paramref name="units"/> are the units when no description names one.</summary>
    public static LogFlushFields Resolve(XEventMetadata metadata, XEventUnits units)
    {
        ArgumentNullException.ThrowIfNull(metadata);
        ArgumentNullException.ThrowIfNull(units);
        var f = new LogFlushFields
        {
            FlushStart = metadata.GetEventHandle("sqlserver.log_flush_start"),
            FlushComplete = metadata.GetEventHandle("sqlserver.log_flush_complete"),
            WaitCompleted = metadata.GetEventHandle("sqlos.wait_completed"),
            WaitInfo = metadata.GetEventHandle("sqlos.wait_info"),
            StartDatabaseId = metadata.GetFieldHandle("sqlserver.log_flush_start", "database_id"),
            StartWriteSize = metadata.GetFieldHandle("sqlserver.log_flush_start", "write_size"),
            StartBlockId = metadata.GetFieldHandle("sqlserver.log_flush_start", "log_block_id"),
            CompleteDatabaseId = metadata.GetFieldHandle("sqlserver.log_flush_complete", "database_id"),
            CompleteBlockId = metadata.GetFieldHandle("sqlserver.log_flush_complete", "log_block_id"),
            CompleteDuration = metadata.GetFieldHandle("sqlserver.log_flush_complete", "duration"),
            WaitCompletedType = metadata.GetFieldHandle("sqlos.wait_completed", "wait_type"),
            WaitCompletedDuration = metadata.GetFieldHandle("sqlos.wait_completed", "duration"),
            WaitInfoType = metadata.GetFieldHandle("sqlos.wait_info", "wait_type"),
            WaitInfoOpcode = metadata.GetFieldHandle("sqlos.wait_info", "opcode"),
            WaitInfoDuration = metadata.GetFieldHandle("sqlos.wait_info", "duration"),
            DatabaseIdAction = metadata.GetActionHandle("sqlserver.database_id"),
            DatabaseNameAction = metadata.GetActionHandle("sqlserver.database_name"),
            SequenceAction = metadata.GetActionHandle("package0.event_sequence"),
            ClientAppNameAction = metadata.GetActionHandle("sqlserver.client_app_name"),
            QueryHashAction = metadata.GetActionHandle("sqlserver.query_hash"),
            QueryHashSignedAction = metadata.GetActionHandle("sqlserver.query_hash_signed"),
        };
        f.FlushCompleteNamed = DurationUnits.Named(f.CompleteDuration.Definition?.Description);
        f.WaitCompletedUnit = DurationUnits.Named(f.WaitCompletedDuration.Definition?.Description) ?? units.WaitCompleted;
        f.WaitInfoUnit = DurationUnits.Named(f.WaitInfoDuration.Definition?.Description) ?? units.WaitInfo;
        return f;
    }
}

/// <summary>
/// The flush-latency rule, one instance per instance's reader: latency is the complete's timestamp minus its start's
/// (<see cref="FlushPairTable"/>); only a complete without a pair falls back on its duration field, read in
/// <see cref="FallbackUnit"/>: the unit the pairs settled (<see cref="DurationUnitEvidence"/>), else the one the field's
/// description names, else the configured one (milliseconds).
/// </summary>
public sealed class FlushLatencyRule
{
    private readonly XEventUnits _units;
    private readonly bool _settleAsItGoes;
    private DurationUnit? _named;
    private long _nextTry = DurationUnitEvidence.PairsToSettle;

    /// <summary>Creates the rule over <paramref name="pairs"/>.</summary>
    /// <param name="pairs">The table of outstanding starts.</param>
    /// <param name="units">Units when nothing else says.</param>
    /// <param name="settleAsItGoes">
    /// True for a stream (the unit is settled as soon as the pairs show it, and used from then on); false for analyze,
    /// which keeps the raw value of each unpaired complete and settles once at the end, over every reader's pairs.
    /// </param>
    public FlushLatencyRule(FlushPairTable pairs, XEventUnits? units = null, bool settleAsItGoes = true)
    {
        Pairs = pairs;
        _units = units ?? new XEventUnits();
        _settleAsItGoes = settleAsItGoes;
    }

    /// <summary>The table of outstanding starts (issue-22 style in-flight figures read it).</summary>
    public FlushPairTable Pairs { get; }

    /// <summary>The ratios seen so far.</summary>
    public DurationUnitEvidence Evidence { get; } = new();

    /// <summary>The settled unit with its evidence, once the pairs showed one.</summary>
    public DurationUnitDecision? Decision { get; private set; }

    /// <summary>Called once when the pairs settle the unit (the caller logs it).</summary>
    public Action<DurationUnitDecision>? OnSettled { get; set; }

    /// <summary>The unit of an unpaired complete's duration field now.</summary>
    public DurationUnit FallbackUnit => Decision?.Unit ?? _named ?? _units.FlushComplete;

    /// <summary>Completes whose latency came from their pair.</summary>
    public long Paired { get; private set; }

    /// <summary>Completes without a pair (their duration field was used).</summary>
    public long Unpaired { get; private set; }

    /// <summary>The unit the metadata's description of the duration field names, if any.</summary>
    public DurationUnit? NamedUnit => _named;

    /// <summary>Takes the unit the metadata's description names, if any.</summary>
    public void OnMetadata(in LogFlushFields fields) => _named = fields.FlushCompleteNamed;

    /// <summary>A log_flush_start (its block id read; without one nothing can pair).</summary>
    public void Start(in LogFlushFields fields, int databaseId, ulong logBlockId, long startTicks)
    {
        if (fields.CanPair)
        {
            Pairs.Start(databaseId, logBlockId, startTicks);
        }
    }

    /// <summary>
    /// A log_flush_complete: true with its latency (ticks) when its start is known; false when it has no pair (the
    /// caller then uses <see cref="Fallback"/>, or keeps the raw field for later).
    /// </summary>
    public bool TryPair(in LogFlushFields fields, int databaseId, ulong logBlockId, long completeTicks, ulong field, out long latencyTicks)
    {
        latencyTicks = 0;
        if (!fields.CanPair || !Pairs.TryComplete(databaseId, logBlockId, completeTicks, out var startTicks) || completeTicks < startTicks)
        {
            Unpaired++;
            return false;
        }

        latencyTicks = completeTicks - startTicks;
        Paired++;
        if (Decision is null && Evidence.WantsMore)
        {
            Evidence.Add(latencyTicks, field);
            if (_settleAsItGoes && Evidence.Pairs >= _nextTry)
            {
                _nextTry += DurationUnitEvidence.PairsToSettle;
                Settle(Evidence);
            }
        }

        return true;
    }

    /// <summary>The latency (ticks) an unpaired complete's <paramref name="field"/> gives in <see cref="FallbackUnit"/>.</summary>
    public long Fallback(ulong field) => DurationUnits.ToTicks(field, FallbackUnit);

    /// <summary>Settles the unit from <paramref name="evidence"/> (analyze: every reader's, merged) when it shows one; returns the decision.</summary>
    public DurationUnitDecision? Settle(DurationUnitEvidence evidence, int minPairs = DurationUnitEvidence.PairsToSettle)
    {
        ArgumentNullException.ThrowIfNull(evidence);
        if (Decision is not null)
        {
            return Decision;
        }

        var previous = FallbackUnit;
        if (evidence.Decide(previous, minPairs) is { } decision)
        {
            Decision = decision;
            OnSettled?.Invoke(decision);
        }

        return Decision;
    }
}
