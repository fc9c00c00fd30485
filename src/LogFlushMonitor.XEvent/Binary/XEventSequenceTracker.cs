using System.Runtime.CompilerServices;
using LogFlushMonitor.XEvent.Metadata;

namespace LogFlushMonitor.XEvent.Binary;

/// <summary>
/// Counts events missing from <c>package0.event_sequence</c> in a file, by the one rule the live service applies too
/// (<see cref="SequenceSegment"/>), with what a file adds: the time between two events comes from their clocks, and a
/// buffer's numbers may be applied as a summary when that is provably the same as applying them one by one.
/// </summary>
/// <remarks>
/// <para>A number further above the highest seen than the session could have numbered in the time between the two
/// events is a damaged value, not lost events: <see cref="Observe(long, in XEventRecord)"/> rejects it and the reader
/// reports it as damage with its offset.</para>
/// <para>A mutable struct: keep it in a field and pass it by ref.</para>
/// </remarks>
public struct XEventSequenceTracker
{
    /// <summary>A drop of more than this below the highest sequence seen is a new numbering, not an inversion.</summary>
    public const long RestartDistance = SequenceSegment.RestartDistance;

    /// <summary>More events a second than any session numbers: the bound of a plausible jump in event_sequence.</summary>
    public const long MaxEventsPerSecond = SequenceSegment.MaxEventsPerSecond;

    private SequenceSegment _segment;
    private ulong _maxClock;
    private XEventPackage? _maxPackage;

    /// <summary>Events missing so far, exactly (holes filled later by out-of-order events are not counted).</summary>
    public readonly long Missing => _segment.Missing;

    /// <summary>Numbers seen again: damage, not events received (they cannot hide a loss).</summary>
    public readonly long Duplicates => _segment.Duplicates;

    /// <summary>Events with a sequence number observed so far.</summary>
    public long Observed { get; private set; }

    /// <summary>The highest number of the current segment (0 before any).</summary>
    public readonly long Highest => _segment.Highest;

    /// <summary>
    /// Applies <paramref name="record"/>'s sequence number unless it jumps further ahead than the time since the
    /// highest number allows; false for such a damaged value (not applied).
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool Observe(long sequence, in XEventRecord record)
    {
        if (_segment.JumpsFarAhead(sequence) && _segment.IsImplausible(sequence, Elapsed(record)))
        {
            return false;
        }

        Observe(sequence);
        if (sequence == _segment.Highest)
        {
            _maxClock = record.Ticks;
            _maxPackage = record.Definition?.Package;
        }

        return true;
    }

    /// <summary>What a person reads about a rejected value.</summary>
    internal readonly string DescribeJump(long sequence, in XEventRecord record) =>
        string.Create(System.Globalization.CultureInfo.InvariantCulture,
            $"event_sequence {sequence} is {sequence - _segment.Highest:N0} above the highest number before it ({_segment.Highest}), {Elapsed(record):0.###} s earlier: more than a session numbers in that time, so a damaged value, not lost events (the event was counted, its number ignored)");

    /// <summary>Seconds from the event with the highest number to <paramref name="record"/> (0 when a clock cannot say).</summary>
    private readonly double Elapsed(in XEventRecord record)
    {
        if (_maxPackage is { } then && record.Definition?.Package is { } now
            && then.TryTicksToFileTime(_maxClock, out var from) && now.TryTicksToFileTime(record.Ticks, out var to))
        {
            return Math.Max(0, to - from) / 1e7;
        }

        return 0;
    }

    /// <summary>Applies one event's sequence number.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Observe(long sequence)
    {
        if (sequence <= 0)
        {
            return;
        }

        Observed++;
        _segment.Observe(sequence);
    }

    /// <summary>Forgets the current segment (a new input or connection restarts the numbering).</summary>
    public void Reset() => _segment.Reset();

