using System.Security.Authentication;
using System.Security.Cryptography.X509Certificates;
using LogFlushMonitor.TdsTestServer.Tls;
using Microsoft.Data.SqlClient;
using Xunit.Abstractions;

namespace LogFlushMonitor.TdsTestServer.Tests;

/// <summary>The real SqlClient against the server's TLS: inside PRELOGIN (TDS 7.x) and TLS first (TDS 8).</summary>
public sealed class EncryptionTests(ITestOutputHelper output) : IDisposable
{
    private const string Secret = "SELECT 'wire-marker-7f3a' AS answer";
    private readonly X509Certificate2 _certificate = TdsTestCertificates.CreateSelfSigned();

    public void Dispose() => _certificate.Dispose();

    [Fact]
    public async Task Encrypt_Mandatory_with_TrustServerCertificate_runs_the_whole_session_over_TLS()
    {
        await using var server = Server(TdsEncryption.Optional);
        await using var tap = new WireTap(server.Port);

        Assert.Equal(42, await RunAsync(Through(tap, server, "Mandatory")));

        var login = Assert.Single(server.Logins);
        Assert.Equal(TdsSessionSecurity.Full, login.Security);
        Assert.Equal((byte)1, login.ClientEncryption); // ENCRYPT_ON
        Assert.Equal(SslProtocols.Tls12, login.TlsProtocol);
        Assert.False(tap.SawInClear("wire-marker-7f3a"), "the batch text crossed the wire in clear text");
        Assert.False(tap.SawInClear(TdsTestServer.DefaultPassword));
    }

    [Fact]
    public async Task Encrypt_Optional_against_a_server_that_requires_encryption_still_encrypts_everything()
    {
        await using var server = Server(TdsEncryption.Required);
        await using var tap = new WireTap(server.Port);

        Assert.Equal(42, await RunAsync(Through(tap, server, "Optional")));

        var login = Assert.Single(server.Logins);
        Assert.Equal((byte)0, login.ClientEncryption); // the client asked for ENCRYPT_OFF ...
        Assert.Equal(TdsSessionSecurity.Full, login.Security); // ... the server answered ENCRYPT_REQ
        Assert.False(tap.SawInClear("wire-marker-7f3a"), "the batch text crossed the wire in clear text");
    }

    [Fact]
    public async Task Encrypt_Optional_against_a_server_that_does_not_force_it_encrypts_the_login_only()
    {
        await using var server = Server(TdsEncryption.Optional);
        await using var tap = new WireTap(server.Port);

        Assert.Equal(42, await RunAsync(Through(tap, server, "Optional")));

        var login = Assert.Single(server.Logins);
        Assert.Equal(TdsSessionSecurity.LoginOnly, login.Security);
        Assert.Equal("monitor", login.UserName);
        Assert.False(tap.SawInClear("monitor"), "the LOGIN7 (user name) crossed the wire in clear text");
        // This is what Encrypt=Optional risks: after the login, statements travel in clear text.
        Assert.True(tap.SawInClear("wire-marker-7f3a"));
    }

    [Fact]
    public async Task Without_a_certificate_everything_is_in_clear_text_and_Mandatory_is_refused_by_the_client()
    {
        await using var server = Server(TdsEncryption.NotSupported, certificate: null);
        await using var tap = new WireTap(server.Port);

        Assert.Equal(42, await RunAsync(Through(tap, server, "Optional")));
        Assert.Equal(TdsSessionSecurity.None, Assert.Single(server.Logins).Security);
        Assert.True(tap.SawInClear("wire-marker-7f3a"));

        var error = await Assert.ThrowsAsync<SqlException>(() => RunAsync(server.ConnectionString(encrypt: "Mandatory")));
        output.WriteLine(error.Message);
        Assert.Contains("encrypt", error.Message, StringComparison.OrdinalIgnoreCase);
        Assert.Single(server.Logins); // the second client never sent its LOGIN7
    }

    [Fact]
    public async Task Encrypt_Strict_speaks_TLS_first_with_ALPN_tds_8_and_validates_the_certificate()
    {
        await using var server = Server(TdsEncryption.Strict);
        await using var tap = new WireTap(server.Port);
        var pem = TdsTestCertificates.WritePublicPem(_certificate);
        try
        {
            // Strict always validates (TrustServerCertificate does not apply): the client is given the certificate itself.
            Assert.Equal(42, await RunAsync(Through(tap, server, "Strict", trust: false) + $";ServerCertificate={pem};HostNameInCertificate=localhost"));
        }
        finally
        {
            File.Delete(pem);
        }

        var login = Assert.Single(server.Logins);
        Assert.Equal(TdsSessionSecurity.Strict, login.Security);
        Assert.Equal("tds/8.0", login.ApplicationProtocol);
        Assert.Equal(0x08000000u, login.TdsVersion); // TDS 8's LOGIN7 version; the server acknowledges 7.4
        Assert.Equal(0x16, tap.ClientBytes[0]); // the first byte on the wire is a TLS handshake record, not PRELOGIN (0x12)
        Assert.False(tap.SawInClear("wire-marker-7f3a"));
    }

