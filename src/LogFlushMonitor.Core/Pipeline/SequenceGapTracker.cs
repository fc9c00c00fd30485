using LogFlushMonitor.Core.Samples;

namespace LogFlushMonitor.Core.Pipeline;

/// <summary>
/// Counts events lost between the server and us from package0.event_sequence, which a session numbers
/// contiguously. Sources call <see cref="Observe(long)"/> per event as they decode, before the channel, so a
/// channel drop is not counted twice. A lower sequence means a new session or connection: a new baseline.
/// </summary>
/// <remarks>A mutable struct owned by one source's reading thread.</remarks>
public struct SequenceGapTracker
{
    private long _last;

    /// <summary>Events missing so far.</summary>
    public long Lost { get; private set; }

    /// <summary>Applies one event's sequence (0 = the session has no sequence action); returns the events missing before it.</summary>
    public long Observe(long sequence)
    {
        if (sequence <= 0)
        {
            return 0;
        }

        long gap = 0;
        if (_last > 0 && sequence > _last + 1)
        {
            gap = sequence - _last - 1;
            Lost += gap;
        }

        // Out of order (the format allows small inversions) or a restart: never count a negative gap.
        if (sequence > _last || sequence < _last - 1_000_000)
        {
            _last = sequence;
        }

        return gap;
    }

    /// <summary>Forgets the last sequence (a new connection restarts the stream).</summary>
    public void Reset() => _last = 0;

    /// <summary>Observes and reports a gap to <paramref name="sink"/>.</summary>
    public void Observe(long sequence, string instance, ISampleSink sink)
    {
        var gap = Observe(sequence);
        if (gap > 0)
        {
            sink.OnSourceLoss(instance, LossKind.SequenceGap, gap);
        }
    }
}
