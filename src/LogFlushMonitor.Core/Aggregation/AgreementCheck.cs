namespace LogFlushMonitor.Core.Aggregation;

/// <summary>A quantity the monitor sees twice: once in its events, once in the server's own cumulative figures.</summary>
public enum AgreementQuantity
{
    /// <summary>Log flushes: log_flush_start events against the Log Flushes/sec counter (same databases).</summary>
    Flushes,

    /// <summary>Bytes flushed: the sum of log_flush_start.write_size against Log Bytes Flushed/sec (same databases).</summary>
    FlushedBytes,

    /// <summary>
    /// WRITELOG time: the durations of WRITELOG wait events against sys.dm_os_wait_stats' WRITELOG wait_time_ms, which
    /// is instance-wide (databases outside the session's filter wait too: only events exceeding it are wrong).
    /// </summary>
    WriteLogTime,

    /// <summary>
    /// Flush wait time: the durations of WRITELOG wait events against the Log Flush Wait Time counter (same databases).
    /// Whether the counter adds each waiting commit (as WRITELOG does) or each flush waited for is a belief still to
    /// check on a real server, so only a clean factor of 1000 counts as a disagreement.
    /// </summary>
    FlushWaitTime,
}

/// <summary>What a closed window said.</summary>
public enum AgreementVerdict
{
    /// <summary>Not enough happened on the server side in the window to compare.</summary>
    TooLittle,

    /// <summary>Within tolerance (or the gap is what the losses counted in the window explain).</summary>
    Agrees,

    /// <summary>Outside tolerance.</summary>
    Disagrees,

    /// <summary>Events are about 1,000 times the server's figure: a unit read as milliseconds that is microseconds.</summary>
    ThousandTimesMore,

    /// <summary>Events are about 1/1,000 of the server's figure: a unit read as microseconds that is milliseconds.</summary>
    ThousandTimesLess,
}

/// <summary>
/// Compares one quantity as the events add it up with the same quantity as the server counts it, over windows of
/// several polls (events arrive seconds after they happen, counters are read at poll time: one poll alone would
/// compare different moments). A window closes once the server side reached <see cref="MinServer"/> and at least
/// <see cref="MinPolls"/> polls went by, or after <see cref="MaxPolls"/> polls whatever happened (then too little
/// to say anything). A disagreement must last <see cref="Persistence"/> windows in a row before it is reported; one
/// agreeing window ends it.
/// </summary>
/// <remarks>Not thread-safe: the aggregator calls it under its lock, once per poll.</remarks>
public sealed class AgreementCheck
{
    private double _events;
    private double _server;
    private double _lost;
    private double _extra;
    private int _polls;
    private int _streak;
    private AgreementVerdict _streakVerdict;

    /// <summary>Creates the check of <paramref name="quantity"/> with its documented thresholds.</summary>
    public AgreementCheck(AgreementQuantity quantity)
    {
        Quantity = quantity;
        (MinServer, Tolerance) = quantity switch
        {
            AgreementQuantity.Flushes => (200.0, 0.10),
            AgreementQuantity.FlushedBytes => (256.0 * 1024, 0.10),
            // Seconds of waiting: a second of WRITELOG in a window is enough to tell 1 from 1,000.
            _ => (1.0, 0.25),
        };
    }

    /// <summary>The quantity compared.</summary>
    public AgreementQuantity Quantity { get; }

    /// <summary>The server-side amount a window needs before it says anything (flushes, bytes or seconds).</summary>
    public double MinServer { get; }

    /// <summary>The relative difference still counted as agreement.</summary>
    public double Tolerance { get; }

    /// <summary>Polls a window spans at least (four 15 s polls: a minute against a dispatch latency of seconds).</summary>
    public int MinPolls { get; init; } = 4;

    /// <summary>Polls after which a window closes whatever happened.</summary>
    public int MaxPolls { get; init; } = 20;

    /// <summary>Disagreeing windows in a row before the disagreement is reported.</summary>
    public int Persistence { get; init; } = 3;

