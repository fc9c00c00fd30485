using System.Buffers.Binary;
using System.Text;

namespace LogFlushMonitor.TdsTestServer.Protocol;

/// <summary>LOGIN7 ([MS-TDS] 2.2.6.4): the fixed header and the offset/length table of UTF-16 fields.</summary>
internal static class Login7Parser
{
    private const int FixedLength = 36;
    private const byte ExtensionFlag = 0x10;

    public static (TdsLogin Login, bool WantsFeatureExt) Parse(int connectionId, ReadOnlySpan<byte> data)
    {
        if (data.Length < FixedLength + 36)
        {
            throw new TdsProtocolException($"LOGIN7 of {data.Length} bytes is too short.");
        }

        var tdsVersion = BinaryPrimitives.ReadUInt32LittleEndian(data[4..]);
        var packetSize = BinaryPrimitives.ReadInt32LittleEndian(data[8..]);
        var optionFlags3 = data[27];
        var login = new TdsLogin(
            connectionId,
            tdsVersion,
            UserName: Field(data, 40, obfuscated: false),
            Password: Field(data, 44, obfuscated: true),
            Database: Field(data, 68, obfuscated: false),
            AppName: Field(data, 48, obfuscated: false),
            HostName: Field(data, 36, obfuscated: false),
            PacketSize: packetSize);
        return (login, (optionFlags3 & ExtensionFlag) != 0);
    }

    private static string Field(ReadOnlySpan<byte> data, int entry, bool obfuscated)
    {
        int offset = BinaryPrimitives.ReadUInt16LittleEndian(data[entry..]);
        int chars = BinaryPrimitives.ReadUInt16LittleEndian(data[(entry + 2)..]);
        if (chars == 0)
        {
            return string.Empty;
        }

        if (offset + (chars * 2) > data.Length)
        {
            throw new TdsProtocolException($"LOGIN7 field at entry {entry} points outside the message.");
        }

        var bytes = data.Slice(offset, chars * 2).ToArray();
        if (obfuscated)
        {
            // The client swapped each byte's nibbles and then XORed with 0xA5; undo in reverse order.
            for (var i = 0; i < bytes.Length; i++)
            {
                var x = (byte)(bytes[i] ^ 0xA5);
                bytes[i] = (byte)((x << 4) | (x >> 4));
            }
        }

        return Encoding.Unicode.GetString(bytes);
    }
}
