using LogFlushMonitor.Core.Samples;

namespace LogFlushMonitor.Core.Pipeline;

/// <summary>
/// Counts events lost between the server and us from package0.event_sequence, which a session numbers
/// contiguously. Sources call <see cref="Observe(long)"/> per event as they decode, before the channel, so a
/// channel drop is not counted twice. A much lower sequence means a new session or connection: a new baseline; a slightly lower one is an inversion that fills its hole.
/// </summary>
/// <remarks>
/// <para>A number further above the highest seen than a session could have numbered since (more than
/// <see cref="MaxEventsPerSecond"/> a second) is a damaged value, not lost events: the source checks
/// <see cref="IsImplausible"/> before <see cref="Observe(long)"/> and counts such a value as malformed instead (one
/// flipped bit would otherwise report 2^50 events lost).</para>
/// <para>A mutable struct owned by one source's reading thread.</para>
/// </remarks>
public struct SequenceGapTracker
{
    /// <summary>More events a second than any session numbers: the bound of a plausible jump in event_sequence.</summary>
    public const long MaxEventsPerSecond = 10_000_000;

    /// <summary>A drop of more than this below the highest sequence seen is a new numbering, not an inversion.</summary>
    private const long RestartDistance = 10_000;

    private long _base;
    private long _max;
    private long _received;
    private long _reported;
    private long _closedMissing;

    /// <summary>Events reported missing so far (as reported: a hole an inversion filled later stays counted).</summary>
    public long Lost { get; private set; }

    /// <summary>
    /// Numbers seen again (found when the events received outnumber the numbers in the range; a repeat that fills a
    /// hole another loss left is not found). Counted as damage, not as received events.
    /// </summary>
    public long Duplicates { get; private set; }

    /// <summary>The highest number of the current segment (0 before any).</summary>
    public readonly long Highest => _received == 0 ? 0 : _max;

    /// <summary>
    /// Whether <paramref name="sequence"/> may need the time check: more than a second's worth of events above the
    /// highest number (cheap, per event; the caller then measures the time and asks <see cref="IsImplausible"/>).
    /// </summary>
    public readonly bool JumpsFarAhead(long sequence) => _received > 0 && sequence - _max > MaxEventsPerSecond;

    /// <summary>
    /// Whether <paramref name="sequence"/> lies further above the highest number than a session numbers in
    /// <paramref name="elapsedSeconds"/> (the time since the event with the highest number) plus one second.
    /// </summary>
    public readonly bool IsImplausible(long sequence, double elapsedSeconds) =>
        JumpsFarAhead(sequence) && sequence - _max > (Math.Max(0, elapsedSeconds) + 1) * MaxEventsPerSecond;

    /// <summary>Events missing now, exactly: holes that out-of-order events filled later are not counted.</summary>
    public readonly long Missing => _closedMissing + (_received == 0 ? 0 : Math.Max(0, _max - _base + 1 - _received));

    /// <summary>
    /// Applies one event's sequence (0 = the session has no sequence action); returns the events newly found
    /// missing. Missing = numbers in the range seen minus events received, so an event that arrives out of
    /// order (the format allows small inversions) fills the hole it left instead of counting as lost.
    /// </summary>
    public long Observe(long sequence)
    {
        if (sequence <= 0)
        {
            return 0;
        }

        if (_received == 0 || sequence < _max - RestartDistance)
        {
            // First event, or the numbering restarted (a new session or connection): a new segment.
            _closedMissing = Missing;
            _base = _max = sequence;
            _received = 1;
            _reported = 0;
            return 0;
        }

        _base = Math.Min(_base, sequence);
        _max = Math.Max(_max, sequence);
        _received++;
        if (_received > _max - _base + 1)
        {
            // More events than numbers in the range: this number was seen before (a buffer delivered twice, a damaged
            // value). It is not an event received, or it would hide a real loss; the caller counts it as damage.
            _received--;
            Duplicates++;
            return 0;
        }

        var missing = _max - _base + 1 - _received;
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
    public void Reset()
    {
        _closedMissing = Missing;
        _received = 0;
    }

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
