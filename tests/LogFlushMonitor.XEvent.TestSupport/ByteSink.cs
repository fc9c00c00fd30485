using System.Buffers.Binary;
using System.Text;

namespace LogFlushMonitor.XEvent.TestSupport;

/// <summary>A growable little-endian byte builder for the test writer.</summary>
internal sealed class ByteSink
{
    private byte[] _data;

    public ByteSink(int capacity = 1024) => _data = new byte[capacity];

    public int Length { get; set; }

    public Span<byte> Written => _data.AsSpan(0, Length);

    public Span<byte> Reserve(int count)
    {
        if (Length + count > _data.Length)
        {
            Array.Resize(ref _data, Math.Max(_data.Length * 2, Length + count));
        }

        var s = _data.AsSpan(Length, count);
        Length += count;
        return s;
    }

    public void U8(byte v) => Reserve(1)[0] = v;

    public void U16(ushort v) => BinaryPrimitives.WriteUInt16LittleEndian(Reserve(2), v);

    public void U32(uint v) => BinaryPrimitives.WriteUInt32LittleEndian(Reserve(4), v);

    public void I32(int v) => BinaryPrimitives.WriteInt32LittleEndian(Reserve(4), v);

    public void U64(ulong v) => BinaryPrimitives.WriteUInt64LittleEndian(Reserve(8), v);

    public void I64(long v) => BinaryPrimitives.WriteInt64LittleEndian(Reserve(8), v);

    public void Guid(Guid g) => g.TryWriteBytes(Reserve(16));

    public void Bytes(ReadOnlySpan<byte> b) => b.CopyTo(Reserve(b.Length));

    /// <summary>NUL-terminated UTF-16LE, as metadata strings are.</summary>
    public void WString(string s)
    {
        Encoding.Unicode.GetBytes(s, Reserve(s.Length * 2));
        U16(0);
    }

    /// <summary>UTF-16LE without terminator, as event strings are.</summary>
    public void Utf16(string s) => Encoding.Unicode.GetBytes(s, Reserve(s.Length * 2));

    public void PatchU32(int at, uint v) => BinaryPrimitives.WriteUInt32LittleEndian(_data.AsSpan(at), v);

    public void Fill(int count, byte value) => Reserve(count).Fill(value);

    public void Clear() => Length = 0;
}
