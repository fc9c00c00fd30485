using System.Collections;
using System.Diagnostics.Metrics;

namespace LogFlushMonitor.Core.Metrics;

/// <summary>
/// The measurements one observable callback returns, in a list that goes back to its slot once the collector has
/// enumerated it (the enumerator's Dispose), so that the next collection reuses its array instead of growing a new one.
/// The collector enumerates a callback's result once, on the callback's thread, before it calls the next callback; a
/// collection that runs at the same time as another finds the slot empty and gets a list of its own.
/// </summary>
/// <typeparam name="T">The measurement's value type.</typeparam>
internal sealed class RecycledMeasurements<T> : IEnumerable<Measurement<T>>, IEnumerator<Measurement<T>>
    where T : struct
{
    private readonly RecycledMeasurements<T>?[] _slots;
    private readonly int _slot;
    private int _next = -1;

    private RecycledMeasurements(RecycledMeasurements<T>?[] slots, int slot)
    {
        _slots = slots;
        _slot = slot;
    }

    /// <summary>The list to fill (empty when taken).</summary>
    public List<Measurement<T>> Items { get; } = [];

    /// <inheritdoc />
    public Measurement<T> Current => Items[_next];

    object IEnumerator.Current => Current;

    /// <summary>Takes the list parked in <paramref name="slots"/>[<paramref name="slot"/>], or a new one when it is out (in use, or never made).</summary>
    public static RecycledMeasurements<T> Take(RecycledMeasurements<T>?[] slots, int slot)
    {
        var batch = Interlocked.Exchange(ref slots[slot], null) ?? new RecycledMeasurements<T>(slots, slot);
        batch.Items.Clear();
        batch._next = -1;
        return batch;
    }

    /// <inheritdoc />
    public IEnumerator<Measurement<T>> GetEnumerator()
    {
        _next = -1;
        return this;
    }

    IEnumerator IEnumerable.GetEnumerator() => GetEnumerator();

    /// <inheritdoc />
    public bool MoveNext() => ++_next < Items.Count;

    /// <inheritdoc />
    public void Reset() => _next = -1;

    /// <summary>The collector is done with the list: it is emptied (its tag arrays freed) and parked for the next collection.</summary>
    public void Dispose()
    {
        Items.Clear();
        _next = -1;
        Volatile.Write(ref _slots[_slot], this);
    }
}
