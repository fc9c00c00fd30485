using System.Diagnostics.Tracing;

namespace LogFlushMonitor.Benchmarks.Core;

/// <summary>
/// Samples allocations through the runtime's AllocationTick event (one event per about 100 KB allocated, with the
/// type that crossed the mark) and tallies the large-object-heap ones by type: what a scrape puts on the LOH, which
/// only a full collection frees. Used by <c>memory --large</c>.
/// </summary>
internal sealed class LargeAllocationListener : EventListener
{
    private const EventKeywords GcKeyword = (EventKeywords)0x1;
    private readonly Dictionary<string, (int Ticks, long Bytes)> _large = new(StringComparer.Ordinal);
    private readonly Lock _gate = new();
    private int _smallTicks;

    /// <summary>Large-object ticks by type name, and the number of small-object ticks beside them.</summary>
    public (IReadOnlyDictionary<string, (int Ticks, long Bytes)> Large, int SmallTicks) Snapshot()
    {
        lock (_gate)
        {
            return (new Dictionary<string, (int, long)>(_large), _smallTicks);
        }
    }

    protected override void OnEventSourceCreated(EventSource eventSource)
    {
        if (eventSource.Name == "Microsoft-Windows-DotNETRuntime")
        {
            EnableEvents(eventSource, EventLevel.Verbose, GcKeyword);
        }
    }

    protected override void OnEventWritten(EventWrittenEventArgs e)
    {
        if (e.EventName != "GCAllocationTick_V4" && e.EventName != "GCAllocationTick_V3" || e.PayloadNames is null)
        {
            return;
        }

        var kind = Convert.ToInt32(e.Payload![e.PayloadNames.IndexOf("AllocationKind")], System.Globalization.CultureInfo.InvariantCulture);
        var type = e.Payload[e.PayloadNames.IndexOf("TypeName")] as string ?? "?";
        var size = e.PayloadNames.IndexOf("ObjectSize") is var i and >= 0 ? Convert.ToInt64(e.Payload[i], System.Globalization.CultureInfo.InvariantCulture) : 0;
        lock (_gate)
        {
            if (kind == 1)
            {
                var (ticks, bytes) = _large.GetValueOrDefault(type);
                _large[type] = (ticks + 1, bytes + size);
            }
            else
            {
                _smallTicks++;
            }
        }
    }
}
