using System.Buffers;
using System.Globalization;
using System.Text;

namespace LogFlushMonitor.Prometheus.Exposition;

/// <summary>
/// A growable UTF-8 buffer rented from <see cref="ArrayPool{T}.Shared"/> with the few writes the text
/// exposition needs. Formatting goes straight into the array, so rendering a scrape allocates nothing.
/// </summary>
internal sealed class Utf8TextBuffer
{
    private static ReadOnlySpan<byte> PositiveInfinity => "+Inf"u8;
    private static ReadOnlySpan<byte> NegativeInfinity => "-Inf"u8;
    private static ReadOnlySpan<byte> NotANumber => "NaN"u8;

    private byte[] _array;
    private int _length;

    public Utf8TextBuffer(int initialCapacity = 4096) => _array = ArrayPool<byte>.Shared.Rent(Math.Max(initialCapacity, 256));

    public int Length => _length;

    public ReadOnlySpan<byte> WrittenSpan => _array.AsSpan(0, _length);

    public void Clear() => _length = 0;

    /// <summary>Hands the written array to the caller and continues, empty, in <paramref name="next"/>.</summary>
    public byte[] Detach(out int length, byte[] next)
    {
        var array = _array;
        length = _length;
        _array = next;
        _length = 0;
        return array;
    }

    public void Write(byte value)
    {
        if (_length == _array.Length)
        {
            Grow(1);
        }

        _array[_length++] = value;
    }

    public void Write(ReadOnlySpan<byte> bytes)
    {
        if (_array.Length - _length < bytes.Length)
        {
            Grow(bytes.Length);
        }

        bytes.CopyTo(_array.AsSpan(_length));
        _length += bytes.Length;
    }

    public void WriteLong(long value)
    {
        int written;
        while (!value.TryFormat(_array.AsSpan(_length), out written, default, CultureInfo.InvariantCulture))
        {
            Grow(32);
        }

        _length += written;
    }

    /// <summary>Writes a sample value as Prometheus parses it: <c>+Inf</c>, <c>-Inf</c>, <c>NaN</c>, else the shortest round-trip form.</summary>
    public void WriteDouble(double value)
    {
        if (double.IsPositiveInfinity(value))
        {
            Write(PositiveInfinity);
        }
        else if (double.IsNegativeInfinity(value))
        {
            Write(NegativeInfinity);
        }
        else if (double.IsNaN(value))
        {
            Write(NotANumber);
        }
        else
        {
            int written;
            while (!value.TryFormat(_array.AsSpan(_length), out written, "R", CultureInfo.InvariantCulture))
            {
                Grow(32);
            }

            _length += written;
        }
    }

    /// <summary>
    /// Writes text as UTF-8, escaping backslash and line feed (HELP) and also the double quote
    /// (label values), as the 0.0.4 text format requires.
    /// </summary>
    public void WriteEscaped(ReadOnlySpan<char> text, bool escapeQuote)
    {
        while (!text.IsEmpty)
        {
            var next = escapeQuote ? text.IndexOfAny('\\', '\n', '"') : text.IndexOfAny('\\', '\n');
            var plain = next < 0 ? text : text[..next];
            if (!plain.IsEmpty)
            {
                // Escapable characters are ASCII, so a plain run never splits a surrogate pair.
                var max = Encoding.UTF8.GetMaxByteCount(plain.Length);
                if (_array.Length - _length < max)
                {
                    Grow(max);
                }

                _length += Encoding.UTF8.GetBytes(plain, _array.AsSpan(_length));
            }

            if (next < 0)
            {
                return;
            }

            Write((byte)'\\');
            Write(text[next] == '\n' ? (byte)'n' : (byte)text[next]);
            text = text[(next + 1)..];
        }
    }

    private void Grow(int needed)
    {
        var size = Math.Max(_array.Length * 2, _length + needed);
        var bigger = Rent(size);
        _array.AsSpan(0, _length).CopyTo(bigger);
        Return(_array);
        _array = bigger;
    }

    /// <summary>Arrays above this size are not pooled: a large scrape's outgrown arrays go back to the GC, not into the shared pool for good.</summary>
    internal const int LargeArray = 1 << 20;

    /// <summary>A pooled array for small sizes; an exact-size one for large sizes (the pool would round 9 MB up to 16 MB).</summary>
    internal static byte[] Rent(int size) =>
        size > LargeArray ? GC.AllocateUninitializedArray<byte>(size) : ArrayPool<byte>.Shared.Rent(size);

    /// <summary>Returns a small array to the pool and lets a large one go.</summary>
    internal static void Return(byte[] array)
    {
        if (array.Length <= LargeArray)
        {
            ArrayPool<byte>.Shared.Return(array);
        }
    }
}
