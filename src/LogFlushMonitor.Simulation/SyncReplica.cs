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

    /// <summary>When the synchronous secondary stops synchronizing (its connection lost), or null when it never does.</summary>
    public SyncLoss? Loss { get; init; }

    /// <summary>
    /// How long the synchronous secondary has been disconnected at <paramref name="sinceStart"/>, or null while it is
    /// connected.
    /// </summary>
    public TimeSpan? DisconnectedFor(TimeSpan sinceStart) =>
        Loss is { } loss && sinceStart >= loss.After && sinceStart < loss.After + loss.For ? sinceStart - loss.After : null;

    /// <summary>The synchronous secondary's harden round trip at <paramref name="sinceStart"/>, with a little jitter.</summary>
    public long DelayMicroseconds(SimRandom rng, TimeSpan sinceStart)
    {
        var mean = Slowdown is { } slowdown ? BaseMicroseconds + (slowdown.Intensity(sinceStart) * (slowdown.PeakMicroseconds - BaseMicroseconds)) : BaseMicroseconds;
        return (long)(mean * rng.Between(0.85, 1.15));
    }
}

/// <summary>
/// The synchronous secondary loses its connection at <paramref name="After"/> for <paramref name="For"/>. Past the session
/// timeout the primary "temporarily shifts into asynchronous-commit mode for that secondary replica" and commits stop
/// waiting for it (Microsoft, "Differences between availability modes for an Always On availability group"); the
/// secondary's row is NOT SYNCHRONIZING and its last_commit_time stays where it was, so it falls behind a second every
/// second. The session timeout itself (10 s by default, commits waiting meanwhile) is not simulated: commits stop waiting
/// at once.
/// </summary>
/// <param name="After">When the connection is lost, after the simulation start.</param>
/// <param name="For">How long it stays lost.</param>
internal sealed record SyncLoss(TimeSpan After, TimeSpan For);
