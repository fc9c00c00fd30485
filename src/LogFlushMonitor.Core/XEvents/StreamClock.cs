namespace LogFlushMonitor.Core.XEvents;

/// <summary>
/// The server's "now" as a reader of its events can tell it, without trusting the two machines' clocks to agree: the
/// newest event timestamp seen, plus the local time elapsed since it arrived. While buffers keep arriving it follows
/// the server's clock (behind by the dispatch delay of the last buffer, a few seconds at most); when nothing arrives
/// (a log device that completes nothing may silence every flush event) it goes on with the local clock, so an
/// outstanding flush keeps ageing. A skew between the server's clock and ours cancels out.
/// </summary>
/// <remarks>One writer (the reading thread, once per buffer); <see cref="Now"/> may be called from any thread.</remarks>
public sealed class StreamClock
{
    // Server time minus local time, in ticks, as of the last observation; long.MinValue until the first.
    private long _offsetTicks = long.MinValue;
    private long _newestTicks = long.MinValue;

    /// <summary>
    /// Records that events up to <paramref name="newestEventUtc"/> (server time) had arrived at <paramref name="localUtc"/>.
    /// Only a newer event moves the clock: a buffer with nothing new must not set it back to the last event's time.
    /// </summary>
    public void Observe(DateTime newestEventUtc, DateTime localUtc)
    {
        if (newestEventUtc == default || newestEventUtc.Ticks <= _newestTicks)
        {
            return;
        }

        _newestTicks = newestEventUtc.Ticks;
        Volatile.Write(ref _offsetTicks, newestEventUtc.Ticks - localUtc.Ticks);
    }

    /// <summary>
    /// A new connection: the next buffer sets the clock whatever its time (a server whose clock was set back, or that
    /// restarted, must not leave it stuck); until then it runs on as before.
    /// </summary>
    public void Restart() => _newestTicks = long.MinValue;

    /// <summary>
    /// The server's now at local time <paramref name="localUtc"/>: the newest event's time plus what has elapsed here
    /// since it arrived; the local time itself before any event arrived.
    /// </summary>
    public DateTime Now(DateTime localUtc)
    {
        var offset = Volatile.Read(ref _offsetTicks);
        if (offset == long.MinValue)
        {
            return localUtc;
        }

        var ticks = Math.Clamp(localUtc.Ticks + offset, DateTime.MinValue.Ticks, DateTime.MaxValue.Ticks);
        return new DateTime(ticks, DateTimeKind.Utc);
    }
}
