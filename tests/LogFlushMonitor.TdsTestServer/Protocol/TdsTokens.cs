namespace LogFlushMonitor.TdsTestServer.Protocol;

/// <summary>Writes the response tokens of [MS-TDS] 2.2.7 (TDS 7.2+ layouts).</summary>
internal static class TdsTokens
{
    public const ushort DoneFinal = 0x00;
    public const ushort DoneMore = 0x01;
    public const ushort DoneError = 0x02;
    public const ushort DoneCount = 0x10;
    public const ushort DoneAttention = 0x20;

    public const byte Done = 0xFD;
    public const byte DoneProc = 0xFE;
    public const byte DoneInProc = 0xFF;

    /// <summary>SQL_Latin1_General_CP1_CI_AS: LCID 0x0409, ignore case/kana/width, sort id 52.</summary>
    public static ReadOnlySpan<byte> Collation => [0x09, 0x04, 0xD0, 0x00, 0x34];

    public static void WriteDone(TdsBuffer b, byte token, ushort status, long rowCount, ushort currentCommand = 0)
    {
        b.Byte(token);
        b.UInt16(status);
        b.UInt16(currentCommand);
        b.Int64(rowCount);
    }

    /// <summary>ERROR (0xAA) or INFO (0xAB).</summary>
    public static void WriteMessage(TdsBuffer b, bool error, int number, byte state, byte @class, string message, string serverName)
    {
        b.Byte(error ? (byte)0xAA : (byte)0xAB);
        var lengthAt = b.Length;
        b.UInt16(0);
        b.Int32(number);
        b.Byte(state);
        b.Byte(@class);
        b.UsVarChar(message);
        b.BVarChar(serverName);
        b.BVarChar(string.Empty);
        b.Int32(1);
        b.PatchLength16(lengthAt);
    }

    public static void WriteReturnStatus(TdsBuffer b, int status)
    {
        b.Byte(0x79);
        b.Int32(status);
    }

    /// <summary>ENVCHANGE with B_VARCHAR new and old values (database, language, packet size).</summary>
    public static void WriteEnvChange(TdsBuffer b, byte type, string newValue, string oldValue)
    {
        b.Byte(0xE3);
        var lengthAt = b.Length;
        b.UInt16(0);
        b.Byte(type);
        b.BVarChar(newValue);
        b.BVarChar(oldValue);
        b.PatchLength16(lengthAt);
    }

    /// <summary>ENVCHANGE type 7: the SQL collation as B_VARBYTE.</summary>
    public static void WriteCollationChange(TdsBuffer b)
    {
        b.Byte(0xE3);
        var lengthAt = b.Length;
        b.UInt16(0);
        b.Byte(7);
        b.Byte((byte)Collation.Length);
        b.Bytes(Collation);
        b.Byte(0);
        b.PatchLength16(lengthAt);
    }

    public static void WriteLoginAck(TdsBuffer b, uint tdsVersion, string programName, Version? programVersion = null)
    {
        var v = programVersion ?? new Version(15, 0, 2000);
        b.Byte(0xAD);
        var lengthAt = b.Length;
        b.UInt16(0);
        b.Byte(1); // SQL_TSQL interface
        // TDS version and program version are in network (big-endian) order here.
        b.Byte((byte)(tdsVersion >> 24));
        b.Byte((byte)(tdsVersion >> 16));
        b.Byte((byte)(tdsVersion >> 8));
        b.Byte((byte)tdsVersion);
        b.BVarChar(programName);
        b.Bytes([(byte)v.Major, (byte)v.Minor, (byte)(Math.Max(0, v.Build) >> 8), (byte)Math.Max(0, v.Build)]); // 15.0.2000 (SQL Server 2019 RTM) unless set
        b.PatchLength16(lengthAt);
    }

    /// <summary>FEATUREEXTACK carrying no features: the client learns none of its optional requests were taken.</summary>
    public static void WriteEmptyFeatureExtAck(TdsBuffer b)
    {
        b.Byte(0xAE);
        b.Byte(0xFF);
    }
}
