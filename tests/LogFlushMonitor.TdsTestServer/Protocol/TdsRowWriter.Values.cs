using System.Text;

namespace LogFlushMonitor.TdsTestServer.Protocol;

/// <summary>Encodings of the less common result types: datetime, datetimeoffset, decimal, sql_variant.</summary>
internal static partial class TdsRowWriter
{
    private static readonly DateTime Day1900 = new(1900, 1, 1);

    /// <summary>datetime: days since 1900-01-01, then 1/300 s since midnight.</summary>
    private static void WriteLegacyDateTime(TdsBuffer b, DateTime value)
    {
        var days = (int)(value.Date - Day1900).TotalDays;
        var units = (uint)Math.Round(value.TimeOfDay.Ticks * 300.0 / TimeSpan.TicksPerSecond);
        if (units >= 300u * 86400)
        {
            days++;
            units = 0;
        }

        b.Int32(days);
        b.UInt32(units);
    }

    /// <summary>datetimeoffset(7): UTC time and date as for datetime2, then the offset in minutes.</summary>
    private static void WriteDateTimeOffset(TdsBuffer b, DateTimeOffset value)
    {
        WriteTimeAndDate(b, value.UtcDateTime);
        b.UInt16((ushort)(short)value.Offset.TotalMinutes);
    }

    /// <summary>decimal: a sign byte (1 = positive), then the unscaled magnitude as 16 little-endian bytes.</summary>
    private static void WriteDecimal(TdsBuffer b, decimal value, byte scale)
    {
        var rounded = Math.Round(value, Math.Min((int)scale, 28), MidpointRounding.AwayFromZero);
        Span<int> bits = stackalloc int[4];
        decimal.GetBits(rounded, bits);
        var magnitude = ((UInt128)(uint)bits[2] << 64) | ((UInt128)(uint)bits[1] << 32) | (uint)bits[0];
        for (var s = rounded.Scale; s < scale; s++)
        {
            magnitude *= 10;
        }

        b.Byte(value < 0 ? (byte)0 : (byte)1);
        b.UInt64((ulong)magnitude);
        b.UInt64((ulong)(magnitude >> 64));
    }

    /// <summary>sql_variant: a 4-byte length, the base type, its property bytes, then the value.</summary>
    private static void WriteVariant(TdsBuffer b, object value)
    {
        var lengthAt = b.Length;
        b.Int32(0);
        switch (value)
        {
            case int v: Header(b, 0x38, 0); b.Int32(v); break;
            case long v: Header(b, 0x7F, 0); b.Int64(v); break;
            case short v: Header(b, 0x34, 0); b.UInt16((ushort)v); break;
            case byte v: Header(b, 0x30, 0); b.Byte(v); break;
            case bool v: Header(b, 0x32, 0); b.Byte(v ? (byte)1 : (byte)0); break;
            case double v: Header(b, 0x3E, 0); b.Int64(BitConverter.DoubleToInt64Bits(v)); break;
            case float v: Header(b, 0x3B, 0); b.Int32(BitConverter.SingleToInt32Bits(v)); break;
            case Guid v: Header(b, 0x24, 0); v.TryWriteBytes(b.Reserve(16)); break;
            case DateTime v: Header(b, 0x2A, 1); b.Byte(7); WriteTimeAndDate(b, v); break;
            case decimal v: Header(b, 0x6A, 2); b.Byte(38); b.Byte((byte)v.Scale); WriteDecimal(b, v, (byte)v.Scale); break;
            case string v:
                // [MS-TDS] 2.2.5.5.4 (sql_variant values): for a string base type the property bytes are the
                // 5-byte COLLATION first, then the 2-byte maximum length.
                Header(b, 0xE7, 7);
                b.Bytes(TdsTokens.Collation);
                b.UInt16(8000);
                b.Bytes(Encoding.Unicode.GetBytes(v.Length > 4000 ? v[..4000] : v));
                break;
            case byte[] v:
                Header(b, 0xA5, 2);
                b.UInt16(8000);
                b.Bytes(v.AsSpan(0, Math.Min(v.Length, 8000)));
                break;
            default:
                throw new ArgumentException($"sql_variant cannot carry a {value.GetType().Name}.");
        }

        System.Buffers.Binary.BinaryPrimitives.WriteInt32LittleEndian(
            b.WrittenSpanAt(lengthAt, 4), b.Length - lengthAt - 4);
    }

    private static void Header(TdsBuffer b, byte baseType, byte propertyBytes)
    {
        b.Byte(baseType);
        b.Byte(propertyBytes);
    }
}
