using System.Diagnostics;

namespace LogFlushMonitor.Core.Aggregation;

/// <summary>Waits of one type on one database, from wait events.</summary>
internal sealed class WaitTypeEvents(string waitType, TagList tags)
{
    public string WaitType { get; } = waitType;

    public TagList Tags { get; set; } = tags;

    public LatencyDistribution Durations { get; } = new();
}
