namespace LogFlushMonitor.TdsTestServer;

/// <summary>What a client sent in LOGIN7, passed to the credential check and kept in <see cref="TdsTestServer.Logins"/>.</summary>
/// <param name="ConnectionId">Server-side connection id.</param>
/// <param name="TdsVersion">Requested TDS version, e.g. 0x74000004 for 7.4.</param>
/// <param name="UserName">SQL login name.</param>
/// <param name="Password">De-obfuscated password (test server only: never log it).</param>
/// <param name="Database">Initial database, empty when none was asked for.</param>
/// <param name="AppName">Application name.</param>
/// <param name="HostName">Client host name.</param>
/// <param name="PacketSize">Packet size the client asked for.</param>
public sealed record TdsLogin(
    int ConnectionId,
    uint TdsVersion,
    string UserName,
    string Password,
    string Database,
    string AppName,
    string HostName,
    int PacketSize)
{
    /// <summary>How the connection was protected up to and after this login.</summary>
    public TdsSessionSecurity Security { get; init; }

    /// <summary>The ENCRYPTION byte of the client's PRELOGIN (0 OFF, 1 ON, 2 NOT_SUP, 3 REQ), or null when it sent none.</summary>
    public byte? ClientEncryption { get; init; }

    /// <summary>The TLS version agreed, or <see cref="System.Security.Authentication.SslProtocols.None"/> without TLS.</summary>
    public System.Security.Authentication.SslProtocols TlsProtocol { get; init; }

    /// <summary>The ALPN protocol agreed in TDS 8 ("tds/8.0"), or null.</summary>
    public string? ApplicationProtocol { get; init; }

    /// <summary>Keeps the password out of test output.</summary>
    public override string ToString() =>
        $"TdsLogin {{ ConnectionId = {ConnectionId}, UserName = {UserName}, Database = {Database}, AppName = {AppName}, Security = {Security} }}";
}
