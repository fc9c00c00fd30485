namespace LogFlushMonitor.Simulation;

/// <summary>
/// A recurring window in which an instance's log device completes no write (a storage path failover, a throttled
/// cloud disk, a full write cache): it starts at <paramref name="Offset"/> after the simulation start and every
/// <paramref name="Period"/> after, and lasts <paramref name="Duration"/>. A flush issued in the window starts and
/// completes only when the window ends, and so does every session waiting for it; nothing else completes meanwhile.
/// </summary>
/// <param name="Offset">Start of the first stall, after the simulation start.</param>
/// <param name="Period">Time between stall starts (longer than <paramref name="Duration"/>).</param>
/// <param name="Duration">How long each stall lasts.</param>
internal sealed record LogStall(TimeSpan Offset, TimeSpan Period, TimeSpan Duration)
{
    /// <summary>The end of the stall <paramref name="sinceStart"/> falls in (time since the simulation start), or null outside one.</summary>
    public TimeSpan? EndOf(TimeSpan sinceStart)
    {
        if (sinceStart < Offset)
        {
            return null;
        }

        var into = (sinceStart - Offset).Ticks % Period.Ticks;
        return into < Duration.Ticks ? sinceStart + TimeSpan.FromTicks(Duration.Ticks - into) : null;
    }
}
