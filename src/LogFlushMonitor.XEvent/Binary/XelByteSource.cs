using System.Buffers;
using Microsoft.Win32.SafeHandles;

namespace LogFlushMonitor.XEvent.Binary;

/// <summary>
/// The bytes of one file as the framer asks for them: make a range readable, look at it, release what is done.
/// Two kinds: a forward-only window over a stream (the sequential reader) and positional reads of a file (the
/// parallel reader's index pass). Both answer the same questions the same way, so both readers find the same
/// buffers, damage and tails.
/// </summary>
internal abstract class XelByteSource : IDisposable
{
    /// <summary>Makes <c>[offset, offset + count)</c> readable; returns how many of those bytes exist (fewer only at the end).</summary>
    public abstract int Ensure(long offset, int count);

    /// <summary>Bytes made readable by <see cref="Ensure"/>; valid until the next call to Ensure or Get.</summary>
    public abstract ReadOnlySpan<byte> Get(long offset, int count);

    /// <summary>Bytes before <paramref name="offset"/> will not be asked for again.</summary>
    public virtual void Release(long offset)
    {
    }

    /// <summary>Bytes taken from the underlying stream or file so far.</summary>
    public abstract long Consumed { get; }

    /// <inheritdoc />
    public abstract void Dispose();
}

/// <summary>A forward-only window over a stream: one pooled array, grown to the largest range asked for.</summary>
internal sealed class StreamByteSource(Stream stream, bool leaveOpen) : XelByteSource
{
    private byte[] _buffer = ArrayPool<byte>.Shared.Rent(64 * 1024);
    private long _bufferOffset;
    private int _length;
    private long _released;
    private bool _endOfStream;

    public override long Consumed => _bufferOffset + _length;

    public override int Ensure(long offset, int count)
    {
        if (offset < _bufferOffset)
        {
            throw new InvalidOperationException($"Offset {offset} was released (window starts at {_bufferOffset})");
        }

        var want = offset + count;
        if (want > _bufferOffset + _length && !_endOfStream)
        {
            Compact();
            var needed = want - _bufferOffset;
            if (needed > _buffer.Length)
            {
                var bigger = ArrayPool<byte>.Shared.Rent((int)Math.Min(needed, Array.MaxLength));
                _buffer.AsSpan(0, _length).CopyTo(bigger);
                ArrayPool<byte>.Shared.Return(_buffer);
                _buffer = bigger;
            }

            // Exactly what is missing: a whole XE buffer in one read when the stream allows it.
            while (_length < needed)
            {
                var n = stream.Read(_buffer.AsSpan(_length, (int)(needed - _length)));
                if (n == 0)
                {
                    _endOfStream = true;
                    break;
                }

                _length += n;
            }
        }

        return (int)Math.Clamp(_bufferOffset + _length - offset, 0, count);
    }

    public override ReadOnlySpan<byte> Get(long offset, int count) => _buffer.AsSpan((int)(offset - _bufferOffset), count);

    public override void Release(long offset) => _released = Math.Max(_released, offset);

    public override void Dispose()
    {
        if (!leaveOpen)
        {
            stream.Dispose();
        }

        if (_buffer.Length > 0)
        {
            ArrayPool<byte>.Shared.Return(_buffer);
            _buffer = [];
        }
    }

    private void Compact()
    {
        var drop = (int)Math.Clamp(_released - _bufferOffset, 0, _length);
        if (drop == 0)
        {
            return;
        }

        _buffer.AsSpan(drop, _length - drop).CopyTo(_buffer);
        _bufferOffset += drop;
        _length -= drop;
    }
}

/// <summary>Positional reads of an open file (several threads may read one handle at once).</summary>
internal sealed class FileByteSource(SafeFileHandle handle, long length) : XelByteSource
{
    private byte[] _scratch = ArrayPool<byte>.Shared.Rent(4096);
    private long _consumed;

    public SafeFileHandle Handle { get; } = handle;

    public long Length { get; } = length;

    public override long Consumed => _consumed;

    public override int Ensure(long offset, int count) => (int)Math.Clamp(Length - offset, 0, count);

    public override ReadOnlySpan<byte> Get(long offset, int count)
    {
        if (count > _scratch.Length)
        {
            ArrayPool<byte>.Shared.Return(_scratch);
            _scratch = ArrayPool<byte>.Shared.Rent(count);
        }

        var span = _scratch.AsSpan(0, count);
        ReadExactly(Handle, span, offset);
        _consumed = Math.Max(_consumed, offset + count);
        return span;
    }

    /// <summary>Reads <paramref name="into"/> fully from <paramref name="offset"/>; a file that shrank is an I/O error.</summary>
    public static void ReadExactly(SafeFileHandle handle, Span<byte> into, long offset)
    {
        var done = 0;
        while (done < into.Length)
        {
            var n = RandomAccess.Read(handle, into[done..], offset + done);
            if (n == 0)
            {
                throw new IOException($"The file ended at {offset + done} while {into.Length - done} more bytes were expected (did it shrink while being read?)");
            }

            done += n;
        }
    }

    public override void Dispose()
    {
        if (_scratch.Length > 0)
        {
            ArrayPool<byte>.Shared.Return(_scratch);
            _scratch = [];
        }
    }
}
