namespace LogFlushMonitor.XEvent.Xml;

/// <summary>The content of a ring_buffer target.</summary>
public sealed record RingBufferContent(
    IReadOnlyList<XEventData> Events,
    long? EventCount,
    long? DroppedCount,
    long? TotalEventsProcessed,
    long? MemoryUsed);

/// <summary>One slot of a histogram target: the bucketed value (as text) and its count.</summary>
public readonly record struct HistogramSlot(string Value, long Count)
{
    /// <summary>The value as an integer (write sizes, ids), when it is one.</summary>
    public bool TryGetInteger(out long value) =>
        long.TryParse(Value, System.Globalization.NumberStyles.Integer, System.Globalization.CultureInfo.InvariantCulture, out value);
}

/// <summary>
/// The content of a package0.histogram target. When <see cref="Truncated"/> is true the server ran out of
/// slots and dropped values that fit in none: the counts are incomplete and must be reported as such.
/// </summary>
public sealed record HistogramContent(bool Truncated, int? Buckets, IReadOnlyList<HistogramSlot> Slots)
{
    /// <summary>Sum of all slot counts.</summary>
    public long TotalCount => Slots.Sum(s => s.Count);
}
