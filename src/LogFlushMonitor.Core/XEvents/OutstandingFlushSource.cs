namespace LogFlushMonitor.Core.XEvents;

/// <summary>One database's flushes started and not completed, with the age of the oldest at the source's "now".</summary>
/// <param name="DatabaseId">database_id.</param>
/// <param name="Count">Flushes outstanding.</param>
/// <param name="OldestAgeSeconds">Seconds since the oldest of them started (never negative).</param>
public readonly record struct OutstandingFlushReading(int DatabaseId, int Count, double OldestAgeSeconds);

/// <summary>
/// Where a source keeps one instance's flushes that started and have not completed: its <see cref="FlushPairTable"/>
/// (which pairs log_flush_start with log_flush_complete on the reading thread, before the bounded channel) and the clock
/// the starts' timestamps are on. The aggregation holds one per instance and reads it when the metrics are collected,
/// from the collection thread: a start that never completes ages with that clock, it does not vanish, and nothing of
/// it travels through the channel (where a dropped complete would look like a stall).
/// </summary>
/// <remarks>
/// The table is asked for each time (a live stream makes a new one when it reconnects with other units); the clock says
/// what "now" is on the timestamps' own scale: the server's for a live stream, virtual time for a simulation or a replay.
/// <see cref="Close"/> ends it: a source that stops (the instance goes away, a fallback to histogram mode) closes it, and
/// its series go with it.
/// </remarks>
public sealed class OutstandingFlushSource
{
    private readonly Func<FlushPairTable?> _table;
    private readonly Func<DateTime> _now;
    private volatile bool _closed;

    /// <summary>Creates the source of <paramref name="instance"/>.</summary>
    /// <param name="instance">The instance name the samples carry.</param>
    /// <param name="table">The current pair table (null while there is none); must be safe to read from other threads (concurrentReaders).</param>
    /// <param name="now">Now, on the scale of the table's start timestamps (UTC).</param>
    public OutstandingFlushSource(string instance, Func<FlushPairTable?> table, Func<DateTime> now)
    {
        ArgumentNullException.ThrowIfNull(instance);
        ArgumentNullException.ThrowIfNull(table);
        ArgumentNullException.ThrowIfNull(now);
        Instance = instance;
        _table = table;
        _now = now;
    }

    /// <summary>The instance name.</summary>
    public string Instance { get; }

    /// <summary>Whether the source stopped (nothing is read any more).</summary>
    public bool IsClosed => _closed;

    /// <summary>The source stopped: its outstanding flushes are no longer reported.</summary>
    public void Close() => _closed = true;

    /// <summary>
    /// Appends every database that has flushes outstanding now, with the age of its oldest at the source's now. Safe
    /// from any thread; nothing is appended once closed.
    /// </summary>
    public void Read(List<OutstandingFlushReading> into)
    {
        ArgumentNullException.ThrowIfNull(into);
        if (_closed || _table() is not { } table)
        {
            return;
        }

        var now = _now();
        foreach (var o in table.Outstanding())
        {
            into.Add(new OutstandingFlushReading(o.DatabaseId, o.Count, Math.Max(0, (now - o.OldestStartUtc).TotalSeconds)));
        }
    }
}
