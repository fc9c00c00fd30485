namespace LogFlushMonitor.Core.Aggregation;

/// <summary>
/// The WRITELOG waits that ended within one window of time on one database (the busiest 10 seconds of a file, for
/// <c>analyze</c> and <c>report</c>): what a whole-file average hides when the log device slowed down for a while.
/// </summary>
/// <param name="StartUtc">Start of the window (UTC).</param>
/// <param name="Length">Length of the window.</param>
/// <param name="Waits">WRITELOG waits that ended in it.</param>
/// <param name="WaitSeconds">Their durations added up.</param>
/// <param name="Covered">
/// The part of the window the database's events cover (the whole window, except at the first and last event): a file
/// that starts 7 s into a window waited only in its last 3 s, and dividing by 10 would understate it. Null means the
/// whole window.
/// </param>
public sealed record WriteLogWindow(DateTime StartUtc, TimeSpan Length, long Waits, double WaitSeconds, TimeSpan? Covered = null)
{
    /// <summary>The time the figures are per: <see cref="Covered"/>, else the whole window.</summary>
    public TimeSpan Span => Covered is { Ticks: > 0 } c && c < Length ? c : Length;

    /// <summary>Seconds commits spent waiting per second of the time covered (the alert's WRITELOG pressure).</summary>
    public double PressureSecondsPerSecond => WaitSeconds / Span.TotalSeconds;

    /// <summary>The average wait, in seconds.</summary>
    public double MeanSeconds => Waits > 0 ? WaitSeconds / Waits : 0;
}
