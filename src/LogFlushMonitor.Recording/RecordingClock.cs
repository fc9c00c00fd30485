namespace LogFlushMonitor.Recording;

/// <summary>
/// The clock rule for a recording's times, the same as the .xel reader's for a buffer: a line's time more than a day
/// (<see cref="Tolerance"/>) from the times of the lines around it is a damaged value, not an event of another day, so
/// one flipped digit cannot stretch a recording over decades (a 63-year span, 0.0 flushes/s, "ok"; a paced replay that
/// waits for 2090). What "around it" means:
/// <list type="bullet">
/// <item>the clock is the median of the last <see cref="Window"/> accepted times; a line within a day of the last accepted
/// time or of that median is accepted at once (the common path: one comparison);</item>
/// <item>any other line is a suspect and is held: a following line the clock accepts shows the suspects were isolated
/// (they are malformed); three suspects of which at least two lie within a day of their median are a new part of the
/// recording (a service that recorded again days later into the same file): the clock starts again from them;</item>
/// <item>the first three timed lines are judged together the same way (nothing before them to judge by).</item>
/// </list>
/// </summary>
/// <remarks>Owned by one replay; not thread-safe.</remarks>
internal sealed class RecordingClock
{
    /// <summary>How far a time may lie from the lines around it.</summary>
    public const long Tolerance = TimeSpan.TicksPerDay;

    /// <summary>Accepted times the median is taken over.</summary>
    public const int Window = 15;

    /// <summary>Suspects that, agreeing, start the clock again.</summary>
    public const int Quorum = 3;

    private readonly long[] _times = new long[Window];
    private int _count;
    private int _next;
    private long _last;

    /// <summary>Whether any time was accepted (since the start or the last new part).</summary>
    public bool Settled => _count > 0;

    /// <summary>Whether <paramref name="ticks"/> lies within a day of the last accepted time or of the clock's median.</summary>
    public bool Accepts(long ticks) =>
        _count > 0 && (Near(ticks, _last) || Near(ticks, Median()));

    /// <summary>Takes <paramref name="ticks"/> as the newest accepted time.</summary>
    public void Accept(long ticks)
    {
        _times[_next] = ticks;
        _next = (_next + 1) % Window;
        _count = Math.Min(_count + 1, Window);
        _last = ticks;
    }

    /// <summary>Forgets every accepted time (a new part of the recording starts).</summary>
    public void Reset() => _count = _next = 0;

    /// <summary>The median of the accepted times (the clock; 0 before any).</summary>
    public long Median()
    {
        if (_count == 0)
        {
            return 0;
        }

        Span<long> sorted = stackalloc long[Window];
        _times.AsSpan(0, _count).CopyTo(sorted);
        sorted = sorted[.._count];
        sorted.Sort();
        return sorted[_count / 2];
    }

    /// <summary>The median of <paramref name="times"/> (the upper one of an even count).</summary>
    public static long MedianOf(ReadOnlySpan<long> times)
    {
        Span<long> sorted = stackalloc long[times.Length];
        times.CopyTo(sorted);
        sorted.Sort();
        return sorted[times.Length / 2];
    }

    /// <summary>Whether two times lie within <see cref="Tolerance"/> of each other (no overflow for any pair of ticks).</summary>
    public static bool Near(long a, long b) => a >= b ? a - b <= Tolerance : b - a <= Tolerance;
}
