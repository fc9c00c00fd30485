using System.Buffers.Binary;
using System.Text;

namespace LogFlushMonitor.TdsTestServer.Protocol;

/// <summary>A growable little-endian byte buffer that tokens are composed into before packetising.</summary>
internal sealed class TdsBuffer
{
    private byte[] _bytes = new byte[8192];

    public int Length { get; private set; }

    public ReadOnlySpan<byte> Written => _bytes.AsSpan(0, Length);

    public ReadOnlyMemory<byte> WrittenMemory => _bytes.AsMemory(0, Length);

    /// <summary>Drops the first <paramref name="count"/> bytes (already sent).</summary>
    public void Consume(int count)
    {
        Buffer.BlockCopy(_bytes, count, _bytes, 0, Length - count);
        Length -= count;
    }

    /// <summary>Forgets bytes written after <paramref name="length"/> (a value that failed to encode).</summary>
    public void Truncate(int length) => Length = Math.Min(Length, length);

    public Span<byte> Reserve(int count)
    {
        if (Length + count > _bytes.Length)
        {
            Array.Resize(ref _bytes, Math.Max(_bytes.Length * 2, Length + count));
        }

        var span = _bytes.AsSpan(Length, count);
        Length += count;
        return span;
    }

    public void Byte(byte value) => Reserve(1)[0] = value;

    public void UInt16(ushort value) => BinaryPrimitives.WriteUInt16LittleEndian(Reserve(2), value);

    public void UInt16BigEndian(ushort value) => BinaryPrimitives.WriteUInt16BigEndian(Reserve(2), value);

    public void Int32(int value) => BinaryPrimitives.WriteInt32LittleEndian(Reserve(4), value);

    public void UInt32(uint value) => BinaryPrimitives.WriteUInt32LittleEndian(Reserve(4), value);

    public void Int64(long value) => BinaryPrimitives.WriteInt64LittleEndian(Reserve(8), value);

    public void UInt64(ulong value) => BinaryPrimitives.WriteUInt64LittleEndian(Reserve(8), value);

    public void Bytes(ReadOnlySpan<byte> value) => value.CopyTo(Reserve(value.Length));

    public void Unicode(string value) => Encoding.Unicode.GetBytes(value, Reserve(value.Length * 2));

    /// <summary>B_VARCHAR: byte length in characters, then UTF-16LE.</summary>
    public void BVarChar(string value)
    {
        var text = value.Length > 255 ? value[..255] : value;
        Byte((byte)text.Length);
        Unicode(text);
    }

    /// <summary>US_VARCHAR: ushort length in characters, then UTF-16LE.</summary>
    public void UsVarChar(string value)
    {
        var text = value.Length > ushort.MaxValue ? value[..ushort.MaxValue] : value;
        UInt16((ushort)text.Length);
        Unicode(text);
    }

    /// <summary>A span over bytes already written, for patching a length in place.</summary>
    public Span<byte> WrittenSpanAt(int offset, int count) => _bytes.AsSpan(offset, count);

    /// <summary>Patches a ushort length at <paramref name="offset"/> with the bytes written after it.</summary>
    public void PatchLength16(int offset) =>
        BinaryPrimitives.WriteUInt16LittleEndian(_bytes.AsSpan(offset, 2), checked((ushort)(Length - offset - 2)));
}
