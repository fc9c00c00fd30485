using System.Buffers.Binary;
using System.Text;

namespace LogFlushMonitor.TdsTestServer.Protocol;

/// <summary>Bounds-checked little-endian reader over one client message.</summary>
internal ref struct TdsSpanReader(ReadOnlySpan<byte> data)
{
    private readonly ReadOnlySpan<byte> _data = data;

    public int Position { get; set; }

    public readonly int Remaining => _data.Length - Position;

    public ReadOnlySpan<byte> Take(int count)
    {
        if (count < 0 || count > Remaining)
        {
            throw new TdsProtocolException($"Message truncated: wanted {count} bytes at {Position}, {Remaining} left.");
        }

        var span = _data.Slice(Position, count);
        Position += count;
        return span;
    }

    public byte Byte() => Take(1)[0];

    public ushort UInt16() => BinaryPrimitives.ReadUInt16LittleEndian(Take(2));

    public short Int16() => BinaryPrimitives.ReadInt16LittleEndian(Take(2));

    public uint UInt32() => BinaryPrimitives.ReadUInt32LittleEndian(Take(4));

    public int Int32() => BinaryPrimitives.ReadInt32LittleEndian(Take(4));

    public long Int64() => BinaryPrimitives.ReadInt64LittleEndian(Take(8));

    public ulong UInt64() => BinaryPrimitives.ReadUInt64LittleEndian(Take(8));

    public string Unicode(int chars) => Encoding.Unicode.GetString(Take(checked(chars * 2)));

    /// <summary>B_VARCHAR: a byte count of UTF-16 characters.</summary>
    public string BVarChar() => Unicode(Byte());

    /// <summary>US_VARCHAR: a ushort count of UTF-16 characters.</summary>
    public string UsVarChar() => Unicode(UInt16());
}
