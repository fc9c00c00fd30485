namespace LogFlushMonitor.Core.Pipeline;

/// <summary>
/// Lets callers await the consumer reaching a count of applied events. The consumer reports each new count; a
/// waiter's task completes on the report that reaches its target. No timer and no polling.
/// </summary>
internal sealed class DrainSignal
{
    private readonly Lock _gate = new();
    private readonly List<(long Target, TaskCompletionSource Done)> _waiters = [];

    /// <summary>Completes once <paramref name="applied"/> reads at least <paramref name="target"/>.</summary>
    public Task WaitAsync(long target, Func<long> applied)
    {
        lock (_gate)
        {
            // Checked under the lock the consumer reports under: a report cannot slip between check and registration.
            if (applied() >= target)
            {
                return Task.CompletedTask;
            }

            var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            _waiters.Add((target, done));
            return done.Task;
        }
    }

    /// <summary>The consumer has applied <paramref name="applied"/> events in all; completes the waiters it satisfies.</summary>
    public void Reached(long applied)
    {
        lock (_gate)
        {
            for (var i = _waiters.Count - 1; i >= 0; i--)
            {
                if (_waiters[i].Target <= applied)
                {
                    _waiters[i].Done.TrySetResult();
                    _waiters.RemoveAt(i);
                }
            }
        }
    }
}
