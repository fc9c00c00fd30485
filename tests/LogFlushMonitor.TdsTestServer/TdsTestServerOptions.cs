namespace LogFlushMonitor.TdsTestServer;

/// <summary>Settings for a <see cref="TdsTestServer"/>.</summary>
public sealed class TdsTestServerOptions
{
    /// <summary>Port to listen on; 0 (the default) picks a free one. Set it to restart a server where clients expect it.</summary>
    public int Port { get; init; }

    /// <summary>Server name carried in ERROR/INFO tokens.</summary>
    public string ServerName { get; init; } = "TDSTEST";

    /// <summary>Database reported when the client asks for none.</summary>
    public string DefaultDatabase { get; init; } = "master";

    /// <summary>Clock for delays and timestamps.</summary>
    public TimeProvider TimeProvider { get; init; } = TimeProvider.System;

    /// <summary>Credential check; false rejects the login with error 18456. Accepts everyone by default.</summary>
    public Func<TdsLogin, bool> Authenticate { get; init; } = _ => true;

    /// <summary>Called for each entry of the server's event log (e.g. to write it to a test's output).</summary>
    public Action<TdsServerEvent>? OnEvent { get; init; }

    /// <summary>
    /// Rejects a login that passed <see cref="Authenticate"/> with a chosen error, e.g. 4060 "Cannot open database
    /// ... requested by the login"; null accepts it.
    /// </summary>
    public Func<TdsLogin, TdsErrorException?>? RejectLogin { get; init; }

    /// <summary>Encryption setting ([MS-TDS] PRELOGIN ENCRYPTION and TDS 8); anything but NotSupported needs <see cref="Certificate"/>.</summary>
    public TdsEncryption Encryption { get; init; }

    /// <summary>The server's TLS certificate with its private key (e.g. <see cref="Tls.TdsTestCertificates.CreateSelfSigned"/>).</summary>
    public System.Security.Cryptography.X509Certificates.X509Certificate2? Certificate { get; init; }

    /// <summary>
    /// The program version LOGINACK reports (what SqlClient's ServerVersion says: 15.00.2000, SQL Server 2019 RTM, by
    /// default). Settable after start: the next login reports it (a test of what differs from SQL Server 2022 on).
    /// </summary>
    public Version ProgramVersion { get; set; } = new(15, 0, 2000);

    /// <summary>Wait before answering LOGIN7 (on <see cref="TimeProvider"/>), to exercise connect timeouts.</summary>
    public TimeSpan LoginDelay { get; init; }

    /// <summary>
    /// A server that breaks the protocol after PRELOGIN: when this returns bytes, they are sent raw in place of the answer
    /// to LOGIN7 (no TDS packet header) and the connection is closed; null answers normally.
    /// </summary>
    public Func<TdsLogin, byte[]?>? LoginAnswerBytes { get; init; }
}
