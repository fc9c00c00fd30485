namespace LogFlushMonitor.Core.Aggregation;

/// <summary>
/// Turns successive readings of a server-side cumulative value (a BULK_COUNT counter, wait stats, file
/// stats) into a total increase observed since monitoring began and a rate over the last interval.
/// Restart-safe: a new instance start (a new <c>epoch</c>) starts a new series counted from zero; a reading
/// lower than the last without a restart starts a new series from that reading. The increase is never
/// negative and nothing is counted twice.
/// </summary>
/// <remarks>A mutable struct held in a field of its owner (never copied); not thread-safe.</remarks>
public struct CumulativeTracker
{
    private long _last;
    private DateTime _lastUtc;
    private int _epoch;
    private bool _started;

    /// <summary>Increase observed since monitoring began, in the counter's own unit.</summary>
    public long Total { get; private set; }

    /// <summary>Per-second rate over the last interval, or null when none can be computed honestly.</summary>
    public double? LastRate { get; private set; }

    /// <summary>Increase over the last interval.</summary>
    public long LastIncrease { get; private set; }

    /// <summary>How many times a new series started (restarts, resets, re-created databases).</summary>
    public int Resets { get; private set; }

    /// <summary>Applies one reading and returns the increase it adds.</summary>
    /// <param name="value">The cumulative value read.</param>
    /// <param name="timestampUtc">When it was read.</param>
    /// <param name="epoch">The instance's start epoch (changes when the instance restarted).</param>
    /// <param name="epochStartUtc">When the current epoch began (the instance start time), or default if unknown.</param>
    public long Update(long value, DateTime timestampUtc, int epoch, DateTime epochStartUtc = default)
    {
        if (!_started)
        {
            // The first reading is the baseline: what happened before monitoring began is not ours to count.
            _started = true;
            _last = value;
            _lastUtc = timestampUtc;
            _epoch = epoch;
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
            increase = Math.Max(0, value);
            var elapsed = epochStartUtc == default ? 0 : (timestampUtc - epochStartUtc).TotalSeconds;
            rate = elapsed > 0 ? increase / elapsed : null;
        }
        else if (value < _last)
        {
            // Lower without a restart: a reset (DBCC SQLPERF CLEAR, a re-created database) or an aggregate that
            // lost a member (_Total after a drop). Which one is unknowable, so start a new series from this
            // reading and count nothing for the interval: under-counting one interval beats counting twice.
            Resets++;
            increase = 0;
            rate = null;
        }
        else
        {
            increase = value - _last;
            var elapsed = (timestampUtc - _lastUtc).TotalSeconds;
            rate = elapsed > 0 ? increase / elapsed : null;
        }

        _last = value;
        _lastUtc = timestampUtc;
        _epoch = epoch;
        Total += increase;
        LastIncrease = increase;
        LastRate = rate;
        return increase;
    }
}
