using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace LogFlushMonitor.XEvent.Binary;

/// <summary>
/// Little-endian reads without a bounds check, for offsets the caller has already validated (the record loop
/// checks each record once, then reads its header and action entries through these).
/// </summary>
internal static class Bytes
{
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static uint U32(ReadOnlySpan<byte> span, int at)
    {
        var v = Unsafe.ReadUnaligned<uint>(ref Unsafe.Add(ref MemoryMarshal.GetReference(span), (nint)(uint)at));
        return BitConverter.IsLittleEndian ? v : BinaryPrimitives.ReverseEndianness(v);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static ulong U64(ReadOnlySpan<byte> span, int at)
    {
        var v = Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref MemoryMarshal.GetReference(span), (nint)(uint)at));
        return BitConverter.IsLittleEndian ? v : BinaryPrimitives.ReverseEndianness(v);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static ushort U16(ReadOnlySpan<byte> span, int at)
    {
        var v = Unsafe.ReadUnaligned<ushort>(ref Unsafe.Add(ref MemoryMarshal.GetReference(span), (nint)(uint)at));
        return BitConverter.IsLittleEndian ? v : BinaryPrimitives.ReverseEndianness(v);
    }

    /// <summary>A slice whose bounds the caller has validated.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static ReadOnlySpan<byte> Slice(ReadOnlySpan<byte> span, int start, int length) =>
        MemoryMarshal.CreateReadOnlySpan(ref Unsafe.Add(ref MemoryMarshal.GetReference(span), (nint)(uint)start), length);

    /// <summary>An unsigned integer of 1, 2, 4 or 8 bytes at a validated offset.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static ulong Unsigned(ReadOnlySpan<byte> span, int at, int size) => size switch
    {
        8 => U64(span, at),
        4 => U32(span, at),
        2 => U16(span, at),
        _ => Unsafe.Add(ref MemoryMarshal.GetReference(span), (nint)(uint)at),
    };
}

/// <summary>The 32-byte buffer header (docs/xel-format.md, "The 32-byte buffer header").</summary>
internal readonly record struct BufferHeader(uint Padded, ushort LogVersion, ushort Type, ushort Unused, ushort DataOffset, uint DataLength, uint Sequence)
{
    /// <summary>The <see cref="Sequence"/> of metadata buffers (and of the event buffer of some server-written files): no number.</summary>
    public const uint NoSequence = uint.MaxValue;

    public static BufferHeader Parse(ReadOnlySpan<byte> header) => new(
        BinaryPrimitives.ReadUInt32LittleEndian(header[0x10..]),
        BinaryPrimitives.ReadUInt16LittleEndian(header[0x0C..]),
        BinaryPrimitives.ReadUInt16LittleEndian(header[0x0E..]),
        BinaryPrimitives.ReadUInt16LittleEndian(header[0x14..]),
        BinaryPrimitives.ReadUInt16LittleEndian(header[0x16..]),
        BinaryPrimitives.ReadUInt32LittleEndian(header[0x18..]),
        BinaryPrimitives.ReadUInt32LittleEndian(header[0x08..]));

    /// <summary>A padded length of at most a header: what a zeroed header reads as; the data ends here.</summary>
    public bool IsZeroed => Padded <= XelConstants.BufferHeaderLength;

    /// <summary>End of the data area, from the buffer start.</summary>
    public int DataEnd => DataOffset + (int)DataLength;

    /// <summary>First byte after the data area rounded up to a 512-byte sector: where slack would hold another buffer.</summary>
    public long SectorAlignedDataEnd => ((long)DataOffset + DataLength + 511) / 512 * 512;

    /// <summary>The structural problem of a header whose buffer has <paramref name="available"/> bytes, or null.</summary>
    public (string Text, int Offset)? Problem(long available)
    {
        if (LogVersion != XelConstants.SupportedVersion)
        {
            return ($"Unsupported buffer log version {LogVersion}; supported: {XelConstants.SupportedVersion}", 0x0C);
        }

        var limit = (uint)Math.Min(Padded, Math.Max(0, available));
        if (DataOffset < XelConstants.BufferHeaderLength || DataOffset > limit || DataLength > limit - DataOffset)
        {
            return ($"Buffer data area (offset {DataOffset}, length {DataLength}) does not fit in {limit} bytes", 0x16);
        }

        return null;
    }

    /// <summary>
    /// The stricter test for a header found by scanning (after damage, or inside another buffer's slack): every
    /// observed buffer has it. A false "no" costs only more skipped bytes; a false "yes" is also checked by
    /// walking the buffer's content.
    /// </summary>
    public bool IsPlausible(long remaining) =>
        LogVersion == XelConstants.SupportedVersion
        && Type <= 1
        && Unused == 0
        && Padded > XelConstants.BufferHeaderLength
        && Padded % 512 == 0
        && Padded <= remaining
        && DataOffset >= XelConstants.BufferHeaderLength
        && (long)DataOffset + DataLength <= Padded;
}
