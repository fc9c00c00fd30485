using System.Globalization;
using LogFlushMonitor.TdsTestServer.Protocol;

namespace LogFlushMonitor.TdsTestServer;

internal sealed partial class TdsConnection
{
    private const uint Tds74 = 0x74000004;

    private async Task<TdsLogin?> LoginAsync(TdsPacketReader reader, TdsMessageSender sender, CancellationToken token)
    {
        var message = await reader.ReadMessageAsync(token);
        if (message?.Type == TdsPacketType.PreLogin)
        {
            PreLogin.ReadEncryption(message.Payload);
            PreLogin.WriteResponse(sender.Tokens);
            await sender.FlushAsync(endOfMessage: true, partial: true, token);
            message = await reader.ReadMessageAsync(token);
        }

        if (message is null)
        {
            server.Log(Id, "client closed the connection before logging in");
            return null;
        }

        if (message.Type != TdsPacketType.Login7)
        {
            throw new TdsProtocolException($"Expected LOGIN7, got packet type 0x{message.Type:X2}.");
        }

        var (login, wantsFeatureExt) = Login7Parser.Parse(Id, message.Payload);
        server.RecordLogin(login);
        var b = sender.Tokens;
        if (server.Options.LoginDelay > TimeSpan.Zero)
        {
            await Task.Delay(server.Options.LoginDelay, server.Options.TimeProvider, token);
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
        // Answer with the client's own version when it is 7.4 or older; this server speaks nothing newer.
        TdsTokens.WriteLoginAck(b, login.TdsVersion is > 0 and <= Tds74 ? login.TdsVersion : Tds74, "Microsoft SQL Server");
        if (wantsFeatureExt)
        {
            TdsTokens.WriteEmptyFeatureExtAck(b);
        }

        TdsTokens.WriteEnvChange(b, 4, packetSize.ToString(CultureInfo.InvariantCulture), "4096");
        TdsTokens.WriteDone(b, TdsTokens.Done, TdsTokens.DoneFinal, 0);
        await sender.FlushAsync(endOfMessage: true, partial: true, token);
        sender.PacketSize = packetSize;
        server.Log(Id, $"logged in as '{login.UserName}' to '{database}' (TDS 0x{login.TdsVersion:X8})");
        return login;
    }
}
