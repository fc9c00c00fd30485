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
    private readonly Dictionary<(string Instance, string? Database), LogRateRow> _governance = [];

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

        if (batch is SignalBatch<LogRateRow> rates)
        {
            foreach (var row in rates.Rows)
            {
                if (row.Scope is LogRateSignal.DatabaseScope or LogRateSignal.InstanceScope)
                {
                    _governance[(batch.Instance, row.Scope == LogRateSignal.DatabaseScope ? row.DatabaseName : null)] = row;
                }
            }
        }
    }

    /// <summary>The statements' texts a view learnt from the recording (the Query Store signal's), or null.</summary>
    public IStatementTexts? StatementTexts => _views.OfType<IStatementTexts>().FirstOrDefault();

    /// <summary>
    /// The last Azure governance a recording holds for the database (its own, else its Managed Instance's): the tier its
    /// storage is judged against; null for SQL Server and .xel files.
    /// </summary>
    public LogRateSnapshot? GovernanceOf(string instance, string database) =>
        _governance.TryGetValue((instance, database), out var own) || _governance.TryGetValue((instance, null), out own)
            ? new LogRateSnapshot(own.Scope, own.Tier, own.ServiceObjective, own.MaxLogRateBytesPerSecond, own.LogWritePercent, null, null, null)
            : null;

    /// <summary>The log's space of a database at the recording's last poll, from the view that reads it (null when not recorded).</summary>
    public LogSpaceSnapshot? LogSpace(string instance, string database) =>
        _views.OfType<ILogSpaceView>().FirstOrDefault()?.Snapshot(instance, database);

    /// <summary>Each view's table, in registry order; none for a signal without rows.</summary>
    public IReadOnlyList<SignalTable> Tables() => [.. _views.Select(v => v?.Table()).OfType<SignalTable>()];
}
