using System.Collections.Concurrent;
using LogFlushMonitor.Core.Aggregation;

namespace LogFlushMonitor.Sources;

/// <summary>
/// Logs each polled value the aggregation refused as impossible (<see cref="RejectedReading"/>), once per instance,
/// source, name and subject: a counter stuck at a forged value would otherwise log at every poll. The count of every
/// refusal is in sqlserver.monitor.events.lost (loss.kind=malformed).
/// </summary>
internal sealed partial class RejectedReadingLog(ILogger logger)
{
    /// <summary>Distinct readings logged; past this, one line says further ones are only counted.</summary>
    internal const int MaxLogged = 1000;

    private readonly ConcurrentDictionary<(string Instance, string Source, string Name, string Subject), byte> _logged = new();
    private int _saturated;

    public void Report(RejectedReading r)
    {
        if (_logged.Count >= MaxLogged)
        {
            if (Interlocked.Exchange(ref _saturated, 1) == 0)
            {
                LogSaturated(logger, MaxLogged);
            }

            return;
        }

        if (_logged.TryAdd((r.Instance, r.Source, r.Name, r.Subject), 0))
        {
            LogRejected(logger, r.Instance, r.Source, r.Name, r.Subject, r.Value, r.Reason);
        }
    }

    [LoggerMessage(EventId = 320, Level = LogLevel.Warning, Message = "{Instance}: {Source} {Name} of {Subject} read {Value}, {Reason}: the reading was rejected and counted as malformed (sqlserver.monitor.events.lost, loss.kind=malformed); this one is logged once, later ones are only counted")]
    private static partial void LogRejected(ILogger logger, string instance, string source, string name, string subject, long value, string reason);

    [LoggerMessage(EventId = 321, Level = LogLevel.Warning, Message = "{Count} different impossible readings have been logged; further ones are only counted (sqlserver.monitor.events.lost, loss.kind=malformed)")]
    private static partial void LogSaturated(ILogger logger, int count);
}
