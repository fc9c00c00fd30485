using System.Text;

namespace LogFlushMonitor.TdsTestServer.Protocol;

/// <summary>Reads an RPC parameter's TYPE_INFO and value ([MS-TDS] 2.2.5.4-2.2.5.6) into a .NET value.</summary>
internal static class TdsValueReader
{
    private static readonly DateTime DayZero = new(1, 1, 1);
    private static readonly DateTime Day1900 = new(1900, 1, 1);

    private enum Kind
    {
        Fixed,
        ByteLength,
        UShortLength,
        LongLength,
        Plp,
    }

    private readonly record struct TypeInfo(byte Token, Kind Kind, int Length, byte Scale);

    public static object? ReadParameterValue(ref TdsSpanReader r)
    {
        var type = ReadTypeInfo(ref r);
        return ReadValue(ref r, type);
    }

    private static TypeInfo ReadTypeInfo(ref TdsSpanReader r)
    {
        var token = r.Byte();
        switch (token)
        {
            case 0x1F: return new(token, Kind.Fixed, 0, 0); // NULLTYPE
            case 0x30 or 0x32: return new(token, Kind.Fixed, 1, 0); // tinyint, bit
            case 0x34: return new(token, Kind.Fixed, 2, 0);
            case 0x38 or 0x3A or 0x3B or 0x7A: return new(token, Kind.Fixed, 4, 0);
            case 0x3C or 0x3D or 0x3E or 0x7F: return new(token, Kind.Fixed, 8, 0);
            case 0x24 or 0x26 or 0x68 or 0x6D or 0x6E or 0x6F:
                return new(token, Kind.ByteLength, r.Byte(), 0);
            case 0x6A or 0x6C: // decimal, numeric: length, precision, scale
                var length = r.Byte();
                r.Byte();
                return new(token, Kind.ByteLength, length, r.Byte());
            case 0x28: return new(token, Kind.ByteLength, 3, 0); // date
            case 0x29 or 0x2A or 0x2B: return new(token, Kind.ByteLength, 0, r.Byte()); // time, datetime2, datetimeoffset
            case 0xA5 or 0xAD or 0xA7 or 0xAF or 0xE7 or 0xEF:
                var max = r.UInt16();
                if (token is 0xA7 or 0xAF or 0xE7 or 0xEF)
                {
                    r.Take(5); // collation
                }

                return new(token, max == 0xFFFF ? Kind.Plp : Kind.UShortLength, max, 0);
            case 0x22 or 0x23 or 0x63: // image, text, ntext
                r.Int32();
                if (token != 0x22)
                {
                    r.Take(5);
                }

                return new(token, Kind.LongLength, 0, 0);
            default:
                throw new TdsProtocolException($"Unsupported parameter type 0x{token:X2}.");
        }
    }

    private static object? ReadValue(ref TdsSpanReader r, TypeInfo type)
    {
        ReadOnlySpan<byte> bytes;
        switch (type.Kind)
        {
            case Kind.Fixed:
                bytes = r.Take(type.Length);
                return type.Token == 0x1F ? null : Decode(type, bytes);
            case Kind.ByteLength:
                var n = r.Byte();
                return n == 0 ? null : Decode(type, r.Take(n));
            case Kind.UShortLength:
                var u = r.UInt16();
                return u == 0xFFFF ? null : Decode(type, r.Take(u));
            case Kind.LongLength:
                var l = r.Int32();
                return l < 0 ? null : Decode(type, r.Take(l));
            default:
                var plp = ReadPlp(ref r);
                return plp is null ? null : Decode(type, plp);
        }
    }

    private static byte[]? ReadPlp(ref TdsSpanReader r)
    {
        var total = r.UInt64();
        if (total == ulong.MaxValue)
        {
            return null;
        }

        using var data = new MemoryStream();
        for (var chunk = r.UInt32(); chunk != 0; chunk = r.UInt32())
        {
            data.Write(r.Take(checked((int)chunk)));
        }

        return data.ToArray();
    }

