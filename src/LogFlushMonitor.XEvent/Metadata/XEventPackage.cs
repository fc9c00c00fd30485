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
    }

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