    /// <summary>Events over server of the last window that could be compared, or null before the first.</summary>
    public double? Ratio { get; private set; }

    /// <summary>Both sides of the last window that could be compared (events, server), for the log line.</summary>
    public (double Events, double Server) LastWindow { get; private set; }

    /// <summary>The verdict of the last window that could be compared.</summary>
    public AgreementVerdict LastVerdict { get; private set; } = AgreementVerdict.TooLittle;

    /// <summary>A disagreement (or a factor of 1,000) that lasted <see cref="Persistence"/> windows, until a window agrees again.</summary>
    public AgreementVerdict? Reported { get; private set; }

    /// <summary>
    /// Adds one poll's increases: <paramref name="events"/> as the events add up, <paramref name="server"/> as the server
    /// counted, <paramref name="lost"/> what the events counted as lost in the same time stood for, in the quantity's unit
    /// (flushes; for bytes, the lost events times the window's average write size): it explains events falling short.
    /// <paramref name="extra"/> is what the server counted outside the compared databases that the events may still hold
    /// (an instance-wide histogram target counts hidden databases too): a surplus up to that much is taken as the server's
    /// own, in the ratio and the verdict.
    /// Returns the verdict when this poll closed a window, else null.
    /// </summary>
    public AgreementVerdict? Observe(double events, double server, double lost = 0, double extra = 0)
    {
        _events += Math.Max(0, events);
        _server += Math.Max(0, server);
        _lost += Math.Max(0, lost);
        _extra += Math.Max(0, extra);
        _polls++;
        if (_polls < MinPolls || (_server < MinServer && _polls < MaxPolls))
        {
            return null;
        }

        // A surplus up to the extra is the server's too (counted outside the compared databases, held by the events).
        var counted = _server + Math.Min(_extra, Math.Max(0, _events - _server));
        var verdict = _server < MinServer ? AgreementVerdict.TooLittle : Judge(_events, counted, _lost);
        if (verdict != AgreementVerdict.TooLittle)
        {
            Ratio = _events / counted;
            LastWindow = (_events, counted);
            LastVerdict = verdict;
            Track(verdict);
        }

        _events = _server = _lost = _extra = 0;
        _polls = 0;
        return verdict;
    }

    /// <summary>Forgets the window in progress and any streak (after a unit was corrected, or the source reconnected).</summary>
    public void Restart()
    {
        _events = _server = _lost = _extra = 0;
        _polls = 0;
        _streak = 0;
        Reported = null;
    }

    private AgreementVerdict Judge(double events, double server, double lost)
    {
        var ratio = events / server;
        if (IsNear(ratio, 1000))
        {
            return AgreementVerdict.ThousandTimesMore;
        }

        if (IsNear(ratio, 0.001))
        {
            return AgreementVerdict.ThousandTimesLess;
        }

        var agrees = Quantity switch
        {
            // Lost events explain a shortfall of flushes and bytes, never a surplus.
            AgreementQuantity.Flushes or AgreementQuantity.FlushedBytes =>
                Math.Abs(ratio - 1) <= Tolerance || (ratio < 1 && lost > 0 && (events + lost) / server >= 1 - Tolerance),
            // Instance-wide waits include databases the session does not watch: only a surplus is impossible.
            AgreementQuantity.WriteLogTime => ratio <= 1 + Tolerance,
            // A belief still to check: only the unit is judged.
            _ => true,
        };
        return agrees ? AgreementVerdict.Agrees : AgreementVerdict.Disagrees;
    }

    private void Track(AgreementVerdict verdict)
    {
        if (verdict == AgreementVerdict.Agrees)
        {
            _streak = 0;
            Reported = null;
            return;
        }

        _streak = verdict == _streakVerdict ? _streak + 1 : 1;
        _streakVerdict = verdict;
        if (_streak >= Persistence)
        {
            Reported = verdict;
        }
    }

    /// <summary>Within a factor of 1.25 of <paramref name="target"/>: far outside any tolerance, and clean enough to be a unit.</summary>
    private static bool IsNear(double ratio, double target) => ratio >= target / 1.25 && ratio <= target * 1.25;
}
