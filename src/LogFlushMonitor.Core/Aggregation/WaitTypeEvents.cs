namespace LogFlushMonitor.Core.Aggregation;

/// <summary>Waits of one type on one database, from wait events.</summary>
internal sealed class WaitTypeEvents(string waitType, KeyValuePair<string, object?>[] tags)
{
    public string WaitType { get; } = waitType;

    public KeyValuePair<string, object?>[] Tags { get; set; } = tags;

    public LatencyDistribution Durations { get; } = new();
}
