namespace LogFlushMonitor.Hosting;

/// <summary>
/// Each application's cumulative WRITELOG seconds at the previous minute summary, for the databases that summary listed
/// only: at most <see cref="SummaryLine.MaxDatabases"/> databases of six application series each, whatever the number
/// of databases and applications the service has seen (before, every pair ever listed stayed).
/// </summary>
internal sealed class WhoBaselines
{
    private Dictionary<(string Instance, string Database, string Application), double> _previous = [];
    private Dictionary<(string Instance, string Database, string Application), double> _current = [];
    private bool _first = true;

    /// <summary>Baselines held from the previous summary.</summary>
    public int Count => _previous.Count;

    /// <summary>
    /// Records <paramref name="seconds"/> as this summary's value for <paramref name="key"/> and gives the seconds since
    /// the previous summary: false when that is not known (no baseline, and not the first summary, whose baseline is the
    /// service's start).
    /// </summary>
    public bool TrySince((string Instance, string Database, string Application) key, double seconds, out double since)
    {
        _current[key] = seconds;
        if (_previous.TryGetValue(key, out var before))
        {
            since = seconds - before;
            return true;
        }

        since = seconds;
        return _first;
    }

    /// <summary>Ends a summary: its values become the baselines of the next, and those of databases it did not list go.</summary>
    public void EndSummary()
    {
        (_previous, _current) = (_current, _previous);
        _current.Clear();
        _first = false;
    }
}
