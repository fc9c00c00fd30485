namespace LogFlushMonitor.Core.Aggregation;

/// <summary>What a tracker made of a reading.</summary>
public enum ReadingVerdict
{
    /// <summary>The reading was applied.</summary>
    Accepted,

    /// <summary>Rejected: a cumulative value, a size or a count below zero.</summary>
    Negative,

    /// <summary>Rejected: a rise faster than <see cref="CumulativeTracker.MaxIncreasePerSecond"/> since the reading it is measured from.</summary>
    TooFast,

    /// <summary>Rejected: a value the counter cannot take (a percentage past 100, a fraction past its base, a size past SQL Server's limits).</summary>
    OutOfRange,
}

/// <summary>
/// Turns successive readings of a server-side cumulative value (a BULK_COUNT counter, wait stats, file stats) into
/// the increase observed since monitoring began and a rate over the last interval. The exported total never
/// decreases, is never negative and counts nothing twice (docs/metrics.md, "Cumulative values read from the server"):
/// <list type="bullet">
/// <item>the first reading is a baseline; a new instance start (a new <c>epoch</c>) counts the reading itself, the
/// increase since the restart;</item>
/// <item>a reading below zero, or one that rose faster than <see cref="MaxIncreasePerSecond"/> since the reading it is
/// measured from, is rejected (<see cref="LastVerdict"/>) and changes nothing;</item>
/// <item>a reading lower than the last counted one, without a restart, is held as a suspected reset and counts
/// nothing. If the next reading is back at or above the last counted one, the dip was a glitch: only the rise above
/// the last counted value is counted. If it is lower, the reset is confirmed: the rise from the low reading is
/// counted and the low reading's interval is not (under-counting one interval beats counting twice).</item>
/// </list>
/// </summary>
/// <remarks>A mutable struct held in a field of its owner (never copied); not thread-safe.</remarks>
public struct CumulativeTracker
{
    /// <summary>
    /// The fastest any cumulative value SQL Server reports can rise: 2^40 (about 1.1 × 10^12) units per second. No server
    /// flushes, writes or waits that much (bytes at a terabyte a second, flushes or milliseconds of wait a thousand
    /// times beyond the fastest published figures), yet a counter that wrapped or a forged row (-1, then 2^63 - 1)
    /// does. The allowance is per second of elapsed time, at least one second.
    /// </summary>
    public const long MaxIncreasePerSecond = 1L << 40;

    private long _last;
    private DateTime _lastUtc;
    private long _pending;
    private DateTime _pendingUtc;
    private bool _hasPending;
    private int _epoch;
    private bool _started;

    /// <summary>Increase observed since monitoring began, in the counter's own unit.</summary>
    public long Total { get; private set; }

    /// <summary>Per-second rate over the last interval, or null when none can be computed honestly.</summary>
    public double? LastRate { get; private set; }

    /// <summary>Increase over the last interval.</summary>
    public long LastIncrease { get; private set; }

    /// <summary>How many times a new series started (restarts, confirmed resets, re-created databases).</summary>
    public int Resets { get; private set; }

    /// <summary>Readings lower than the last counted one that came back up at the next reading (glitches, not counted twice).</summary>
    public int Glitches { get; private set; }

    /// <summary>What the last call to <see cref="Update"/> made of its reading.</summary>
    public ReadingVerdict LastVerdict { get; private set; }

