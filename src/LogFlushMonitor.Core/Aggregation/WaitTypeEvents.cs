namespace LogFlushMonitor.Core.Aggregation;

/// <summary>Waits of one type on one database, from wait events.</summary>
internal sealed class WaitTypeEvents(string waitType, KeyValuePair<string, object?>[] tags)
{
    public string WaitType { get; } = waitType;

    /// <summary>The commit budget's part the wait type belongs to (worked out once, when the type is first seen), or null.</summary>
    public CommitPart? Part { get; } = CommitParts.OfWaitType(waitType);

    public KeyValuePair<string, object?>[] Tags { get; set; } = tags;

    public LatencyDistribution Durations { get; } = new();
}
