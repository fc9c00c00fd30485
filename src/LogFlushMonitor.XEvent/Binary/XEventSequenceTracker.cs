using System.Runtime.CompilerServices;
using LogFlushMonitor.XEvent.Metadata;

namespace LogFlushMonitor.XEvent.Binary;

/// <summary>
/// Counts events missing from <c>package0.event_sequence</c>, which a session numbers contiguously. The rule is
/// the one the service's SequenceGapTracker applies: within a segment, missing = (highest - lowest + 1) -
/// received, so an event that arrives out of order fills its hole; a number more than
/// <see cref="RestartDistance"/> below the highest seen starts a new segment (a new session); numbers of 0 or
/// less mean the event has no sequence and are ignored.
/// </summary>
/// <remarks>A mutable struct: keep it in a field and pass it by ref.</remarks>
public struct XEventSequenceTracker
{
    /// <summary>A drop of more than this below the highest sequence seen is a new numbering, not an inversion.</summary>
    public const long RestartDistance = 10_000;

    private long _base;
    private long _max;
    private long _received;
    private long _closedMissing;

    /// <summary>Events missing so far, exactly (holes filled later by out-of-order events are not counted).</summary>
    public readonly long Missing => _closedMissing + (_received == 0 ? 0 : Math.Max(0, _max - _base + 1 - _received));

    /// <summary>Events with a sequence number observed so far.</summary>
    public long Observed { get; private set; }

    /// <summary>Applies one event's sequence number.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Observe(long sequence)
    {
        if (sequence <= 0)
        {
            return;
        }

        Observed++;
        if (_received == 0 || sequence < _max - RestartDistance)
        {
            StartSegment(sequence);
            return;
        }

        _base = Math.Min(_base, sequence);
        _max = Math.Max(_max, sequence);
        _received++;
    }

    /// <summary>Forgets the current segment (a new input or connection restarts the numbering).</summary>
    public void Reset()
    {
        _closedMissing = Missing;
        _received = 0;
    }

    /// <summary>
    /// Applies a buffer's summary as if its numbers had been observed one by one, when that is provably the same
    /// (no number in it starts a new segment); false when the caller must replay the buffer's numbers in order.
    /// </summary>
    internal bool TryApply(in SequenceSummary summary)
    {
        if (summary.Count == 0)
        {
            return true;
        }

        if (summary.InternalRestart || (_received > 0 && summary.Min < _max - RestartDistance))
        {
            return false;
        }

        Observed += summary.Count;
        if (_received == 0)
        {
            _closedMissing = Missing;
            _base = summary.Min;
            _max = summary.Max;
            _received = summary.Count;
            return true;
        }

        _base = Math.Min(_base, summary.Min);
        _max = Math.Max(_max, summary.Max);
        _received += summary.Count;
        return true;
    }

    private void StartSegment(long sequence)
    {
        _closedMissing = Missing;
        _base = _max = sequence;
        _received = 1;
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

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Add(long sequence)
    {
        if (sequence <= 0)
        {
            return;
        }

        if (Count == 0)
        {
            Min = Max = sequence;
        }
        else
        {
            InternalRestart |= sequence < Max - XEventSequenceTracker.RestartDistance;
            Min = Math.Min(Min, sequence);
            Max = Math.Max(Max, sequence);
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

/// <summary>Feeds every record's sequence number to a tracker (the sequential reader).</summary>
internal struct TrackingObserver : IRecordObserver
{
    public ActionHandle Action;
    public XEventSequenceTracker Tracker;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void OnRecord(in XEventRecord record) => Tracker.Observe(EventSequence.Of(record, Action));
}

/// <summary>Summarises one buffer's sequence numbers (a parallel worker).</summary>
internal struct SummaryObserver : IRecordObserver
{
    public ActionHandle Action;
    public SequenceSummary Summary;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void OnRecord(in XEventRecord record) => Summary.Add(EventSequence.Of(record, Action));
}

/// <summary>Collects a buffer's sequence numbers in order (the parallel reader's exact replay).</summary>
internal struct ReplayObserver(List<long> into) : IRecordObserver
{
    public ActionHandle Action;

    public readonly void OnRecord(in XEventRecord record) => into.Add(EventSequence.Of(record, Action));
}
