namespace LogFlushMonitor.Core.Aggregation;

/// <summary>
/// A polled value the aggregation refused because the counter cannot take it (<see cref="ReadingVerdict"/>): counted
/// as <c>malformed</c> in sqlserver.monitor.events.lost and handed to the host to log.
/// </summary>
/// <param name="Instance">The SQL Server instance.</param>
/// <param name="Source">What was read: <c>performance counter</c>, <c>wait stats</c> or <c>file stats</c>.</param>
/// <param name="Name">The counter's name, or the column (e.g. <c>wait_time_ms</c>).</param>
/// <param name="Subject">The counter instance (a database or <c>_Total</c>), the wait type, or the database.</param>
/// <param name="Value">The value read.</param>
/// <param name="Verdict">Why it was refused.</param>
public readonly record struct RejectedReading(string Instance, string Source, string Name, string Subject, long Value, ReadingVerdict Verdict)
{
    /// <summary>Why, in words for a log line.</summary>
    public string Reason => Verdict switch
    {
        ReadingVerdict.Negative => "below zero",
        ReadingVerdict.TooFast => $"a rise of more than {CumulativeTracker.MaxIncreasePerSecond} a second since the last reading",
        ReadingVerdict.OutOfRange => "outside what the counter can mean (a percentage past 100, a fraction past its base, a size past SQL Server's limits)",
        _ => "accepted",
    };
}
