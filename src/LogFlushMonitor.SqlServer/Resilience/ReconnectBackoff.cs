namespace LogFlushMonitor.SqlServer.Resilience;

/// <summary>
/// Capped exponential backoff with "equal jitter": attempt n waits between half and all of
/// min(cap, base × 2^n). Never zero (no tight loop against a server that rejects us), never above the cap, and
/// spread so that a fleet restarting together does not reconnect in step.
/// </summary>
public sealed class ReconnectBackoff(TimeSpan baseDelay, TimeSpan maxDelay, Func<double>? random = null)
{
    private readonly Func<double> _random = random ?? Random.Shared.NextDouble;

    /// <summary>The first ceiling.</summary>
    public TimeSpan BaseDelay { get; } = baseDelay;

    /// <summary>The cap.</summary>
    public TimeSpan MaxDelay { get; } = maxDelay;

    /// <summary>The ceiling of attempt <paramref name="attempt"/> (0-based) before jitter.</summary>
    public TimeSpan Ceiling(int attempt)
    {
        var ticks = BaseDelay.Ticks * Math.Pow(2, Math.Clamp(attempt, 0, 40));
        return ticks >= MaxDelay.Ticks ? MaxDelay : TimeSpan.FromTicks((long)ticks);
    }

    /// <summary>The delay before retry <paramref name="attempt"/> (0-based).</summary>
    public TimeSpan Delay(int attempt)
    {
        var ceiling = Ceiling(attempt).Ticks;
        return TimeSpan.FromTicks(ceiling / 2 + (long)(ceiling / 2 * Math.Clamp(_random(), 0, 1)));
    }

    /// <summary>
    /// The delay before retrying a failure of <paramref name="failure"/>'s class: transient failures and bugs back off
    /// from the base; a failure only a person can fix (a login, a permission) waits the capped delay from the start.
    /// </summary>
    public TimeSpan Delay(int attempt, FailureClass failure) => Delay(failure == FailureClass.Persistent ? int.MaxValue : attempt);
}
