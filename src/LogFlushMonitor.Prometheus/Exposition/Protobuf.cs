using System.Buffers.Binary;
using System.Text;

namespace LogFlushMonitor.Prometheus.Exposition;

/// <summary>
/// The few protobuf encodings the <c>io.prometheus.client</c> messages need (varint, 64-bit, length-delimited; zigzag
/// for <c>sint32</c>/<c>sint64</c>), written into a <see cref="Utf8TextBuffer"/>, from the protobuf encoding
/// specification (protobuf.dev, "Encoding"). By hand rather than through Google.Protobuf's generated classes: a
/// handful of messages, written straight from the SDK's points without building message objects, and nothing that
/// trimming or NativeAOT could break.
/// </summary>
internal static class Protobuf
{
    /// <summary>Wire type 0: varint.</summary>
    public const int Varint = 0;

    /// <summary>Wire type 1: 64-bit (double).</summary>
    public const int Fixed64 = 1;

    /// <summary>Wire type 2: length-delimited (string, bytes, message, packed repeated).</summary>
    public const int LengthDelimited = 2;

    public static void WriteTag(Utf8TextBuffer output, int field, int wireType) => WriteVarint(output, (uint)((field << 3) | wireType));

    public static void WriteVarint(Utf8TextBuffer output, ulong value)
    {
        Span<byte> bytes = stackalloc byte[10];
        var n = 0;
        while (value >= 0x80)
        {
            bytes[n++] = (byte)(value | 0x80);
            value >>= 7;
        }

        bytes[n++] = (byte)value;
        output.Write(bytes[..n]);
    }

    /// <summary>Bytes a varint of <paramref name="value"/> takes.</summary>
    public static int VarintSize(ulong value)
    {
        var n = 1;
        while (value >= 0x80)
        {
            value >>= 7;
            n++;
        }

        return n;
    }

    /// <summary>Zigzag (sint32/sint64): small negative numbers stay small.</summary>
    public static ulong ZigZag(long value) => (ulong)((value << 1) ^ (value >> 63));

    public static void WriteVarintField(Utf8TextBuffer output, int field, ulong value)
    {
        WriteTag(output, field, Varint);
        WriteVarint(output, value);
    }

    public static void WriteSignedField(Utf8TextBuffer output, int field, long value) => WriteVarintField(output, field, ZigZag(value));

    public static void WriteDoubleField(Utf8TextBuffer output, int field, double value)
    {
        WriteTag(output, field, Fixed64);
        Span<byte> bytes = stackalloc byte[8];
        BinaryPrimitives.WriteDoubleLittleEndian(bytes, value);
        output.Write(bytes);
    }

    /// <summary>A string, bytes or embedded message field whose encoded body is <paramref name="body"/>.</summary>
    public static void WriteBytesField(Utf8TextBuffer output, int field, ReadOnlySpan<byte> body)
    {
        WriteTag(output, field, LengthDelimited);
        WriteVarint(output, (ulong)body.Length);
        output.Write(body);
    }

    /// <summary>A string field, UTF-8 encoded.</summary>
    public static byte[] StringField(int field, string value)
    {
        using var buffer = new Utf8TextBuffer(64);
        WriteBytesField(buffer, field, Encoding.UTF8.GetBytes(value));
        return buffer.WrittenSpan.ToArray();
    }

    /// <summary>An <c>io.prometheus.client.LabelPair</c> as field <paramref name="field"/> of its parent.</summary>
    public static void WriteLabelPair(Utf8TextBuffer output, int field, ReadOnlySpan<byte> name, ReadOnlySpan<byte> value)
    {
        var body = 1 + VarintSize((ulong)name.Length) + name.Length + 1 + VarintSize((ulong)value.Length) + value.Length;
        WriteTag(output, field, LengthDelimited);
        WriteVarint(output, (ulong)body);
        WriteBytesField(output, 1, name);
        WriteBytesField(output, 2, value);
    }
}
