namespace LogFlushMonitor.Core.Aggregation;

/// <summary>Statistics of one wait type on one database, from wait events.</summary>
public sealed record WaitSnapshot(string WaitType, long Count, double MeanSeconds, double P95Seconds, double MaxSeconds);
