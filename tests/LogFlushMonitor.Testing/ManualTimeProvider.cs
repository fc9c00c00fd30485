namespace LogFlushMonitor.Testing;

/// <summary>
/// A TimeProvider whose clock moves only when a test calls <see cref="Advance"/>; timers due by then fire
/// synchronously, in due order.
/// </summary>
public sealed class ManualTimeProvider(DateTimeOffset? start = null) : TimeProvider
{
    private readonly Lock _gate = new();
    private readonly List<ManualTimer> _timers = [];
    private DateTimeOffset _now = start ?? new DateTimeOffset(2026, 11, 22, 12, 0, 0, TimeSpan.Zero);

    public override DateTimeOffset GetUtcNow()
    {
        lock (_gate)
        {
            return _now;
        }
    }

    public override TimeZoneInfo LocalTimeZone => TimeZoneInfo.Utc;

    /// <summary>Timestamps follow the manual clock too, so elapsed-time measurements are virtual.</summary>
    public override long TimestampFrequency => TimeSpan.TicksPerSecond;

    /// <inheritdoc />
    public override long GetTimestamp() => GetUtcNow().UtcTicks;

    /// <summary>Timers currently scheduled.</summary>
    public int PendingTimers
    {
        get
        {
            lock (_gate)
            {
                return _timers.Count(t => t.Due is not null);
            }
        }
    }

    public override ITimer CreateTimer(TimerCallback callback, object? state, TimeSpan dueTime, TimeSpan period)
    {
        var timer = new ManualTimer(this, callback, state);
        timer.Change(dueTime, period);
        return timer;
    }

    /// <summary>
    /// Moves the clock forward by <paramref name="by"/> at once, as on a machine that stalled, then fires the timers
    /// that were due by then (in due order): unlike <see cref="Advance"/>, code woken by a timer never sees a time in
    /// between.
    /// </summary>
    public void Jump(TimeSpan by)
    {
        List<ManualTimer> due;
        lock (_gate)
        {
            _now += by;
            due = [.. _timers.Where(t => t.Due is { } d && d <= _now).OrderBy(t => t.Due)];
            foreach (var t in due)
            {
                t.Due = t.Period > TimeSpan.Zero ? _now + t.Period : null;
            }
        }

        foreach (var t in due)
        {
            t.Fire();
        }
    }

    /// <summary>Moves the clock forward by <paramref name="by"/>, firing each timer at its due time.</summary>
    public void Advance(TimeSpan by)
    {
        DateTimeOffset target;
        lock (_gate)
        {
            target = _now + by;
        }

        while (true)
        {
            ManualTimer? next;
            lock (_gate)
            {
                next = _timers.Where(t => t.Due is { } d && d <= target).OrderBy(t => t.Due).FirstOrDefault();
                if (next is null)
                {
                    _now = target;
                    return;
                }

                _now = next.Due!.Value;
                next.Due = next.Period > TimeSpan.Zero ? _now + next.Period : null;
            }

            next.Fire();
        }
    }

    /// <summary>
    /// Advances in <paramref name="step"/>s until <paramref name="done"/> or <paramref name="limit"/> of virtual time.
    /// Each step is taken only once the code under test waits on a timer of this clock (at least
    /// <paramref name="waiters"/> pending), never while its real I/O is in flight: the virtual times it stamps and the
    /// delays it schedules are exact, however slow the machine is.
    /// </summary>
    public async Task<bool> AdvanceUntilAsync(Func<bool> done, TimeSpan step, TimeSpan limit, int waiters = 1)
    {
        ArgumentNullException.ThrowIfNull(done);
        for (var elapsed = TimeSpan.Zero; elapsed <= limit;)
        {
            await Eventually.Until(() => done() || PendingTimers >= waiters, "the code under test to wait on the manual clock").ConfigureAwait(false);
            if (done())
            {
                return true;
            }

            // Stop at the next timer's due time: what its callback starts then runs at that time, not at the step's end.
            var by = NextDueIn() is { } next && next < step ? next : step;
            Advance(by);
            elapsed += by;
        }

        return done();
    }

    /// <summary>Virtual time until the earliest pending timer is due, or null when none is pending.</summary>
    public TimeSpan? NextDueIn()
    {
        lock (_gate)
        {
            var due = _timers.Where(t => t.Due is not null).Select(t => t.Due!.Value).DefaultIfEmpty().Min();
            return due == default ? null : due - _now;
        }
    }

    private sealed class ManualTimer(ManualTimeProvider owner, TimerCallback callback, object? state) : ITimer
    {
        public DateTimeOffset? Due { get; set; }

        public TimeSpan Period { get; private set; }

        public void Fire() => callback(state);

        public bool Change(TimeSpan dueTime, TimeSpan period)
        {
            lock (owner._gate)
            {
                Period = period == Timeout.InfiniteTimeSpan ? TimeSpan.Zero : period;
                Due = dueTime == Timeout.InfiniteTimeSpan ? null : owner._now + dueTime;
                if (!owner._timers.Contains(this))
                {
                    owner._timers.Add(this);
                }
            }

            return true;
        }

        public void Dispose()
        {
            lock (owner._gate)
            {
                owner._timers.Remove(this);
            }
        }

        public ValueTask DisposeAsync()
        {
            Dispose();
            return ValueTask.CompletedTask;
        }
    }
}
