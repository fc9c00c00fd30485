namespace LogFlushMonitor.SqlServer.Tests.Scripted;

/// <summary>A clock that moves only when told to (Microsoft.Extensions.TimeProvider.Testing is not served here).</summary>
public sealed class ManualTimeProvider : TimeProvider
{
    private readonly Lock _gate = new();
    private readonly List<ManualTimer> _timers = [];
    private DateTimeOffset _now = new(2026, 11, 22, 12, 0, 0, TimeSpan.Zero);

    /// <inheritdoc />
    public override DateTimeOffset GetUtcNow()
    {
        lock (_gate)
        {
            return _now;
        }
    }

    /// <inheritdoc />
    public override ITimer CreateTimer(TimerCallback callback, object? state, TimeSpan dueTime, TimeSpan period)
    {
        var timer = new ManualTimer(this, callback, state);
        timer.Change(dueTime, period);
        return timer;
    }

    /// <summary>Moves the clock and fires what fell due (periodic timers re-arm).</summary>
    public void Advance(TimeSpan by)
    {
        List<ManualTimer> fired;
        lock (_gate)
        {
            _now += by;
            fired = [.. _timers.Where(t => t.Due <= _now)];
            foreach (var timer in fired)
            {
                timer.Due = timer.Period is { } p && p > TimeSpan.Zero ? _now + p : null;
            }
        }

        foreach (var timer in fired)
        {
            timer.Fire();
        }
    }

    /// <summary>
    /// Advances in <paramref name="step"/>s, letting real I/O run between steps, until <paramref name="done"/> or
    /// <paramref name="limit"/> of virtual time.
    /// </summary>
    public async Task<bool> AdvanceUntilAsync(Func<bool> done, TimeSpan step, TimeSpan limit)
    {
        for (var elapsed = TimeSpan.Zero; elapsed <= limit; elapsed += step)
        {
            for (var i = 0; i < 4 && !done(); i++)
            {
                await Task.Delay(5);
            }

            if (done())
            {
                return true;
            }

            Advance(step);
        }

        return done();
    }

    private sealed class ManualTimer(ManualTimeProvider owner, TimerCallback callback, object? state) : ITimer
    {
        public DateTimeOffset? Due { get; set; }

        public TimeSpan? Period { get; private set; }

        public bool Change(TimeSpan dueTime, TimeSpan period)
        {
            lock (owner._gate)
            {
                Due = dueTime == Timeout.InfiniteTimeSpan ? null : owner._now + dueTime;
                Period = period == Timeout.InfiniteTimeSpan ? null : period;
                if (!owner._timers.Contains(this))
                {
                    owner._timers.Add(this);
                }
            }

            return true;
        }

        public void Fire() => callback(state);

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
