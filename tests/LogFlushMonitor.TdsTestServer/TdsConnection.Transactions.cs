using LogFlushMonitor.TdsTestServer.Protocol;

namespace LogFlushMonitor.TdsTestServer;

internal sealed partial class TdsConnection
{
    private const ushort TmBegin = 5;
    private const ushort TmCommit = 7;
    private const ushort TmRollback = 8;
    private const ushort TmSave = 9;
    private static long _lastTransaction;
    private long _transaction;

    /// <summary>
    /// Transaction manager requests ([MS-TDS] 2.2.6.9): the server hands out a descriptor on begin and takes it
    /// back on commit or rollback (ENVCHANGE 8, 9, 10); there is no data, so nothing else happens.
    /// </summary>
    private async Task TransactAsync(TdsMessageSender sender, TdsLogin login, byte[] payload, bool hasAllHeaders, CancellationToken token)
    {
        var r = new TdsSpanReader(payload);
        if (hasAllHeaders)
        {
            var total = r.UInt32();
            if (total < 4 || total - 4 > r.Remaining)
            {
                throw new TdsProtocolException($"ALL_HEADERS length {total} is invalid.");
            }

            r.Take((int)total - 4);
        }

        var requestType = r.UInt16();
        string text;
        switch (requestType)
        {
            case TmBegin:
                r.Byte(); // isolation level
                text = Named("BEGIN TRANSACTION", r.Remaining > 0 ? r.BVarChar() : string.Empty);
                _transaction = Interlocked.Increment(ref _lastTransaction);
                WriteTransactionChange(sender.Tokens, 8, newValue: _transaction, oldValue: 0);
                break;
            case TmCommit or TmRollback:
                text = Named(requestType == TmCommit ? "COMMIT TRANSACTION" : "ROLLBACK TRANSACTION", r.Remaining > 0 ? r.BVarChar() : string.Empty);
                WriteTransactionChange(sender.Tokens, requestType == TmCommit ? (byte)9 : (byte)10, newValue: 0, oldValue: _transaction);
                _transaction = 0;
                break;
            case TmSave:
                text = Named("SAVE TRANSACTION", r.BVarChar());
                break;
            default:
                throw new TdsProtocolException($"Unsupported transaction manager request {requestType}.");
        }

        server.RecordRequest(new TdsRequest(
            Id, TdsRequestKind.Transaction, text, null, null, new Dictionary<string, object?>(), server.Options.TimeProvider.GetUtcNow(), login));
        TdsTokens.WriteDone(sender.Tokens, TdsTokens.Done, TdsTokens.DoneFinal, 0);
        await sender.FlushAsync(endOfMessage: true, partial: true, token);
    }

    private static string Named(string verb, string name) => name.Length == 0 ? verb : $"{verb} {name}";

    /// <summary>ENVCHANGE whose values are 8-byte transaction descriptors as B_VARBYTE (0 means empty).</summary>
    private static void WriteTransactionChange(TdsBuffer b, byte type, long newValue, long oldValue)
    {
        b.Byte(0xE3);
        var lengthAt = b.Length;
        b.UInt16(0);
        b.Byte(type);
        foreach (var value in (ReadOnlySpan<long>)[newValue, oldValue])
        {
            if (value == 0)
            {
                b.Byte(0);
            }
            else
            {
                b.Byte(8);
                b.Int64(value);
            }
        }

        b.PatchLength16(lengthAt);
    }
}
