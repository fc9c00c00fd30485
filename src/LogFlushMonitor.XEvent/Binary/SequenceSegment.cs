namespace LogFlushMonitor.XEvent.Binary;

/// <summary>
/// The one rule for events missing from <c>package0.event_sequence</c>, which a session numbers contiguously: the live
/// service's tracker (Core's SequenceGapTracker) and <c>analyze</c>'s (<see cref="XEventSequenceTracker"/>) both apply it
/// through this struct. Within a segment, missing = (highest - lowest + 1) - received, so an event that arrives out of
/// order fills its hole; a number more than <see cref="RestartDistance"/> below the highest seen starts a new segment (a
/// new session or connection); numbers of 0 or less mean the event has no sequence and are ignored; a number seen again
/// (more events than numbers in the range) is a duplicate, not an event received, so it cannot hide a real loss; a number
/// further above the highest than a session numbers in the time since (<see cref="MaxEventsPerSecond"/> a second, plus one
/// second's worth) is a damaged value, which the caller checks with <see cref="IsImplausible"/> before observing it.
/// </summary>
/// <remarks>A mutable struct owned by one reader: keep it in a field and pass it by ref.</remarks>
public struct SequenceSegment
{
    /// <summary>A drop of more than this below the highest sequence seen is a new numbering, not an inversion.</summary>
    public const long RestartDistance = 10_000;

    /// <summary>
    /// More events a second than any session numbers (a busy instance gives tens to hundreds of thousands): the bound of
    /// a plausible jump in event_sequence.
    /// </summary>
    public const long MaxEventsPerSecond = 10_000_000;

    private long _base;
    private long _max;
    private long _received;
    private long _closedMissing;

    /// <summary>Events missing so far, exactly (holes filled later by out-of-order events are not counted).</summary>
    public readonly long Missing => _closedMissing + (_received == 0 ? 0 : Math.Max(0, _max - _base + 1 - _received));

    /// <summary>Events missing from the current segment alone (0 before any).</summary>
    public readonly long MissingInSegment => _received == 0 ? 0 : Math.Max(0, _max - _base + 1 - _received);

    /// <summary>Numbers seen again, counted as damage rather than as events received.</summary>
    public long Duplicates { get; private set; }

    /// <summary>The highest number of the current segment (0 before any).</summary>
    public readonly long Highest => _received == 0 ? 0 : _max;

    /// <summary>Whether a segment has begun (a number was observed since the last reset).</summary>
    public readonly bool Started => _received > 0;

    /// <summary>
    /// Whether <paramref name="sequence"/> lies more than a second's worth of numbers above the highest (cheap, per event:
    /// the caller then measures the time since the highest number and asks <see cref="IsImplausible"/>).
    /// </summary>
    public readonly bool JumpsFarAhead(long sequence) => _received > 0 && sequence - _max > MaxEventsPerSecond;

    /// <summary>
    /// Whether <paramref name="sequence"/> lies further above the highest number than a session numbers in
    /// <paramref name="elapsedSeconds"/> (the time since the event with the highest number) plus one second.
    /// </summary>
    public readonly bool IsImplausible(long sequence, double elapsedSeconds) =>
        JumpsFarAhead(sequence) && sequence - _max > (Math.Max(0, elapsedSeconds) + 1) * MaxEventsPerSecond;

    /// <summary>Whether <paramref name="sequence"/> starts a new segment (the first number, or a restarted numbering).</summary>
    public readonly bool StartsSegment(long sequence) => _received == 0 || sequence < _max - RestartDistance;

    /// <summary>Applies one number (0 or less: ignored); returns false when it was a duplicate (counted, not received).</summary>
    public bool Observe(long sequence)
    {
        if (sequence <= 0)
        {
            return true;
        }

        if (StartsSegment(sequence))
        {
            _closedMissing = Missing;
            _base = _max = sequence;
            _received = 1;
            return true;
        }

        _base = Math.Min(_base, sequence);
        _max = Math.Max(_max, sequence);
        _received++;
        return KeepWithinRange();
    }

    /// <summary>
    /// Applies <paramref name="count"/> numbers from <paramref name="min"/> to <paramref name="max"/> as if observed one by
    /// one: the caller has made sure that none of them starts a new segment but possibly the first (a buffer's summary).
    /// </summary>
    public void Apply(long count, long min, long max)
    {
        if (count <= 0)
        {
            return;
        }

        if (_received == 0)
        {
            _closedMissing = Missing;
            _base = min;
            _max = max;
            _received = count;
        }
        else
        {
            _base = Math.Min(_base, min);
            _max = Math.Max(_max, max);
            _received += count;
        }

        KeepWithinRange();
    }

    /// <summary>Forgets the current segment (a new input or connection restarts the numbering); what was missing stays counted.</summary>
    public void Reset()
    {
        _closedMissing = Missing;
        _received = 0;
    }

    /// <summary>More events than numbers in the range are duplicates: counted apart, so they cannot hide a loss.</summary>
    private bool KeepWithinRange()
    {
        var excess = _received - (_max - _base + 1);
        if (excess <= 0)
        {
            return true;
        }

        _received -= excess;
        Duplicates += excess;
        return false;
    }
}
