using System.Globalization;
using LogFlushMonitor.TdsTestServer.Protocol;
using LogFlushMonitor.TdsTestServer.Tls;

namespace LogFlushMonitor.TdsTestServer;

internal sealed partial class TdsConnection
{
    private const uint Tds74 = 0x74000004;

    /// <summary>
    /// The version this server acknowledges: the client's own when it is 7.x up to 7.4, else 7.4. TDS 8's
    /// 0x08000000 sorts below 7.x as a number but is newer: it changes how the connection is secured, not the
    /// tokens, so it gets 7.4 too.
    /// </summary>
    private static uint Acknowledged(uint clientVersion) =>
        (clientVersion >> 24) is >= 0x70 and <= 0x74 && clientVersion <= Tds74 ? clientVersion : Tds74;

    private async Task<TdsLogin?> LoginAsync(TransportStream transport, TdsPacketReader reader, TdsMessageSender sender, CancellationToken token)
    {
        var security = await SecureAsync(transport, reader, sender, token);
        if (security is null)
        {
            return null;
        }

        var message = security.Value.PendingMessage;
        if (message is null)
        {
            server.Log(Id, "client closed the connection before logging in");
            return null;
        }

        if (message.Type != TdsPacketType.Login7)
        {
            throw new TdsProtocolException($"Expected LOGIN7, got packet type 0x{message.Type:X2}.");
        }

        var (parsed, wantsFeatureExt) = Login7Parser.Parse(Id, message.Payload);
        var login = parsed with
        {
            Security = security.Value.Security,
            ClientEncryption = security.Value.ClientEncryption,
            TlsProtocol = _tls?.SslProtocol ?? System.Security.Authentication.SslProtocols.None,
            ApplicationProtocol = security.Value.Security == TdsSessionSecurity.Strict ? _tls!.NegotiatedApplicationProtocol.ToString() : null,
        };
        if (login.Security == TdsSessionSecurity.LoginOnly)
        {
            // Login-only encryption ([MS-TDS] 2.2.6.5): TLS ends with the LOGIN7 message; the answer is in clear text.
            transport.Current = transport.Socket;
        }

        server.RecordLogin(login);
        var b = sender.Tokens;
        if (server.Options.LoginDelay > TimeSpan.Zero)
        {
            await Task.Delay(server.Options.LoginDelay, server.Options.TimeProvider, token);
        }

        if (server.Options.LoginAnswerBytes?.Invoke(login) is { } raw)
        {
            await transport.Current.WriteAsync(raw, token);
            await transport.Current.FlushAsync(token);
            server.Log(Id, $"answered LOGIN7 with {raw.Length} raw bytes");
            return null;
        }

        var rejection = server.Options.Authenticate(login)
            ? server.Options.RejectLogin?.Invoke(login)
            : new TdsErrorException(18456, $"Login failed for user '{login.UserName}'.", state: 1, severity: 14);
        if (rejection is not null)
        {
            TdsTokens.WriteMessage(b, true, rejection.Number, rejection.State, rejection.Severity, rejection.Message, server.Options.ServerName);
            TdsTokens.WriteDone(b, TdsTokens.Done, TdsTokens.DoneError, 0);
            await sender.FlushAsync(endOfMessage: true, partial: true, token);
            server.Log(Id, $"login rejected for user '{login.UserName}' with error {rejection.Number}");
            return null;
        }

        var database = login.Database.Length > 0 ? login.Database : server.Options.DefaultDatabase;
        var packetSize = login.PacketSize is >= 512 and <= 32767 ? login.PacketSize : 4096;
        TdsTokens.WriteEnvChange(b, 1, database, server.Options.DefaultDatabase);
        TdsTokens.WriteMessage(b, false, 5701, 2, 0, $"Changed database context to '{database}'.", server.Options.ServerName);
        TdsTokens.WriteCollationChange(b);
        TdsTokens.WriteEnvChange(b, 2, "us_english", string.Empty);
        TdsTokens.WriteLoginAck(b, Acknowledged(login.TdsVersion), "Microsoft SQL Server", server.Options.ProgramVersion);
        if (wantsFeatureExt)
        {
            TdsTokens.WriteEmptyFeatureExtAck(b);
        }

        TdsTokens.WriteEnvChange(b, 4, packetSize.ToString(CultureInfo.InvariantCulture), "4096");
        TdsTokens.WriteDone(b, TdsTokens.Done, TdsTokens.DoneFinal, 0);
        await sender.FlushAsync(endOfMessage: true, partial: true, token);
        sender.PacketSize = packetSize;
        server.Log(Id, $"logged in as '{login.UserName}' to '{database}' (TDS 0x{login.TdsVersion:X8}, {login.Security})");
        return login;
    }

    /// <summary>
    /// Everything before LOGIN7: TDS 8's TLS first, then PRELOGIN and, when negotiated, the TLS handshake inside it.
    /// Returns the next message (LOGIN7, or null when the client closed) and the security settled on; null when the
    /// connection is to be closed (logged).
    /// </summary>
    private async Task<(TdsMessage? PendingMessage, TdsSessionSecurity Security, byte? ClientEncryption)?> SecureAsync(
        TransportStream transport, TdsPacketReader reader, TdsMessageSender sender, CancellationToken token)
    {
        var setting = server.Options.Encryption;
        var first = await PeekFirstByteAsync(token);
        if (first is null)
        {
            return (null, TdsSessionSecurity.None, null);
        }

        var strict = first == TlsHandshakeRecord;
        if (strict && setting == TdsEncryption.NotSupported)
        {
            server.Log(Id, "a TDS 8 client (Encrypt=Strict) started TLS, but this server has no certificate: connection closed");
            return null;
        }

        if (!strict && setting == TdsEncryption.Strict)
        {
            server.Log(Id, "clear-text PRELOGIN refused: this server accepts only TDS 8 (Encrypt=Strict) connections");
            return null;
        }

        if (strict && !await StartStrictTlsAsync(transport, token))
        {
            return null;
        }

        var message = await reader.ReadMessageAsync(token);
        if (message?.Type != TdsPacketType.PreLogin)
        {
            return (message, strict ? TdsSessionSecurity.Strict : TdsSessionSecurity.None, null);
        }

        var clientEncryption = PreLogin.ReadEncryption(message.Payload);
        // In TDS 8 the TLS session is already up and the client ignores the ENCRYPTION answer ([MS-TDS] 2.2.6.5).
        var (answer, security) = strict ? (PreLogin.EncryptOn, TdsSessionSecurity.Strict) : PreLogin.Negotiate(setting, clientEncryption);
        if (security is null)
        {
            // Logged before the answer goes out: the client may hang up as soon as it reads ENCRYPT_REQ.
            server.Log(Id, "the client cannot encrypt (ENCRYPT_NOT_SUP) and this server requires encryption: connection closed");
        }

        PreLogin.WriteResponse(sender.Tokens, answer);
        await sender.FlushAsync(endOfMessage: true, partial: true, token);
        if (security is null)
        {
            return null;
        }

        if (security is TdsSessionSecurity.LoginOnly or TdsSessionSecurity.Full && !await StartTlsInPreLoginAsync(transport, token))
        {
            return null;
        }

        return (await reader.ReadMessageAsync(token), security.Value, clientEncryption);
    }
}
