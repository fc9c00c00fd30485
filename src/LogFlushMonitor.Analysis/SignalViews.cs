using LogFlushMonitor.Core.Signals;

namespace LogFlushMonitor.Analysis;

/// <summary>
/// One analysis's view of every recorded signal (<see cref="Signal.NewView"/>), made when the signal's first rows arrive:
/// the recordings of one analysis add up in them, and <see cref="Tables"/> gives what each shows, in registry order.
/// </summary>
internal sealed class SignalViews
{
    private readonly SignalView?[] _views = new SignalView?[SignalRegistry.All.Count];
    private readonly bool[] _made = new bool[SignalRegistry.All.Count];
    private readonly Dictionary<(string Instance, string? Database), LogRateRow> _governance = [];

    /// <summary>Hands <paramref name="batch"/> to its signal's view (a signal without one shows nothing).</summary>
    public void Observe(SignalBatch batch)
    {
        var index = batch.Signal.Index;
        if (!_made[index])
        {
            _made[index] = true;
            _views[index] = batch.Signal.NewView();
        }

        _views[index]?.Observe(batch);
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

    /// <summary>
    /// The last Azure governance a recording holds for the database (its own, else its Managed Instance's): the tier its
    /// storage is judged against; null for SQL Server and .xel files.
    /// </summary>
    public LogRateSnapshot? GovernanceOf(string instance, string database) =>
        _governance.TryGetValue((instance, database), out var own) || _governance.TryGetValue((instance, null), out own)
            ? new LogRateSnapshot(own.Scope, own.Tier, own.ServiceObjective, own.MaxLogRateBytesPerSecond, own.LogWritePercent, null, null, null)
            : null;

    /// <summary>Each view's table, in registry order; none for a signal without rows.</summary>
    public IReadOnlyList<SignalTable> Tables() => [.. _views.Select(v => v?.Table()).OfType<SignalTable>()];
}
