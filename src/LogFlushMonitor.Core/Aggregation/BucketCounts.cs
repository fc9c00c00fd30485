using System.Runtime.CompilerServices;

namespace LogFlushMonitor.Core.Aggregation;

/// <summary>
/// The counts of a fixed set of buckets (0 to <c>bucketCount</c> - 1), stored for the span of buckets used so far only,
/// in 32-bit counters with the carries past 2^32 kept apart. A watched database costs its distributions' buckets, and
/// most of them are never hit (flush durations of one database span a few decades of the 200 buckets; bench/README.md,
/// "Bytes per database"): an empty distribution holds no array, and a used one 4 bytes per bucket of its span instead of
/// 8 per bucket of the whole range.
/// </summary>
/// <remarks>
/// A mutable struct held in a field of its owner (never copied); not thread-safe. Adding allocates only when a bucket
/// outside the span is hit for the first time (the span grows in steps of <see cref="Step"/> buckets, so at most
/// bucketCount / <see cref="Step"/> times in a distribution's life) or when a bucket passes 2^32 counts for the first
/// time: never in a steady state.
/// </remarks>
internal struct BucketCounts
{
    /// <summary>The span grows to whole multiples of this many buckets, so that a distribution settles after a few growths.</summary>
    private const int Step = 8;

    private uint[]? _low;
    private long[]? _carries;
    private int _first;

    /// <summary>Buckets held (tests and benchmarks: the memory a distribution keeps).</summary>
    public readonly int Held => _low?.Length ?? 0;

    /// <summary>The count of <paramref name="bucket"/> (0 outside the span).</summary>
    public readonly long this[int bucket]
    {
        get
        {
            var i = bucket - _first;
            if (_low is not { } low || (uint)i >= (uint)low.Length)
            {
                return 0;
            }

            return low[i] + (_carries is { } c ? c[i] << 32 : 0);
        }
    }

    /// <summary>Adds one to <paramref name="bucket"/> (0 &lt;= bucket &lt; <paramref name="bucketCount"/>).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Increment(int bucket, int bucketCount)
    {
        var i = bucket - _first;
        var low = _low;
        if (low is null || (uint)i >= (uint)low.Length)
        {
            low = Include(bucket, bucketCount);
            i = bucket - _first;
        }

        if (++low[i] == 0)
        {
            Carry(i, 1);
        }
    }

    /// <summary>Adds <paramref name="count"/> (not negative) to <paramref name="bucket"/>.</summary>
    public void Add(int bucket, long count, int bucketCount)
    {
        if (count == 0)
        {
            return;
        }

        var low = _low;
        var i = bucket - _first;
        if (low is null || (uint)i >= (uint)low.Length)
        {
            low = Include(bucket, bucketCount);
            i = bucket - _first;
        }

        var sum = low[i] + (ulong)count;
        low[i] = (uint)sum;
        if (sum >> 32 is var carry and not 0)
        {
            Carry(i, (long)carry);
        }
    }

    /// <summary>Adds every count of <paramref name="other"/>.</summary>
    public void AddFrom(in BucketCounts other, int bucketCount)
    {
        if (other._low is not { } theirs)
        {
            return;
        }

        for (var i = 0; i < theirs.Length; i++)
        {
            var count = other[other._first + i];
            if (count != 0)
            {
                Add(other._first + i, count, bucketCount);
            }
        }
    }

    /// <summary>A copy that shares nothing with this one.</summary>
    public readonly BucketCounts Copy() => new() { _first = _first, _low = (uint[]?)_low?.Clone(), _carries = (long[]?)_carries?.Clone() };

    /// <summary>Sum of the counts of buckets 0 to <paramref name="last"/>.</summary>
    public readonly long SumTo(int last)
    {
        if (_low is not { } low)
        {
            return 0;
        }

        long sum = 0;
        var end = Math.Min(last - _first, low.Length - 1);
        for (var i = 0; i <= end; i++)
        {
            sum += low[i] + (_carries is { } c ? c[i] << 32 : 0);
        }

        return sum;
    }

    /// <summary>The first bucket at or after which <paramref name="rank"/> counts are reached, or -1 (quantiles).</summary>
    public readonly int BucketOfRank(long rank)
    {
        if (_low is not { } low)
        {
            return -1;
        }

        long seen = 0;
        for (var i = 0; i < low.Length; i++)
        {
            seen += low[i] + (_carries is { } c ? c[i] << 32 : 0);
            if (seen >= rank)
            {
                return _first + i;
            }
        }

        return -1;
    }

    /// <summary>Widens the span to take <paramref name="bucket"/> (whole steps, within the bucket range); returns the new array.</summary>
    private uint[] Include(int bucket, int bucketCount)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(bucket);
        ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual(bucket, bucketCount);
        var first = _low is null ? bucket : Math.Min(_first, bucket);
        var end = _low is null ? bucket + 1 : Math.Max(_first + _low.Length, bucket + 1);
        first -= first % Step;
        end = Math.Min(bucketCount, end + ((Step - (end % Step)) % Step));
        var low = new uint[end - first];
        var carries = _carries is null ? null : new long[low.Length];
        if (_low is { } old)
        {
            old.CopyTo(low, _first - first);
            _carries?.CopyTo(carries!, _first - first);
        }

        (_low, _carries, _first) = (low, carries, first);
        return low;
    }

    /// <summary>A bucket passed a multiple of 2^32: the carry is kept in the (rarely needed) high part.</summary>
    private void Carry(int i, long carry)
    {
        _carries ??= new long[_low!.Length];
        _carries[i] += carry;
    }
}
