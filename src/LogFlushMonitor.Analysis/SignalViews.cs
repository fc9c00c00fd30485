using LogFlushMonitor.Core.Signals;

namespace LogFlushMonitor.Analysis;

/// <summary>
/// One analysis's view of every recorded signal (<see cref="Signal.NewView"/>), made when the signal's first rows arrive:
/// the recordings of one analysis add up in them, and <see cref="Tables"/> gives what each shows, in registry order.
/// </summary>
internal sealed class SignalViews(TimeWindow window, Action<SignalBatch>? onSignal = null)
{
    private readonly SignalView?[] _views = new SignalView?[SignalRegistry.All.Count];
    private readonly bool[] _made = new bool[SignalRegistry.All.Count];

    /// <summary>Hands <paramref name="batch"/> to its signal's view (a signal without one shows nothing).</summary>
    public void Observe(SignalBatch batch)
    {
        // A batch is one poll at one time: in the window or not.
        if (!window.Contains(batch.TimestampUtc.Ticks))
        {
            return;
        }

        onSignal?.Invoke(batch);
        var index = batch.Signal.Index;
        if (!_made[index])
        {
            _made[index] = true;
            _views[index] = batch.Signal.NewView();
        }

        _views[index]?.Observe(batch);
    }

    /// <summary>Each view's table, in registry order; none for a signal without rows.</summary>
    public IReadOnlyList<SignalTable> Tables() => [.. _views.Select(v => v?.Table()).OfType<SignalTable>()];
}
