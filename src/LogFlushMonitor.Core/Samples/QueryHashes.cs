using System.Globalization;

namespace LogFlushMonitor.Core.Samples;

/// <summary>
/// A statement's query hash as the monitor writes it: <c>0x</c> and 16 upper-case hex digits, the way SQL Server shows a
/// <c>binary(8)</c> (<c>sys.query_store_query.query_hash</c>, <c>sys.dm_exec_query_stats.query_hash</c>). The event
/// session's <c>sqlserver.query_hash</c> action is the same 8 bytes read as an unsigned 64-bit integer (docs/sqlserver.md,
/// "Statements"), so <see cref="Format(ulong)"/> of the action's value and the view's bytes read big-endian are one text.
/// </summary>
public static class QueryHashes
{
    /// <summary>The length of a formatted hash (<c>0x</c> and 16 digits).</summary>
    public const int Length = 18;

    /// <summary><c>0x</c> and the 16 hex digits of <paramref name="hash"/> (allocates: call once per distinct hash).</summary>
    public static string Format(ulong hash) => "0x" + hash.ToString("X16", CultureInfo.InvariantCulture);

    /// <summary>The value of a <c>binary(8)</c> read from a view (big-endian, as <c>CAST(... AS bigint)</c> reads it); 0 when not 8 bytes.</summary>
    public static ulong FromBinary(ReadOnlySpan<byte> bytes) => bytes.Length == 8 ? System.Buffers.Binary.BinaryPrimitives.ReadUInt64BigEndian(bytes) : 0;

    /// <summary>Writes <see cref="Format(ulong)"/> of <paramref name="hash"/> into <paramref name="destination"/> (at least <see cref="Length"/> characters), allocating nothing.</summary>
    public static ReadOnlySpan<char> Format(ulong hash, Span<char> destination)
    {
        destination[0] = '0';
        destination[1] = 'x';
        hash.TryFormat(destination[2..], out var written, "X16", CultureInfo.InvariantCulture);
        return destination[..(2 + written)];
    }

    /// <summary>Parses <c>0x</c> and 1 to 16 hex digits (either case); false for anything else.</summary>
    public static bool TryParse(ReadOnlySpan<char> text, out ulong hash)
    {
        hash = 0;
        return text.Length is > 2 and <= Length && text[0] == '0' && text[1] is 'x' or 'X'
            && ulong.TryParse(text[2..], NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture, out hash);
    }
}
