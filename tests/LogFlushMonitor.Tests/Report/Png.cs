using System.Buffers.Binary;
using System.IO.Compression;

namespace LogFlushMonitor.Tests.Report;

/// <summary>
/// Just enough of PNG to read a browser's screenshot: 8-bit RGB or RGBA, not interlaced; the IDAT stream inflated with
/// <see cref="ZLibStream"/> and each row unfiltered (PNG specification, section 9).
/// </summary>
internal sealed class Png
{
    private Png(int width, int height, int channels, byte[] pixels) => (Width, Height, Channels, Pixels) = (width, height, channels, pixels);

    public int Width { get; }

    public int Height { get; }

    public int Channels { get; }

    /// <summary>Rows of Width × Channels bytes, top to bottom.</summary>
    public byte[] Pixels { get; }

    public (byte R, byte G, byte B) this[int x, int y]
    {
        get
        {
            var i = ((y * Width) + x) * Channels;
            return (Pixels[i], Pixels[i + 1], Pixels[i + 2]);
        }
    }

    public static Png Read(string path)
    {
        var data = File.ReadAllBytes(path);
        if (!data.AsSpan(0, 8).SequenceEqual((ReadOnlySpan<byte>)[0x89, (byte)'P', (byte)'N', (byte)'G', 0x0D, 0x0A, 0x1A, 0x0A]))
        {
            throw new InvalidDataException($"{path} is not a PNG file.");
        }

        int width = 0, height = 0, channels = 0;
        using var idat = new MemoryStream();
        for (var pos = 8; pos + 8 <= data.Length;)
        {
            var length = BinaryPrimitives.ReadInt32BigEndian(data.AsSpan(pos));
            var type = System.Text.Encoding.ASCII.GetString(data, pos + 4, 4);
            var body = data.AsSpan(pos + 8, length);
            if (type == "IHDR")
            {
                (width, height) = (BinaryPrimitives.ReadInt32BigEndian(body), BinaryPrimitives.ReadInt32BigEndian(body[4..]));
                if (body[8] != 8 || body[12] != 0 || body[9] is not (2 or 6))
                {
                    throw new InvalidDataException($"Only 8-bit RGB/RGBA non-interlaced PNG is read (depth {body[8]}, colour type {body[9]}, interlace {body[12]}).");
                }

                channels = body[9] == 2 ? 3 : 4;
            }
            else if (type == "IDAT")
            {
                idat.Write(body);
            }

            pos += 12 + length;
        }

        idat.Position = 0;
        using var inflate = new ZLibStream(idat, CompressionMode.Decompress);
        var stride = width * channels;
        var pixels = new byte[stride * height];
        var row = new byte[stride + 1];
        for (var y = 0; y < height; y++)
        {
            inflate.ReadExactly(row);
            Unfilter(row[0], row.AsSpan(1), y > 0 ? pixels.AsSpan((y - 1) * stride, stride) : new byte[stride], channels);
            row.AsSpan(1).CopyTo(pixels.AsSpan(y * stride));
        }

        return new Png(width, height, channels, pixels);
    }

    private static void Unfilter(byte filter, Span<byte> line, ReadOnlySpan<byte> previous, int bpp)
    {
        for (var i = 0; i < line.Length; i++)
        {
            int a = i >= bpp ? line[i - bpp] : 0, b = previous[i], c = i >= bpp ? previous[i - bpp] : 0;
            line[i] += filter switch
            {
                0 => 0,
                1 => (byte)a,
                2 => (byte)b,
                3 => (byte)((a + b) / 2),
                4 => Paeth(a, b, c),
                _ => throw new InvalidDataException($"Unknown PNG filter {filter}."),
            };
        }
    }

    private static byte Paeth(int a, int b, int c)
    {
        int p = a + b - c, pa = Math.Abs(p - a), pb = Math.Abs(p - b), pc = Math.Abs(p - c);
        return (byte)(pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
    }
}
