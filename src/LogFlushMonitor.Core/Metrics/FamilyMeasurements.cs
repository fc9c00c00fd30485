using System.Collections;
using System.Diagnostics.Metrics;

namespace LogFlushMonitor.Core.Metrics;

/// <summary>
/// The measurements of one observable family in one collect: the list the callback returns, enumerated once by the
/// collector on the callback's thread, and kept for the next collect so that its array is reused rather than grown anew
/// (a scrape of 10 instances x 100 databases reads about 15,000 measurements; lists grown each time put arrays of up to
/// 130 KB on the large object heap). The collector's <c>foreach</c> disposes the enumerator: that tells the owner the
/// list is free again.
/// </summary>
/// <remarks>
/// The list holds each value with its series' own tag array; the <see cref="Measurement{T}"/> is made as the collector
/// reaches it. A Measurement copies its tags, so lists of Measurements kept a copy of every series' tags from one
/// collect to the next (about 800 bytes per watched database, bench/README.md "Bytes per database"); made one at a time,
/// each copy is garbage as soon as the collector has read it. The series' arrays are never changed once built (a renamed
/// database gets new ones), so reading them after the aggregation's lock is released sees what the read saw.
/// </remarks>
/// <typeparam name="T">The measurement's value type.</typeparam>
internal sealed class FamilyMeasurements<T>(Action? returned) : IEnumerable<Measurement<T>>, IEnumerator<Measurement<T>>
    where T : struct
{
    private int _next = -1;

    /// <summary>The values with their series' tags.</summary>
    public List<(T Value, KeyValuePair<string, object?>[] Tags)> Items { get; } = [];

    /// <inheritdoc />
    public Measurement<T> Current => new(Items[_next].Value, Items[_next].Tags);

    object IEnumerator.Current => Current;

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

    /// <summary>The collector is done with the list.</summary>
    public void Dispose()
    {
        _next = -1;
        returned?.Invoke();
    }
}
