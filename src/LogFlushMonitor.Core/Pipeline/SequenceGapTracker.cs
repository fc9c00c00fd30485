using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.XEvent.Binary;

namespace LogFlushMonitor.Core.Pipeline;

/// <summary>
/// Counts events lost between the server and us from package0.event_sequence by the one rule <c>analyze</c> applies too
/// (<see cref="SequenceSegment"/>), as the events are read: sources call <see cref="Observe(long)"/> per event as they
/// decode, before the channel, so a channel drop is not counted twice; the gap newly found is reported at once.
/// </summary>
/// <remarks>
/// <para>A number further above the highest seen than a session could have numbered since is a damaged value, not lost
/// events: the source checks <see cref="IsImplausible"/> before <see cref="Observe(long)"/> and counts such a value as
/// malformed instead (one flipped bit would otherwise report 2^50 events lost).</para>
/// <para>A mutable struct owned by one source's reading thread.</para>
/// </remarks>
public struct SequenceGapTracker
{
    /// <summary>More events a second than any session numbers: the bound of a plausible jump in event_sequence.</summary>
    public const long MaxEventsPerSecond = SequenceSegment.MaxEventsPerSecond;

    private SequenceSegment _segment;
    private long _reported;

    /// <summary>Events reported missing so far (as reported: a hole an inversion filled later stays counted).</summary>
    public long Lost { get; private set; }

    /// <summary>Numbers seen again: counted as damage, not as received events.</summary>
    public readonly long Duplicates => _segment.Duplicates;

    /// <summary>The highest number of the current segment (0 before any).</summary>
    public readonly long Highest => _segment.Highest;

    /// <summary>Whether <paramref name="sequence"/> may need the time check (more than a second's worth above the highest).</summary>
    public readonly bool JumpsFarAhead(long sequence) => _segment.JumpsFarAhead(sequence);

    /// <summary>Whether <paramref name="sequence"/> lies further above the highest number than a session numbers in <paramref name="elapsedSeconds"/> plus one second.</summary>
    public readonly bool IsImplausible(long sequence, double elapsedSeconds) => _segment.IsImplausible(sequence, elapsedSeconds);

    /// <summary>Events missing now, exactly: holes that out-of-order events filled later are not counted.</summary>
    public readonly long Missing => _segment.Missing;

    /// <summary>
    /// Applies one event's sequence (0 = the session has no sequence action); returns the events newly found missing in
    /// the current segment (an event that arrives out of order fills the hole it left instead of counting as lost).
    /// </summary>
    public long Observe(long sequence)
    {
        if (sequence <= 0)
        {
            return 0;
        }

        var closedBefore = _segment.StartsSegment(sequence);
        if (!_segment.Observe(sequence))
        {
            return 0; // a duplicate: the caller counts it as damage
        }

        if (closedBefore)
        {
            _reported = 0;
            return 0;
        }

        var missing = _segment.MissingInSegment;
        if (missing <= _reported)
        {
            return 0;
        }

        var gap = missing - _reported;
        _reported = missing;
        Lost += gap;
        return gap;
    }

    /// <summary>Forgets the segment (a new connection restarts the stream).</summary>
    public void Reset() => _segment.Reset();

    /// <summary>Observes and reports a gap to <paramref name="sink"/>.</summary>
    public void Observe(long sequence, string instance, ILossSink sink)
    {
        var gap = Observe(sequence);
        if (gap > 0)
        {
            sink.OnSourceLoss(instance, LossKind.SequenceGap, gap);
        }
    }
}