    /// <summary>
    /// Applies a buffer's summary as if its numbers had been observed one by one, when that is provably the same
    /// (ascending numbers above the highest so far: none can start a segment or repeat one); false when the caller must replay the buffer's numbers in order.
    /// </summary>
    internal bool TryApply(in SequenceSummary summary)
    {
        if (summary.Count == 0)
        {
            return true;
        }

        // A summary is the same as its numbers one by one when none of them can be a duplicate (the only step whose
        // outcome depends on the order): strictly ascending, all above the highest number so far, no restart, no jump.
        if (summary.InternalRestart || summary.LargeStep || !summary.Ascending
            || (_segment.Started && (summary.Min <= _segment.Highest || summary.Max - _segment.Highest > MaxEventsPerSecond)))
        {
            return false;
        }

        Observed += summary.Count;
        if (!_segment.Started || summary.Max >= _segment.Highest)
        {
            _maxClock = summary.MaxClock;
            _maxPackage = summary.MaxPackage;
        }

        _segment.Apply(summary.Count, summary.Min, summary.Max);
        return true;
    }
}

/// <summary>
/// What one buffer's sequence numbers contribute, order aside: count, lowest, highest, and whether any number
/// fell more than the restart distance below the highest before it in the same buffer (then the numbers must be
/// replayed in order to be exact).
/// </summary>
internal struct SequenceSummary
{
    public long Count;
    public long Min;
    public long Max;
    public bool InternalRestart;

    /// <summary>Whether every number is above the one before it (no repeat, no inversion inside the buffer).</summary>
    public bool Ascending;

    /// <summary>A number jumped more than a second's worth above the ones before it: replayed in order to check it.</summary>
    public bool LargeStep;

    /// <summary>Clock ticks and package of the event with the highest number (the time a later jump is measured from).</summary>
    public ulong MaxClock;
    public XEventPackage? MaxPackage;

    /// <summary>Adds a number without a clock (a jump is then measured against no time).</summary>
    public void Add(long sequence)
    {
        var none = default(XEventRecord);
        Add(sequence, none);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Add(long sequence, in XEventRecord record)
    {
        if (sequence <= 0)
        {
            return;
        }

        if (Count == 0)
        {
            Min = Max = sequence;
            Ascending = true;
        }
        else
        {
            Ascending &= sequence > Max;
            InternalRestart |= sequence < Max - XEventSequenceTracker.RestartDistance;
            LargeStep |= sequence - Max > XEventSequenceTracker.MaxEventsPerSecond;
            Min = Math.Min(Min, sequence);
            Max = Math.Max(Max, sequence);
        }

        if (sequence == Max)
        {
            MaxClock = record.Ticks;
            MaxPackage = record.Definition?.Package;
        }

        Count++;
    }
}

/// <summary>Reads <c>package0.event_sequence</c> of each record, the way the service's mapper reads it.</summary>
internal static class EventSequence
{
    public const string ActionName = "package0.event_sequence";

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static long Of(in XEventRecord record, ActionHandle action) =>
        action.IsValid && record.TryGetInt64(action, out var s) ? s : 0;
}

/// <summary>Feeds every record's sequence number to a tracker (the sequential reader); damaged values go to <see cref="Damage"/>.</summary>
internal struct TrackingObserver : IRecordObserver
{
    public ActionHandle Action;
    public XEventSequenceTracker Tracker;
    public List<XelDamage>? Damage;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void OnRecord(in XEventRecord record)
    {
        var sequence = EventSequence.Of(record, Action);
        if (!Tracker.Observe(sequence, record))
        {
            Damaged(sequence, record);
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void Damaged(long sequence, in XEventRecord record) =>
        (Damage ??= []).Add(new XelDamage(record.Position, 0, Tracker.DescribeJump(sequence, record), record.Position));
}

/// <summary>Summarises one buffer's sequence numbers (a parallel worker).</summary>
internal struct SummaryObserver : IRecordObserver
{
    public ActionHandle Action;
    public SequenceSummary Summary;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void OnRecord(in XEventRecord record) => Summary.Add(EventSequence.Of(record, Action), record);
}

/// <summary>A tracker outside the stack, for the parallel reader's exact replay of one buffer.</summary>
internal sealed class ReplayState
{
    public XEventSequenceTracker Tracker;
    public List<XelDamage> Damage { get; } = [];
}

/// <summary>Observes a buffer's sequence numbers in record order (the parallel reader's exact replay).</summary>
internal readonly struct ReplayObserver(ReplayState state, ActionHandle action) : IRecordObserver
{
    public void OnRecord(in XEventRecord record)
    {
        var sequence = EventSequence.Of(record, action);
        if (!state.Tracker.Observe(sequence, record))
        {
            state.Damage.Add(new XelDamage(record.Position, 0, state.Tracker.DescribeJump(sequence, record), record.Position));
        }
    }
}
