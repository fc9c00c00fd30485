namespace LogFlushMonitor.Core.Aggregation;

/// <summary>
/// The exact distribution of log flush write sizes: one slot per 512-byte step up to the 60 KB log block
/// maximum, one slot for anything larger. A flush of n bytes lands in slot ceil(n / 512).
/// </summary>
/// <remarks>Not thread-safe; owned by one aggregation state. Adding allocates nothing.</remarks>
public sealed class WriteSizeDistribution
{
    /// <summary>The sector size the slots step by.</summary>
    public const int SlotBytes = 512;

    /// <summary>The largest log block (60 KB).</summary>
    public const int MaxBlockBytes = 61440;

    /// <summary>Slots 0..120 cover 0..61440 bytes; slot 121 holds larger (unexpected) sizes.</summary>
    public const int SlotCount = (MaxBlockBytes / SlotBytes) + 2;

    // Only the span of slots used so far is held (BucketCounts).
    private BucketCounts _slots;

    /// <summary>Slots this distribution holds memory for (tests and benchmarks).</summary>
    internal int SlotsHeld => _slots.Held;

    /// <summary>Number of flushes added.</summary>
    public long Count { get; private set; }

    /// <summary>Sum of their sizes in bytes.</summary>
    public long TotalBytes { get; private set; }

    /// <summary>Adds one flush of <paramref name="bytes"/>.</summary>
    public void Add(uint bytes)
    {
        _slots.Increment(SlotOf(bytes), SlotCount);
        Count++;
        TotalBytes += bytes;
    }

    /// <summary>Adds <paramref name="count"/> flushes of <paramref name="bytes"/> each (server-side histograms).</summary>
    public void Add(uint bytes, long count)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(count);
        _slots.Add(SlotOf(bytes), count, SlotCount);
        Count += count;
        TotalBytes += bytes * count;
    }

    /// <summary>The slot a size falls in.</summary>
    public static int SlotOf(uint bytes) => bytes > MaxBlockBytes ? SlotCount - 1 : (int)((bytes + SlotBytes - 1) / SlotBytes);

    /// <summary>The upper bound in bytes of a slot (the overflow slot reports <see cref="long.MaxValue"/>).</summary>
    public static long UpperBoundOf(int slot) => slot == SlotCount - 1 ? long.MaxValue : (long)slot * SlotBytes;

    /// <summary>Flushes in one slot.</summary>
    public long this[int slot] => _slots[slot];

    /// <summary>Flushes of at most <paramref name="bytes"/> (inclusive, rounded up to the slot).</summary>
    public long CountAtMost(uint bytes) => _slots.SumTo(SlotOf(bytes));

    /// <summary>Flushes larger than <paramref name="bytes"/>.</summary>
    public long CountAbove(uint bytes) => Count - CountAtMost(bytes);

    /// <summary>Adds every slot of <paramref name="other"/> to this one.</summary>
    public void AddFrom(WriteSizeDistribution other)
    {
        ArgumentNullException.ThrowIfNull(other);
        _slots.AddFrom(other._slots, SlotCount);
        Count += other.Count;
        TotalBytes += other.TotalBytes;
    }
}
