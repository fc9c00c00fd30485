namespace LogFlushMonitor.TdsTestServer;

public sealed partial class TdsTestServer
{
    private static readonly TimeSpan DefaultWait = TimeSpan.FromSeconds(10);
    private readonly Lock _waitGate = new();
    private readonly List<(Func<TdsRequest, bool> Predicate, TaskCompletionSource<TdsRequest> Done)> _waiters = [];

    /// <summary>
    /// The first request (already received or still to come) that matches <paramref name="predicate"/>, e.g. to
    /// know that code under test has reached its streaming query. Fails with <see cref="TimeoutException"/>
    /// listing what did arrive after <paramref name="timeout"/> (10 s by default).
    /// </summary>
    public async Task<TdsRequest> WaitForRequestAsync(
        Func<TdsRequest, bool> predicate, TimeSpan? timeout = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(predicate);
        var waiter = (predicate, new TaskCompletionSource<TdsRequest>(TaskCreationOptions.RunContinuationsAsynchronously));
        lock (_waitGate)
        {
            foreach (var request in _requests)
            {
                if (predicate(request))
                {
                    return request;
                }
            }

            _waiters.Add(waiter);
        }

        try
        {
            return await waiter.Item2.Task.WaitAsync(timeout ?? DefaultWait, Options.TimeProvider, cancellationToken);
        }
        catch (TimeoutException)
        {
            var seen = string.Join(Environment.NewLine, _requests.Select(r => $"  [{r.ConnectionId}] {r.Kind}: {r.Text}"));
            throw new TimeoutException($"No matching request within {timeout ?? DefaultWait}. Received:{Environment.NewLine}{seen}");
        }
        finally
        {
            lock (_waitGate)
            {
                _waiters.Remove(waiter);
            }
        }
    }

    internal void RecordRequest(TdsRequest request)
    {
        lock (_waitGate)
        {
            _requests.Enqueue(request);
            foreach (var (predicate, done) in _waiters)
            {
                if (predicate(request))
                {
                    done.TrySetResult(request);
                }
            }
        }
    }
}
