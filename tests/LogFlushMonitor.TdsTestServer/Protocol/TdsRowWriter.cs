using System.Globalization;

namespace LogFlushMonitor.TdsTestServer.Protocol;

/// <summary>Writes COLMETADATA and ROW tokens for <see cref="TdsColumn"/> lists ([MS-TDS] 2.2.5.4-2.2.5.5, 2.2.7.4, 2.2.7.19).</summary>
internal static partial class TdsRowWriter
{
    private const ushort Nullable = 0x0001;
    private const int PlpChunk = 8000;
    private static readonly DateTime DayZero = new(1, 1, 1);

    public static void WriteColMetadata(TdsBuffer b, IReadOnlyList<TdsColumn> columns)
    {
        b.Byte(0x81);
        b.UInt16((ushort)columns.Count);
        foreach (var column in columns)
        {
            b.UInt32(0); // user type
            b.UInt16(Nullable);
            WriteTypeInfo(b, column);
            b.BVarChar(column.Name);
        }
    }

    private static void WriteTypeInfo(TdsBuffer b, TdsColumn column)
    {
        switch (column.Type)
        {
            case TdsType.TinyInt: Fixed(b, 0x26, 1); break;
            case TdsType.SmallInt: Fixed(b, 0x26, 2); break;
            case TdsType.Int: Fixed(b, 0x26, 4); break;
            case TdsType.BigInt: Fixed(b, 0x26, 8); break;
            case TdsType.Real: Fixed(b, 0x6D, 4); break;
            case TdsType.Float: Fixed(b, 0x6D, 8); break;
            case TdsType.Bit: Fixed(b, 0x68, 1); break;
            case TdsType.UniqueIdentifier: Fixed(b, 0x24, 16); break;
            case TdsType.DateTime2: Fixed(b, 0x2A, 7); break; // the byte is the scale
            case TdsType.NVarChar: Var(b, 0xE7, 8000, collation: true); break;
            case TdsType.NVarCharMax: Var(b, 0xE7, 0xFFFF, collation: true); break;
            case TdsType.VarBinary: Var(b, 0xA5, 8000, collation: false); break;
            case TdsType.VarBinaryMax: Var(b, 0xA5, 0xFFFF, collation: false); break;
            case TdsType.DateTime: Fixed(b, 0x6F, 8); break;
            case TdsType.DateTimeOffset: Fixed(b, 0x2B, 7); break; // the byte is the scale
            case TdsType.Decimal: Fixed(b, 0x6A, 17); b.Byte(38); b.Byte(column.Scale); break;
            case TdsType.SqlVariant: b.Byte(0x62); b.Int32(8009); break;
            default: throw new ArgumentOutOfRangeException(nameof(column), column.Type, "Unsupported column type.");
        }
    }

    private static void Fixed(TdsBuffer b, byte token, byte length)
    {
        b.Byte(token);
        b.Byte(length);
    }

    private static void Var(TdsBuffer b, byte token, ushort maxLength, bool collation)
    {
        b.Byte(token);
        b.UInt16(maxLength);
        if (collation)
        {
            b.Bytes(TdsTokens.Collation);
        }
    }

    public static void WriteRow(TdsBuffer b, IReadOnlyList<TdsColumn> columns, object?[] values)
    {
        if (values.Length != columns.Count)
        {
            throw new ArgumentException($"Row has {values.Length} values for {columns.Count} columns.", nameof(values));
        }

        // A value that fails to encode must not leave half a row in front of the ERROR token that follows.
        var start = b.Length;
        try
        {
            b.Byte(0xD1);
            for (var i = 0; i < columns.Count; i++)
            {
                WriteValue(b, columns[i], values[i] is DBNull ? null : values[i]);
            }
        }
        catch
        {
            b.Truncate(start);
            throw;
        }
    }

