namespace LogFlushMonitor.Core.Aggregation;

/// <summary>Per-instance totals.</summary>
public sealed record InstanceSnapshot(
    string Instance,
    long EventsReceived,
    long LostSequenceGap,
    long LostChannelFull,
    long LostServerDropped,
    long LostMalformed,
    long Restarts,
    DateTime? StartTimeUtc);
