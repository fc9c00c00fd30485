namespace LogFlushMonitor.Core.Aggregation;

/// <summary>
/// The WRITELOG waits that ended within one window of time on one database (the busiest 10 seconds of a file, for
/// <c>analyze</c> and <c>report</c>): what a whole-file average hides when the log device slowed down for a while.
/// </summary>
/// <param name="StartUtc">Start of the window (UTC).</param>
/// <param name="Length">Length of the window.</param>
/// <param name="Waits">WRITELOG waits that ended in it.</param>
/// <param name="WaitSeconds">Their durations added up.</param>
public sealed record WriteLogWindow(DateTime StartUtc, TimeSpan Length, long Waits, double WaitSeconds)
{
    /// <summary>Seconds commits spent waiting per second of the window (the alert's WRITELOG pressure).</summary>
    public double PressureSecondsPerSecond => WaitSeconds / Length.TotalSeconds;

    /// <summary>The average wait, in seconds.</summary>
    public double MeanSeconds => Waits > 0 ? WaitSeconds / Waits : 0;
}