    private static void WriteValue(TdsBuffer b, TdsColumn column, object? value)
    {
        var c = CultureInfo.InvariantCulture;
        switch (column.Type)
        {
            case TdsType.NVarChar when value is null:
            case TdsType.VarBinary when value is null:
                b.UInt16(0xFFFF);
                return;
            case TdsType.NVarCharMax or TdsType.VarBinaryMax when value is null:
                b.UInt64(ulong.MaxValue); // PLP_NULL
                return;
            case TdsType.SqlVariant when value is null:
                b.Int32(0);
                return;
            case TdsType.NVarChar or TdsType.VarBinary or TdsType.NVarCharMax or TdsType.VarBinaryMax or TdsType.SqlVariant:
                break;
            default:
                if (value is null)
                {
                    b.Byte(0);
                    return;
                }

                break;
        }

        switch (column.Type)
        {
            case TdsType.TinyInt: b.Byte(1); b.Byte(Convert.ToByte(value, c)); break;
            case TdsType.SmallInt: b.Byte(2); b.UInt16((ushort)Convert.ToInt16(value, c)); break;
            case TdsType.Int: b.Byte(4); b.Int32(Convert.ToInt32(value, c)); break;
            case TdsType.BigInt: b.Byte(8); b.Int64(Convert.ToInt64(value, c)); break;
            case TdsType.Real: b.Byte(4); b.Int32(BitConverter.SingleToInt32Bits(Convert.ToSingle(value, c))); break;
            case TdsType.Float: b.Byte(8); b.Int64(BitConverter.DoubleToInt64Bits(Convert.ToDouble(value, c))); break;
            case TdsType.Bit: b.Byte(1); b.Byte(Convert.ToBoolean(value, c) ? (byte)1 : (byte)0); break;
            case TdsType.UniqueIdentifier: b.Byte(16); ((Guid)value!).TryWriteBytes(b.Reserve(16)); break;
            case TdsType.DateTime2: WriteDateTime2(b, (DateTime)value!); break;
            case TdsType.NVarChar: WriteShortBytes(b, System.Text.Encoding.Unicode.GetBytes((string)value!), 8000); break;
            case TdsType.VarBinary: WriteShortBytes(b, Bytes(value!).Span, 8000); break;
            case TdsType.NVarCharMax: WritePlp(b, System.Text.Encoding.Unicode.GetBytes((string)value!)); break;
            case TdsType.VarBinaryMax: WritePlp(b, Bytes(value!).Span); break;
            case TdsType.DateTime: b.Byte(8); WriteLegacyDateTime(b, Convert.ToDateTime(value, c)); break;
            case TdsType.DateTimeOffset: b.Byte(10); WriteDateTimeOffset(b, (DateTimeOffset)value!); break;
            case TdsType.Decimal: b.Byte(17); WriteDecimal(b, Convert.ToDecimal(value, c), column.Scale); break;
            case TdsType.SqlVariant: WriteVariant(b, value!); break;
            default: throw new ArgumentOutOfRangeException(nameof(column), column.Type, "Unsupported column type.");
        }
    }

    private static ReadOnlyMemory<byte> Bytes(object value) => value switch
    {
        byte[] array => array,
        ReadOnlyMemory<byte> memory => memory,
        Memory<byte> memory => memory,
        _ => throw new ArgumentException($"A binary column needs byte[] or ReadOnlyMemory<byte>, not {value.GetType().Name}."),
    };

    private static void WriteShortBytes(TdsBuffer b, ReadOnlySpan<byte> bytes, int max)
    {
        if (bytes.Length > max)
        {
            throw new ArgumentException($"Value of {bytes.Length} bytes exceeds the column's {max}; use a (max) column.");
        }

        b.UInt16((ushort)bytes.Length);
        b.Bytes(bytes);
    }

    /// <summary>PLP: total length, then chunks each prefixed by its length, then a zero terminator.</summary>
    private static void WritePlp(TdsBuffer b, ReadOnlySpan<byte> bytes)
    {
        b.UInt64((ulong)bytes.Length);
        for (var offset = 0; offset < bytes.Length; offset += PlpChunk)
        {
            var chunk = bytes.Slice(offset, Math.Min(PlpChunk, bytes.Length - offset));
            b.UInt32((uint)chunk.Length);
            b.Bytes(chunk);
        }

        b.UInt32(0);
    }

    /// <summary>datetime2(7): 5 bytes of 100 ns ticks since midnight, 3 bytes of days since 0001-01-01.</summary>
    private static void WriteDateTime2(TdsBuffer b, DateTime value)
    {
        b.Byte(8);
        WriteTimeAndDate(b, value);
    }

    private static void WriteTimeAndDate(TdsBuffer b, DateTime value)
    {
        var ticks = value.TimeOfDay.Ticks;
        var span = b.Reserve(8);
        for (var i = 0; i < 5; i++)
        {
            span[i] = (byte)(ticks >> (8 * i));
        }

        var days = (int)(value.Date - DayZero).TotalDays;
        span[5] = (byte)days;
        span[6] = (byte)(days >> 8);
        span[7] = (byte)(days >> 16);
    }
}
