namespace LogFlushMonitor.TdsTestServer.Protocol;

/// <summary>What a response step needs while it writes: the sender, the attention token and how to end a statement.</summary>
internal sealed class ResponseContext(
    TdsMessageSender sender,
    bool isRpc,
    string serverName,
    TimeProvider timeProvider,
    CancellationToken attention,
    CancellationToken lifetime)
{
    public TdsMessageSender Sender { get; } = sender;

    public TdsBuffer Tokens => Sender.Tokens;

    public string ServerName { get; } = serverName;

    public TimeProvider TimeProvider { get; } = timeProvider;

    /// <summary>Cancelled when the client sends an attention (or the connection ends).</summary>
    public CancellationToken Attention { get; } = attention;

    /// <summary>Cancelled only when the connection ends; used for writes, which must finish whole packets.</summary>
    public CancellationToken Lifetime { get; } = lifetime;

    public bool HadError { get; set; }

    /// <summary>Ends one statement: DONE in a batch, DONEINPROC inside an RPC.</summary>
    public void EndStatement(ushort status, long rowCount) =>
        TdsTokens.WriteDone(Tokens, isRpc ? TdsTokens.DoneInProc : TdsTokens.Done, (ushort)(status | TdsTokens.DoneMore), rowCount);

    /// <summary>Ends the request: DONE, or RETURNSTATUS and DONEPROC for an RPC.</summary>
    public void EndRequest()
    {
        var status = HadError ? TdsTokens.DoneError : TdsTokens.DoneFinal;
        if (isRpc)
        {
            TdsTokens.WriteReturnStatus(Tokens, HadError ? 1 : 0);
            TdsTokens.WriteDone(Tokens, TdsTokens.DoneProc, status, 0);
        }
        else
        {
            TdsTokens.WriteDone(Tokens, TdsTokens.Done, status, 0);
        }
    }

    /// <summary>Sends whatever full packets are ready, keeping memory bounded for big result sets.</summary>
    public Task PumpAsync() => Sender.FlushAsync(endOfMessage: false, partial: false, Lifetime);

    /// <summary>Sends everything composed so far now, as a partial (non-EOM) packet.</summary>
    public Task FlushNowAsync() => Sender.FlushAsync(endOfMessage: false, partial: true, Lifetime);
}
