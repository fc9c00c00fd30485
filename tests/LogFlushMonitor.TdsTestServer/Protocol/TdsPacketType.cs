namespace LogFlushMonitor.TdsTestServer.Protocol;

/// <summary>Packet header types ([MS-TDS] 2.2.3.1.1) that this server understands.</summary>
internal static class TdsPacketType
{
    public const byte SqlBatch = 0x01;
    public const byte Rpc = 0x03;
    public const byte TabularResult = 0x04;
    public const byte Attention = 0x06;
    public const byte TransactionManager = 0x0E;
    public const byte Login7 = 0x10;
    public const byte PreLogin = 0x12;

    /// <summary>Status bit: last packet of the message.</summary>
    public const byte EndOfMessage = 0x01;

    /// <summary>Status bit: the client asks for a session reset (pooled connection reuse).</summary>
    public const byte ResetConnection = 0x08;

    public const int HeaderLength = 8;
}
