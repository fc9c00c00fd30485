using System.Buffers.Binary;

namespace LogFlushMonitor.TdsTestServer.Protocol;

/// <summary>PRELOGIN ([MS-TDS] 2.2.6.5): reads the client's options and answers without TLS.</summary>
internal static class PreLogin
{
    private const byte Version = 0;
    private const byte Encryption = 1;
    private const byte InstOpt = 2;
    private const byte ThreadId = 3;
    private const byte Mars = 4;
    private const byte Terminator = 0xFF;

    /// <summary>ENCRYPT_NOT_SUP: this server never starts TLS.</summary>
    private const byte EncryptNotSupported = 2;

    /// <summary>Returns the client's ENCRYPTION byte (or null), validating the option table.</summary>
    public static byte? ReadEncryption(ReadOnlySpan<byte> payload)
    {
        byte? encryption = null;
        for (var at = 0; ; at += 5)
        {
            if (at >= payload.Length)
            {
                throw new TdsProtocolException("PRELOGIN option table has no terminator.");
            }

            var token = payload[at];
            if (token == Terminator)
            {
                return encryption;
            }

            if (at + 5 > payload.Length)
            {
                throw new TdsProtocolException("PRELOGIN option entry truncated.");
            }

            int offset = BinaryPrimitives.ReadUInt16BigEndian(payload[(at + 1)..]);
            int length = BinaryPrimitives.ReadUInt16BigEndian(payload[(at + 3)..]);
            if (offset + length > payload.Length)
            {
                throw new TdsProtocolException($"PRELOGIN option {token} points outside the message.");
            }

            if (token == Encryption && length >= 1)
            {
                encryption = payload[offset];
            }
        }
    }

    public static void WriteResponse(TdsBuffer b)
    {
        ReadOnlySpan<(byte Token, ushort Length)> options =
            [(Version, 6), (Encryption, 1), (InstOpt, 1), (ThreadId, 0), (Mars, 1)];
        var offset = (ushort)((options.Length * 5) + 1);
        foreach (var (token, length) in options)
        {
            b.Byte(token);
            b.UInt16BigEndian(offset);
            b.UInt16BigEndian(length);
            offset += length;
        }

        b.Byte(Terminator);
        b.Bytes([15, 0, 0x07, 0xD0, 0, 0]); // 15.0.2000.0, big-endian build number
        b.Byte(EncryptNotSupported);
        b.Byte(0); // instance name matched
        b.Byte(0); // MARS off
    }
}