    /// <summary>Applies one reading and returns the increase it adds (0 when it is rejected or only a baseline).</summary>
    /// <param name="value">The cumulative value read.</param>
    /// <param name="timestampUtc">When it was read.</param>
    /// <param name="epoch">The instance's start epoch (changes when the instance restarted).</param>
    /// <param name="epochStartUtc">When the current epoch began (the instance start time), or default if unknown.</param>
    public long Update(long value, DateTime timestampUtc, int epoch, DateTime epochStartUtc = default)
    {
        LastVerdict = Check(value, timestampUtc, epoch, epochStartUtc);
        if (LastVerdict != ReadingVerdict.Accepted)
        {
            // Nothing of the reading is kept: the next one is measured from the last good one.
            LastIncrease = 0;
            LastRate = null;
            return 0;
        }

        if (!_started)
        {
            // The first reading is the baseline: what happened before monitoring began is not ours to count.
            _started = true;
            Counted(value, timestampUtc, epoch);
            LastRate = null;
            LastIncrease = 0;
            return 0;
        }

        long increase;
        double? rate;
        if (epoch != _epoch)
        {
            // The instance restarted: the server counts from zero again, so the reading is the increase since then.
            Resets++;
            increase = value;
            var elapsed = epochStartUtc == default ? 0 : (timestampUtc - epochStartUtc).TotalSeconds;
            rate = elapsed > 0 ? increase / elapsed : null;
        }
        else if (value >= _last)
        {
            // Normal growth; after a dip that came back (a glitch: a member missing from _Total for one poll, a
            // momentary low reading), only the rise above what was counted before the dip counts.
            Glitches += _hasPending ? 1 : 0;
            increase = value - _last;
            var elapsed = (timestampUtc - _lastUtc).TotalSeconds;
            rate = elapsed > 0 ? increase / elapsed : null;
        }
        else if (!_hasPending || value < _pending)
        {
            // Lower than counted: a reset (DBCC SQLPERF CLEAR, a re-created or restored database) or a glitch; which
            // one, the next reading tells. Nothing is counted meanwhile; a still lower reading becomes the new start.
            _pending = value;
            _pendingUtc = timestampUtc;
            _hasPending = true;
            LastIncrease = 0;
            LastRate = null;
            return 0;
        }
        else
        {
            // Still below the last counted value but rising from the low reading: the reset is confirmed.
            Resets++;
            increase = value - _pending;
            var elapsed = (timestampUtc - _pendingUtc).TotalSeconds;
            rate = elapsed > 0 ? increase / elapsed : null;
        }

        Counted(value, timestampUtc, epoch);
        // Each increase is bounded by MaxIncreasePerSecond; the sum still saturates rather than wrap after centuries.
        Total = Total > long.MaxValue - increase ? long.MaxValue : Total + increase;
        LastIncrease = increase;
        LastRate = rate;
        return increase;
    }

    private void Counted(long value, DateTime timestampUtc, int epoch)
    {
        _last = value;
        _lastUtc = timestampUtc;
        _epoch = epoch;
        _hasPending = false;
    }

    /// <summary>Whether a reading can be a value of this counter, measured from the reading it would be counted from.</summary>
    private readonly ReadingVerdict Check(long value, DateTime timestampUtc, int epoch, DateTime epochStartUtc)
    {
        if (value < 0)
        {
            return ReadingVerdict.Negative;
        }

        long from;
        DateTime fromUtc;
        if (!_started)
        {
            // The baseline: counted from zero since the instance started, when that is known.
            if (epochStartUtc == default)
            {
                return ReadingVerdict.Accepted;
            }

            (from, fromUtc) = (0, epochStartUtc);
        }
        else if (epoch != _epoch)
        {
            // A restart: from zero at the new start, which came after the last reading anyway.
            (from, fromUtc) = (0, epochStartUtc == default ? _lastUtc : epochStartUtc);
        }
        else if (value >= _last)
        {
            (from, fromUtc) = (_last, _lastUtc);
        }
        else if (_hasPending && value >= _pending)
        {
            (from, fromUtc) = (_pending, _pendingUtc);
        }
        else
        {
            return ReadingVerdict.Accepted; // lower: a suspected reset, counted as nothing
        }

        var seconds = Math.Max(1.0, (timestampUtc - fromUtc).TotalSeconds);
        return value - from > seconds * MaxIncreasePerSecond ? ReadingVerdict.TooFast : ReadingVerdict.Accepted;
    }
}
