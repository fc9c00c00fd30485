namespace LogFlushMonitor.Core.Aggregation;

/// <summary>A polled series (counter, wait stats or file stats) with the poll that last refreshed it.</summary>
internal abstract class PolledSeries
{
    public int Stamp { get; set; }

    public KeyValuePair<string, object?>[] Tags { get; protected init; } = [];
}
