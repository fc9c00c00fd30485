using LogFlushMonitor.XEvent.Xml;

namespace LogFlushMonitor.SqlServer.Histogram;

/// <summary>
/// Turns the cumulative slots of a package0.histogram target into per-poll increases. Restart-safe: a slot whose
/// count went down (the session restarted) takes the lower count as its new baseline and yields nothing for that
/// poll, like the Core's cumulative counters; a slot that vanished counts from zero again.
/// </summary>
/// <remarks>One instance per target, used by one polling task.</remarks>
public sealed class HistogramDeltas
{
    private readonly Dictionary<long, long> _last = [];
    private readonly List<long> _stale = [];
    private bool _counting;

    /// <summary>Slots whose value was not an integer (ignored).</summary>
    public long NonIntegerSlots { get; private set; }

    /// <summary>Readings that went down (new baselines).</summary>
    public long Resets { get; private set; }

    /// <summary>
    /// The session was just created or started: its counts began at zero, so the first reading is all new.
    /// Without this call the first reading is a baseline (the session ran before we looked; its history is not ours).
    /// </summary>
    public void CountFromZero()
    {
        _last.Clear();
        _counting = true;
    }

    /// <summary>Applies one reading; calls <paramref name="onIncrease"/> with (value, increase) for every slot that grew.</summary>
    public long Apply(HistogramContent content, Action<long, long> onIncrease)
    {
        ArgumentNullException.ThrowIfNull(content);
        long total = 0;
        _stale.Clear();
        _stale.AddRange(_last.Keys);
        foreach (var slot in content.Slots)
        {
            if (!slot.TryGetInteger(out var value))
            {
                NonIntegerSlots++;
                continue;
            }

            _stale.Remove(value);
            var previous = _last.GetValueOrDefault(value);
            if (slot.Count < previous)
            {
                Resets++;
            }
            else if (_counting && slot.Count > previous)
            {
                var increase = slot.Count - previous;
                total += increase;
                onIncrease(value, increase);
            }

            _last[value] = slot.Count;
        }

        foreach (var value in _stale)
        {
            _last[value] = 0; // gone from the target: the session restarted; it counts from zero when it reappears
        }

        _counting = true;
        return total;
    }
}
