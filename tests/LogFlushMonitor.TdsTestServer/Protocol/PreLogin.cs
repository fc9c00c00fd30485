using System.Buffers.Binary;

namespace LogFlushMonitor.TdsTestServer.Protocol;

/// <summary>PRELOGIN ([MS-TDS] 2.2.6.5): reads the client's options, settles encryption and answers.</summary>
internal static class PreLogin
{
    private const byte Version = 0;
    private const byte Encryption = 1;
    private const byte InstOpt = 2;
    private const byte ThreadId = 3;
    private const byte Mars = 4;
    private const byte Terminator = 0xFF;

    /// <summary>ENCRYPTION values ([MS-TDS] 2.2.6.5); a client may add ENCRYPT_CLIENT_CERT (0x80) to its own.</summary>
    public const byte EncryptOff = 0;
    public const byte EncryptOn = 1;
    public const byte EncryptNotSupported = 2;
    public const byte EncryptRequired = 3;
    private const byte EncryptClientCertificate = 0x80;

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

    /// <summary>
    /// The server's answer and what follows from it, after the table in [MS-TDS] 2.2.6.5: the client's value against
    /// the server's setting. A null security means the server closes the connection (it requires encryption, the
    /// client cannot encrypt). A client that sent no ENCRYPTION option counts as ENCRYPT_OFF.
    /// </summary>
    public static (byte Answer, TdsSessionSecurity? Security) Negotiate(TdsEncryption server, byte? client)
    {
        var value = (byte)((client ?? EncryptOff) & ~EncryptClientCertificate);
        return server switch
        {
            TdsEncryption.NotSupported => (EncryptNotSupported, TdsSessionSecurity.None),
            TdsEncryption.Optional => value switch
            {
                EncryptOff => (EncryptOff, TdsSessionSecurity.LoginOnly),
                EncryptOn or EncryptRequired => (EncryptOn, TdsSessionSecurity.Full),
                _ => (EncryptNotSupported, TdsSessionSecurity.None),
            },
            TdsEncryption.Required => value switch
            {
                EncryptNotSupported => (EncryptRequired, null),
                EncryptOn => (EncryptOn, TdsSessionSecurity.Full),
                _ => (EncryptRequired, TdsSessionSecurity.Full),
            },
            _ => throw new ArgumentOutOfRangeException(nameof(server), server, "A TDS 8 server negotiates nothing in PRELOGIN."),
        };
    }

    /// <summary>Writes the PRELOGIN response with <paramref name="encryption"/> as the ENCRYPTION option.</summary>
    public static void WriteResponse(TdsBuffer b, byte encryption)
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
        b.Byte(encryption);
        b.Byte(0); // instance name matched
        b.Byte(0); // MARS off
    }
}
