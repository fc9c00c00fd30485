namespace LogFlushMonitor.Prometheus;

/// <summary>
/// The rendered text of one collect, shared by every scrape that reads it. Reference counted: the
/// handler holds one reference while it is the current result, each lease one more; the array goes back
/// to its owner when the last reference is released.
/// </summary>
internal sealed class ScrapeSnapshot
{
    private readonly byte[] _array;
    private readonly Action<byte[]> _returnArray;
    private int _references = 1;

    public ScrapeSnapshot(byte[] array, int length, DateTimeOffset collectedAt, Action<byte[]> returnArray)
    {
        _array = array;
        _returnArray = returnArray;
        Length = length;
        CollectedAt = collectedAt;
    }

    public int Length { get; }

    public DateTimeOffset CollectedAt { get; }

    public ReadOnlyMemory<byte> Content => _array.AsMemory(0, Length);

    /// <summary>Takes a reference unless the snapshot was already released (then its array is gone).</summary>
    public bool TryAddReference()
    {
        while (true)
        {
            var current = Volatile.Read(ref _references);
            if (current == 0)
            {
                return false;
            }

            if (Interlocked.CompareExchange(ref _references, current + 1, current) == current)
            {
                return true;
            }
        }
    }

    public void Release()
    {
        if (Interlocked.Decrement(ref _references) == 0)
        {
            _returnArray(_array);
        }
    }
}
