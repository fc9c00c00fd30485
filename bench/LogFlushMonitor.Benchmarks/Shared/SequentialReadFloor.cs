using System.Buffers;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace LogFlushMonitor.Benchmarks.Shared;

/// <summary>
/// The floor every file benchmark is measured against: the same bytes read sequentially in 256 KB chunks and
/// folded into a trivial checksum.
/// </summary>
public static class SequentialReadFloor
{
    /// <summary>Reads <paramref name="path"/> and returns the checksum of its 8-byte words.</summary>
    public static ulong Read(string path)
    {
        var buffer = ArrayPool<byte>.Shared.Rent(256 * 1024);
        try
        {
            using var fs = new FileStream(path, new FileStreamOptions { Mode = FileMode.Open, Access = FileAccess.Read, BufferSize = 0, Options = FileOptions.SequentialScan });
            ulong sum = 0;
            int n;
            while ((n = fs.Read(buffer, 0, buffer.Length)) > 0)
            {
                sum += Checksum(buffer.AsSpan(0, n));
            }

            return sum;
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }
    }

    /// <summary>
    /// Sums the 8-byte words. Fully optimised from the first call: a benchmark method runs too few times
    /// to tier up, and a tier-0 loop would make the floor look slower than it is.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private static ulong Checksum(ReadOnlySpan<byte> bytes)
    {
        ulong sum = 0;
        foreach (var word in MemoryMarshal.Cast<byte, ulong>(bytes[..(bytes.Length & ~7)]))
        {
            sum += word;
        }

        return sum;
    }
}