    [Fact]
    public async Task A_strict_only_server_closes_a_TDS_7_client_and_says_why()
    {
        await using var server = Server(TdsEncryption.Strict);

        var error = await Assert.ThrowsAsync<SqlException>(() => RunAsync(server.ConnectionString(encrypt: "Mandatory")));
        output.WriteLine(error.Message);

        Assert.Empty(server.Logins);
        await ServerLoggedAsync(server, "only TDS 8");
    }

    [Fact]
    public async Task An_untrusted_certificate_fails_the_connection_before_the_login_is_sent()
    {
        await using var server = Server(TdsEncryption.Required);

        var error = await Assert.ThrowsAsync<SqlException>(() => RunAsync(server.ConnectionString(encrypt: "Mandatory", trustServerCertificate: false)));
        output.WriteLine(error.ToString());

        // The client checks the chain once the handshake is over, and hangs up without sending LOGIN7 (no password sent).
        Assert.IsType<AuthenticationException>(error.InnerException);
        Assert.Contains("UntrustedRoot", error.InnerException!.Message, StringComparison.Ordinal);
        await ServerLoggedAsync(server, "closed the connection before logging in");
        Assert.Empty(server.Logins);
    }

    [Fact]
    public async Task A_certificate_the_client_trusts_connects_without_TrustServerCertificate()
    {
        await using var server = Server(TdsEncryption.Required);
        var pem = TdsTestCertificates.WritePublicPem(_certificate);
        try
        {
            // ServerCertificate (SqlClient 5.1+) makes the client trust exactly this certificate, as a CA-issued one would be.
            Assert.Equal(42, await RunAsync(server.ConnectionString(encrypt: "Mandatory", trustServerCertificate: false) + $";ServerCertificate={pem}"));
        }
        finally
        {
            File.Delete(pem);
        }

        Assert.Equal(TdsSessionSecurity.Full, Assert.Single(server.Logins).Security);
    }

    [Fact]
    public async Task Streamed_rows_and_an_attention_work_over_TLS()
    {
        await using var server = Server(TdsEncryption.Required);
        var rows = System.Threading.Channels.Channel.CreateUnbounded<object?[]>();
        server.When("read_stream", TdsResponse.Empty().StreamingResultSet([TdsColumn.Int("n"), TdsColumn.VarBinaryMax("data")], rows.Reader));
        await using var connection = new SqlConnection(server.ConnectionString(encrypt: "Mandatory"));
        await connection.OpenAsync();
        await using var command = new SqlCommand("SELECT * FROM read_stream()", connection);
        using var cancel = new CancellationTokenSource();
        var big = new byte[50_000];
        Random.Shared.NextBytes(big);
        await rows.Writer.WriteAsync([1, big]);
        await using var reader = await command.ExecuteReaderAsync(cancel.Token);

        Assert.True(await reader.ReadAsync(cancel.Token));
        Assert.Equal(big, (byte[])reader["data"]);
        cancel.Cancel(); // attention while the server waits for the next row
        await Assert.ThrowsAnyAsync<Exception>(() => reader.ReadAsync(cancel.Token));
        Assert.Equal(TdsSessionSecurity.Full, Assert.Single(server.Logins).Security);
    }

    /// <summary>The server logs a closed connection a moment after the client has given up: wait for it (30 s at most).</summary>
    private static async Task ServerLoggedAsync(TdsTestServer server, string fragment)
    {
        var deadline = DateTime.UtcNow.AddSeconds(30);
        while (!server.Events.Any(e => e.Message.Contains(fragment, StringComparison.Ordinal)))
        {
            Assert.True(DateTime.UtcNow < deadline, $"the server never logged '{fragment}': {string.Join(" | ", server.Events.Select(e => e.Message))}");
            await Task.Delay(20);
        }
    }

    private static async Task<int> RunAsync(string connectionString)
    {
        await using var connection = new SqlConnection(connectionString);
        await connection.OpenAsync();
        await using var command = new SqlCommand(Secret, connection);
        return (int)(await command.ExecuteScalarAsync())!;
    }

    private static string Through(WireTap tap, TdsTestServer server, string encrypt, bool trust = true) =>
        server.ConnectionString(encrypt: encrypt, trustServerCertificate: trust).Replace($",{server.Port};", $",{tap.Port};", StringComparison.Ordinal);

    private TdsTestServer Server(TdsEncryption encryption) => Server(encryption, _certificate);

    private TdsTestServer Server(TdsEncryption encryption, X509Certificate2? certificate)
    {
        var server = new TdsTestServer(Options(encryption, certificate));
        server.When("wire-marker-7f3a", TdsResponse.Rows([TdsColumn.Int("answer")], [42]));
        return server;
    }

    private TdsTestServerOptions Options(TdsEncryption encryption, X509Certificate2? certificate) => new()
    {
        Encryption = encryption,
        Certificate = certificate,
        OnEvent = e => output.WriteLine($"server: [{e.ConnectionId}] {e.Message}"),
    };
}
