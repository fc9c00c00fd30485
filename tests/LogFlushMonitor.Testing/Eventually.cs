namespace LogFlushMonitor.Testing;

/// <summary>
/// The one wait-until helper: polls a condition until it holds or a generous deadline passes. Tests wait for what
/// they need (a timer armed, a sample delivered, a scrape done), never for a fixed time; the short poll is the only
/// wall-clock wait, and it ends as soon as the condition holds.
/// </summary>
public static class Eventually
{
    /// <summary>The default deadline: generous, so a loaded machine slows a test down instead of failing it.</summary>
    public static readonly TimeSpan DefaultTimeout = TimeSpan.FromSeconds(30);

    /// <summary>Completes when <paramref name="condition"/> holds.</summary>
    /// <exception cref="TimeoutException">When it still does not hold after <paramref name="timeout"/>, naming <paramref name="what"/>.</exception>
    public static async Task Until(Func<bool> condition, string what = "the condition", TimeSpan? timeout = null)
    {
        ArgumentNullException.ThrowIfNull(condition);
        var limit = timeout ?? DefaultTimeout;
        var started = TimeProvider.System.GetTimestamp();
        var poll = 1;
        while (!condition())
        {
            if (TimeProvider.System.GetElapsedTime(started) > limit)
            {
                throw new TimeoutException($"Waited {limit.TotalSeconds:N0} s for {what}.");
            }

            await Task.Delay(poll).ConfigureAwait(false);
            poll = Math.Min(poll * 2, 20);
        }
    }

    /// <summary>Completes when <paramref name="condition"/> holds (an asynchronous check, e.g. an HTTP query).</summary>
    /// <exception cref="TimeoutException">When it still does not hold after <paramref name="timeout"/>, naming <paramref name="what"/>.</exception>
    public static async Task Until(Func<Task<bool>> condition, string what = "the condition", TimeSpan? timeout = null, TimeSpan? poll = null)
    {
        ArgumentNullException.ThrowIfNull(condition);
        var limit = timeout ?? DefaultTimeout;
        var started = TimeProvider.System.GetTimestamp();
        while (!await condition().ConfigureAwait(false))
        {
            if (TimeProvider.System.GetElapsedTime(started) > limit)
            {
                throw new TimeoutException($"Waited {limit.TotalSeconds:N0} s for {what}.");
            }

            await Task.Delay(poll ?? TimeSpan.FromMilliseconds(50)).ConfigureAwait(false);
        }
    }
}
