using LogFlushMonitor.Core.Signals;

namespace LogFlushMonitor.Analysis;

/// <summary>
/// One analysis's view of every recorded signal (<see cref="Signal.NewView"/>), one each from the start (a view that also
/// reads another signal's rows sees them whatever comes first): the recordings of one analysis add up in them, and
/// <see cref="Tables"/> gives what each shows, in registry order; a view without rows shows nothing.
/// </summary>
internal sealed class SignalViews(TimeWindow window, Action<SignalBatch>? onSignal = null)
{
    private readonly SignalView?[] _views = [.. SignalRegistry.All.Select(s => s.NewView())];

    /// <summary>
    /// Hands <paramref name="batch"/> to its signal's view (a signal without one shows nothing) and to every view that also
    /// reads that signal.
    /// </summary>
    public void Observe(SignalBatch batch)
    {
        // A batch is one poll at one time: in the window or not.
        if (!window.Contains(batch.TimestampUtc.Ticks))
        {
            return;
        }

        onSignal?.Invoke(batch);
        var index = batch.Signal.Index;
        _views[index]?.Observe(batch);
        foreach (var view in _views)
        {
            if (view is not null && view.AlsoReads(batch.Signal))
            {
                view.ObserveOther(batch);
            }
        }
    }

    /// <summary>The statements' texts a view learnt from the recording (the Query Store signal's), or null.</summary>
    public IStatementTexts? StatementTexts => _views.OfType<IStatementTexts>().FirstOrDefault();

    /// <summary>The log's space of a database at the recording's last poll, from the view that reads it (null when not recorded).</summary>
    public LogSpaceSnapshot? LogSpace(string instance, string database) =>
        _views.OfType<ILogSpaceView>().FirstOrDefault()?.Snapshot(instance, database);

    /// <summary>Each view's table, in registry order; none for a signal without rows.</summary>
    public IReadOnlyList<SignalTable> Tables() => [.. _views.Select(v => v?.Table()).OfType<SignalTable>()];
}
