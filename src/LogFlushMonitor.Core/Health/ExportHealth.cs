namespace LogFlushMonitor.Core.Health;

/// <summary>
/// Failed pushes of the metrics themselves (OTLP), by exporter and reason, exported as
/// <c>sqlserver.monitor.export.failures</c>. A pull exporter (Prometheus) has no failures of its own to count: the
/// scraper records them (<c>up</c>).
/// </summary>
/// <remarks>Thread-safe: the exporter's thread counts, the metrics SDK reads at collection time.</remarks>
public sealed class ExportHealth
{
    private readonly Lock _gate = new();
    private readonly Dictionary<(string Exporter, string Reason), long> _failures = [];

    /// <summary>An export through <paramref name="exporter"/> failed for <paramref name="reason"/> (unreachable, http_503, timeout, ...).</summary>
    public void Failed(string exporter, string reason)
    {
        lock (_gate)
        {
            _failures[(exporter, reason)] = _failures.GetValueOrDefault((exporter, reason)) + 1;
        }
    }

    /// <summary>Failures counted for <paramref name="exporter"/>, every reason.</summary>
    public long Failures(string exporter)
    {
        lock (_gate)
        {
            return _failures.Where(kv => kv.Key.Exporter == exporter).Sum(kv => kv.Value);
        }
    }

    /// <summary>Failures counted per exporter and reason (a copy).</summary>
    public IReadOnlyList<(string Exporter, string Reason, long Count)> FailureCounts()
    {
        lock (_gate)
        {
            return [.. _failures.Select(kv => (kv.Key.Exporter, kv.Key.Reason, kv.Value))];
        }
    }
}
