using System.Buffers;
using System.Globalization;
using System.Text;

namespace LogFlushMonitor.Prometheus.Exposition;

/// <summary>Receives the text a streaming <see cref="Utf8TextBuffer"/> hands on whenever it is full.</summary>
internal interface IUtf8Drain
{
    /// <summary>Takes <paramref name="bytes"/> (valid only during the call) before the buffer reuses its space.</summary>
    void Drain(ReadOnlySpan<byte> bytes);
}

/// <summary>
/// A UTF-8 buffer rented from <see cref="ArrayPool{T}.Shared"/> with the few writes the text exposition needs.
/// Formatting goes straight into the array, so rendering allocates nothing. Without a drain it grows as needed
/// (headers, label sets); with one it stays at its capacity and hands the text on each time it fills, so a
/// scrape of any size is rendered through one small buffer. Dispose returns the array to the pool.
/// </summary>
internal sealed class Utf8TextBuffer : IDisposable
{
    private static ReadOnlySpan<byte> PositiveInfinity => "+Inf"u8;
    private static ReadOnlySpan<byte> NegativeInfinity => "-Inf"u8;
    private static ReadOnlySpan<byte> NotANumber => "NaN"u8;

    private readonly IUtf8Drain? _drain;
    private byte[] _array;
    private int _length;

    /// <summary>A growable buffer.</summary>
    public Utf8TextBuffer(int initialCapacity = 4096)
        : this(initialCapacity, drain: null)
    {
    }

    /// <summary>A buffer of <paramref name="capacity"/> bytes that hands its text to <paramref name="drain"/> when full.</summary>
    public Utf8TextBuffer(int capacity, IUtf8Drain? drain)
    {
        _array = ArrayPool<byte>.Shared.Rent(Math.Max(capacity, 256));
        _drain = drain;
    }

    /// <summary>Bytes written and not yet drained.</summary>
    public int Length => _length;

    /// <summary>Bytes written and not yet drained.</summary>
    public ReadOnlySpan<byte> WrittenSpan => _array.AsSpan(0, _length);

    /// <summary>Room before the buffer drains or grows (tests).</summary>
    internal int Capacity => _array.Length;

    /// <summary>Forgets what was written (without draining it).</summary>
    public void Clear() => _length = 0;

    /// <summary>Hands everything written so far to the drain.</summary>
    public void Flush()
    {
        if (_drain is not null && _length > 0)
        {
            _drain.Drain(_array.AsSpan(0, _length));
            _length = 0;
        }
    }

    public void Write(byte value)
    {
        if (_length == _array.Length)
        {
            MakeRoom(1);
        }

        _array[_length++] = value;
    }

    public void Write(ReadOnlySpan<byte> bytes)
    {
        if (_array.Length - _length < bytes.Length)
        {
            MakeRoom(bytes.Length);
        }

        bytes.CopyTo(_array.AsSpan(_length));
        _length += bytes.Length;
    }

    public void WriteLong(long value)
    {
        int written;
        while (!value.TryFormat(_array.AsSpan(_length), out written, default, CultureInfo.InvariantCulture))
        {
            MakeRoom(32);
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
                MakeRoom(32);
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
                WriteUtf8(plain);
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

    /// <summary>Returns the array to the pool; the buffer must not be used afterwards.</summary>
    public void Dispose()
    {
        var array = _array;
        _array = [];
        _length = 0;
        if (array.Length > 0)
        {
            ArrayPool<byte>.Shared.Return(array);
        }
    }

    /// <summary>Writes text as UTF-8 with no escaping (protobuf strings).</summary>
    // Escapable characters are ASCII, so a plain run never splits a surrogate pair; a long run is encoded in
    // pieces that fit the buffer, never splitting a pair either.
    public void WriteUtf8(ReadOnlySpan<char> plain)
    {
        while (!plain.IsEmpty)
        {
            var take = Math.Min(plain.Length, 1024);
            if (take < plain.Length && char.IsHighSurrogate(plain[take - 1]))
            {
                take--;
            }

            var piece = plain[..take];
            var max = Encoding.UTF8.GetMaxByteCount(piece.Length);
            if (_array.Length - _length < max)
            {
                MakeRoom(max);
            }

            _length += Encoding.UTF8.GetBytes(piece, _array.AsSpan(_length));
            plain = plain[take..];
        }
    }

    /// <summary>Drains what is written when there is a drain; grows when the write still would not fit.</summary>
    private void MakeRoom(int needed)
    {
        ObjectDisposedException.ThrowIf(_array.Length == 0, this);
        if (_drain is not null && _length > 0)
        {
            Flush();
            if (_array.Length >= needed)
            {
                return;
            }
        }

        var bigger = ArrayPool<byte>.Shared.Rent(Math.Max(_array.Length * 2, _length + needed));
        _array.AsSpan(0, _length).CopyTo(bigger);
        ArrayPool<byte>.Shared.Return(_array);
        _array = bigger;
    }
}
