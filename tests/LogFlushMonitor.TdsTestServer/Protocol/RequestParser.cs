namespace LogFlushMonitor.TdsTestServer.Protocol;

/// <summary>Parses SQLBatch and RPC messages ([MS-TDS] 2.2.6.7, 2.2.6.6) into <see cref="TdsRequest"/> parts.</summary>
internal static class RequestParser
{
    private const ushort ProcIdExecuteSql = 10;

    private static readonly string[] ProcNames =
    [
        "", "sp_cursor", "sp_cursoropen", "sp_cursorprepare", "sp_cursorexecute", "sp_cursorprepexec",
        "sp_cursorunprepare", "sp_cursorfetch", "sp_cursoroption", "sp_cursorclose", "sp_executesql",
        "sp_prepare", "sp_execute", "sp_prepexec", "sp_prepexecrpc", "sp_unprepare",
    ];

    public readonly record struct Parsed(
        TdsRequestKind Kind, string Text, string? ProcedureName, string? Declarations, Dictionary<string, object?> Parameters);

    public static Parsed ParseBatch(ReadOnlySpan<byte> payload, bool hasAllHeaders)
    {
        var r = new TdsSpanReader(payload);
        SkipAllHeaders(ref r, hasAllHeaders);
        if (r.Remaining % 2 != 0)
        {
            throw new TdsProtocolException("SQLBatch text has an odd number of bytes.");
        }

        return new(TdsRequestKind.Batch, r.Unicode(r.Remaining / 2), null, null, new(StringComparer.OrdinalIgnoreCase));
    }

    public static Parsed ParseRpc(ReadOnlySpan<byte> payload, bool hasAllHeaders)
    {
        var r = new TdsSpanReader(payload);
        SkipAllHeaders(ref r, hasAllHeaders);
        var nameLength = r.UInt16();
        string name;
        if (nameLength == 0xFFFF)
        {
            var procId = r.UInt16();
            name = procId < ProcNames.Length ? ProcNames[procId] : $"procid:{procId}";
        }
        else
        {
            name = r.Unicode(nameLength);
        }

        r.UInt16(); // option flags
        var positional = new List<object?>();
        var named = new Dictionary<string, object?>(StringComparer.OrdinalIgnoreCase);
        // Parameters run to the end of the message or to a batch separator (0x80/0xFF) before another RPC.
        while (r.Remaining > 0)
        {
            var next = payload[r.Position];
            if (next is 0x80 or 0xFF)
            {
                break;
            }

            var paramName = r.BVarChar();
            r.Byte(); // status flags: by-ref, default
            var value = TdsValueReader.ReadParameterValue(ref r);
            positional.Add(value);
            if (paramName.Length > 0)
            {
                named[paramName] = value;
            }
        }

        var isExecuteSql = name.Equals("sp_executesql", StringComparison.OrdinalIgnoreCase)
            || name.EndsWith(".sp_executesql", StringComparison.OrdinalIgnoreCase);
        if (!isExecuteSql)
        {
            return new(TdsRequestKind.Rpc, name, name, null, named);
        }

        // sp_executesql: statement and declarations come first, positionally or as @stmt/@params.
        var statement = Take(named, "@stmt") ?? (positional.Count > 0 ? positional[0] as string : null) ?? string.Empty;
        var declarations = Take(named, "@params") ?? (positional.Count > 1 ? positional[1] as string : null);
        return new(TdsRequestKind.Rpc, statement, "sp_executesql", declarations, named);
    }

    private static string? Take(Dictionary<string, object?> named, string name) =>
        named.Remove(name, out var value) ? value as string : null;

    /// <summary>ALL_HEADERS (TDS 7.2+): a total length that includes itself, then the headers we do not need.</summary>
    private static void SkipAllHeaders(ref TdsSpanReader r, bool hasAllHeaders)
    {
        if (!hasAllHeaders)
        {
            return;
        }

        var total = r.UInt32();
        if (total < 4 || total - 4 > r.Remaining)
        {
            throw new TdsProtocolException($"ALL_HEADERS length {total} is invalid.");
        }

        r.Take((int)total - 4);
    }
}
