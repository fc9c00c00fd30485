namespace LogFlushMonitor.Simulation;

/// <summary>
/// A database's synchronous availability-group secondary (and an asynchronous one beside it): each commit, once its
/// local flush completes, waits HADR_SYNC_COMMIT for the synchronous secondary to harden the log. The secondary's
/// harden round trip is <paramref name="BaseMicroseconds"/> and slows to the peak of <paramref name="Slowdown"/> in a
/// recurring window of that shape, while the local log device stays as fast as it was.
/// </summary>
/// <param name="Group">The availability group's name.</param>
/// <param name="Primary">The replica hosting the primary (this instance's server name).</param>
/// <param name="Synchronous">The synchronous-commit secondary.</param>
/// <param name="Asynchronous">The asynchronous-commit secondary.</param>
/// <param name="BaseMicroseconds">The synchronous secondary's usual harden round trip.</param>
/// <param name="Slowdown">When the secondary slows down; its peak is the round trip at the worst; null when it never does.</param>
internal sealed record SyncReplica(string Group, string Primary, string Synchronous, string Asynchronous, double BaseMicroseconds, WritelogSpike? Slowdown)
{
    /// <summary>How the asynchronous secondary falls behind (a slow link), or null when it trails by a few seconds throughout.</summary>
    public AsyncLag? AsyncLag { get; init; }

    /// <summary>The synchronous secondary's harden round trip at <paramref name="sinceStart"/>, with a little jitter.</summary>
    public long DelayMicroseconds(SimRandom rng, TimeSpan sinceStart)
    {
        var mean = Slowdown is { } slowdown ? BaseMicroseconds + (slowdown.Intensity(sinceStart) * (slowdown.PeakMicroseconds - BaseMicroseconds)) : BaseMicroseconds;
        return (long)(mean * rng.Between(0.85, 1.15));
    }
}
