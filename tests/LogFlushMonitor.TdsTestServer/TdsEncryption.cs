namespace LogFlushMonitor.TdsTestServer;

/// <summary>
/// The server's encryption setting ([MS-TDS] 2.2.6.5 PRELOGIN ENCRYPTION, 3.3.5.1 for TDS 8). Every setting but
/// <see cref="NotSupported"/> needs <see cref="TdsTestServerOptions.Certificate"/>.
/// </summary>
public enum TdsEncryption
{
    /// <summary>Answers ENCRYPT_NOT_SUP: no TLS at all; a client that needs encryption gives up.</summary>
    NotSupported,

    /// <summary>
    /// A server with a certificate that does not force encryption (ENCRYPT_OFF): a client that sends ENCRYPT_OFF gets
    /// TLS for its LOGIN7 only, one that sends ENCRYPT_ON gets TLS for the whole session. TDS 8 clients are accepted.
    /// </summary>
    Optional,

    /// <summary>
    /// A server that forces encryption (ENCRYPT_ON): answers ENCRYPT_REQ to a client that sent ENCRYPT_OFF and encrypts
    /// the whole session; closes the connection of a client that cannot encrypt. TDS 8 clients are accepted.
    /// </summary>
    Required,

    /// <summary>TDS 8 only (SQL Server 2022 "force strict encryption"): TLS before anything else; a plaintext PRELOGIN closes the connection.</summary>
    Strict,
}

/// <summary>How one connection was protected, as the server saw it (<see cref="TdsLogin.Security"/>).</summary>
public enum TdsSessionSecurity
{
    /// <summary>No TLS: everything in clear text.</summary>
    None,

    /// <summary>TLS inside PRELOGIN packets, used for the LOGIN7 message only; the rest in clear text.</summary>
    LoginOnly,

    /// <summary>TLS inside PRELOGIN packets, then every message of the session over TLS (TDS 7.x).</summary>
    Full,

    /// <summary>TDS 8: TLS first (ALPN tds/8.0), then PRELOGIN and everything else inside it.</summary>
    Strict,
}