    private static object Decode(TypeInfo type, ReadOnlySpan<byte> v) => type.Token switch
    {
        0x30 => v[0],
        0x32 => v[0] != 0,
        0x34 => BitConverter.ToInt16(v),
        0x38 => BitConverter.ToInt32(v),
        0x7F => BitConverter.ToInt64(v),
        0x26 => v.Length switch
        {
            1 => (object)v[0],
            2 => (object)BitConverter.ToInt16(v),
            4 => (object)BitConverter.ToInt32(v),
            _ => (object)BitConverter.ToInt64(v),
        },
        0x68 => v[0] != 0,
        0x3B => BitConverter.ToSingle(v),
        0x3E => BitConverter.ToDouble(v),
        0x6D => v.Length == 4 ? (object)BitConverter.ToSingle(v) : (object)BitConverter.ToDouble(v),
        0x3C or 0x7A or 0x6E => Money(v),
        0x3A or 0x3D or 0x6F => LegacyDateTime(v),
        0x24 => new Guid(v),
        0x6A or 0x6C => Decimal(v, type.Scale),
        0x28 => DayZero.AddDays(UInt24(v)),
        0x29 => new TimeSpan(Time(v, type.Scale)),
        0x2A => DayZero.AddDays(UInt24(v[^3..])).AddTicks(Time(v[..^3], type.Scale)),
        0x2B => DateTimeOffsetValue(v, type.Scale),
        0xA7 or 0xAF or 0x23 => Encoding.Latin1.GetString(v),
        0xE7 or 0xEF or 0x63 => Encoding.Unicode.GetString(v),
        _ => v.ToArray(),
    };

    private static int UInt24(ReadOnlySpan<byte> v) => v[0] | (v[1] << 8) | (v[2] << 16);

    /// <summary>Time as 100 ns ticks: the wire holds units of 10^-scale seconds in 3 to 5 bytes.</summary>
    private static long Time(ReadOnlySpan<byte> v, byte scale)
    {
        long units = 0;
        for (var i = v.Length - 1; i >= 0; i--)
        {
            units = (units << 8) | v[i];
        }

        for (var s = scale; s < 7; s++)
        {
            units *= 10;
        }

        return units;
    }

    private static DateTimeOffset DateTimeOffsetValue(ReadOnlySpan<byte> v, byte scale)
    {
        var utc = DayZero.AddDays(UInt24(v[^5..^2])).AddTicks(Time(v[..^5], scale));
        var offset = TimeSpan.FromMinutes(BitConverter.ToInt16(v[^2..]));
        return new DateTimeOffset(utc + offset, offset);
    }

    private static DateTime LegacyDateTime(ReadOnlySpan<byte> v) => v.Length == 4
        ? Day1900.AddDays(BitConverter.ToUInt16(v)).AddMinutes(BitConverter.ToUInt16(v[2..]))
        : Day1900.AddDays(BitConverter.ToInt32(v)).AddTicks((long)Math.Round(BitConverter.ToUInt32(v[4..]) * (TimeSpan.TicksPerSecond / 300.0)));

    private static decimal Money(ReadOnlySpan<byte> v)
    {
        long units = v.Length == 4 ? BitConverter.ToInt32(v) : ((long)BitConverter.ToInt32(v) << 32) | BitConverter.ToUInt32(v[4..]);
        return units / 10000m;
    }

    private static decimal Decimal(ReadOnlySpan<byte> v, byte scale)
    {
        // Sign byte (1 = positive), then a little-endian magnitude of 4, 8, 12 or 16 bytes.
        Span<int> parts = stackalloc int[4];
        v[1..].CopyTo(System.Runtime.InteropServices.MemoryMarshal.AsBytes(parts));
        return new decimal(parts[0], parts[1], parts[2], v[0] == 0, scale);
    }
}
