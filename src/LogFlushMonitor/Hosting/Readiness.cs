using System.Collections.Concurrent;

namespace LogFlushMonitor.Hosting;

/// <summary>
/// What /readyz reports: ready once the host has started and every registered component says it runs.
/// Components (sources, the pipeline, exporters) set their own state from any thread.
/// </summary>
public sealed class Readiness
{
    private readonly ConcurrentDictionary<string, string?> _notReady = new(StringComparer.Ordinal);
    private volatile bool _started;

    /// <summary>Marks a component as not ready, with the reason a probe shows.</summary>
    public void NotReady(string component, string reason) => _notReady[component] = reason;

    /// <summary>Marks a component as ready.</summary>
    public void Ready(string component) => _notReady.TryRemove(component, out _);

    /// <summary>Called when the host has started every service.</summary>
    public void HostStarted() => _started = true;

    /// <summary>The state a probe sees.</summary>
    public (bool Ready, string Reason) Check()
    {
        if (!_started)
        {
            return (false, "starting");
        }

        var pending = _notReady.ToArray();
        return pending.Length == 0
            ? (true, "ready")
            : (false, string.Join("; ", pending.OrderBy(p => p.Key, StringComparer.Ordinal).Select(p => $"{p.Key}: {p.Value}")));
    }
}
