namespace LogFlushMonitor.XEvent.Metadata;

/// <summary>A package as declared in a metadata buffer; it carries the clock of its events.</summary>
public sealed class XEventPackage
{
    internal XEventPackage(int index, string name, Guid id, long startTimeFileTime, ulong tickFrequency)
    {
        Index = index;
        Name = name;
        Id = id;
        StartTimeFileTime = startTimeFileTime;
        TickFrequency = tickFrequency;
        _startInRange = startTimeFileTime is >= 0 && startTimeFileTime <= MaxFileTime;
    }

    // A start time within FILETIME's range: start + an offset within it cannot overflow a long.
    private readonly bool _startInRange;

    /// <summary>Package index (bits 0-9 of every RID of its objects).</summary>
    public int Index { get; }

    /// <summary>Package name, e.g. <c>sqlserver</c>. Names can repeat across indexes.</summary>
    public string Name { get; }

    /// <summary>Package GUID.</summary>
    public Guid Id { get; }

    /// <summary>Session start time as a UTC FILETIME.</summary>
    public long StartTimeFileTime { get; }

    /// <summary>Ticks per second of the event clock.</summary>
    public ulong TickFrequency { get; }

    /// <summary>Session start time in UTC.</summary>
    public DateTime StartTimeUtc => DateTime.FromFileTimeUtc(StartTimeFileTime);

    /// <summary>Converts event ticks to a UTC FILETIME (128-bit multiply); false when out of range.</summary>
    public bool TryTicksToFileTime(ulong ticks, out long fileTime)
    {
        // The per-event path: 64-bit arithmetic where it is exact (a 10 MHz clock counts in FILETIME units; other
        // clocks while ticks x 10^7 fits in 64 bits), the 128-bit form otherwise. Each gives the 128-bit result.
        if (_startInRange && ticks <= ulong.MaxValue / 10_000_000UL)
        {
            var offset64 = TickFrequency == 10_000_000UL ? ticks : ticks * 10_000_000UL / TickFrequency;
            if (offset64 <= (ulong)MaxFileTime && StartTimeFileTime + (long)offset64 <= MaxFileTime)
            {
                fileTime = StartTimeFileTime + (long)offset64;
                return true;
            }

            fileTime = 0;
            return false;
        }

        var offset = (UInt128)ticks * 10_000_000UL / TickFrequency;
        var total = (Int128)StartTimeFileTime + (Int128)offset;
        // DateTime.MaxValue as a FILETIME is about 2.65e18.
        if (total < 0 || total > MaxFileTime)
        {
            fileTime = 0;
            return false;
        }

        fileTime = (long)total;
        return true;
    }

    private static readonly long MaxFileTime = DateTime.MaxValue.ToFileTimeUtc();

    /// <inheritdoc />
    public override string ToString() => $"{Name}#{Index}";
}
