using LogFlushMonitor.SqlServer.Check;
using LogFlushMonitor.SqlServer.Tests.Scripted;
using LogFlushMonitor.TdsTestServer;

namespace LogFlushMonitor.SqlServer.Tests.Tls;

/// <summary>`check` on encrypted connections: what it reports when TLS works, and what it tells a user when it does not.</summary>
public sealed class CheckOverTlsTests(TlsCertificateFixture tls, Xunit.Abstractions.ITestOutputHelper output) : IClassFixture<TlsCertificateFixture>
{
    [Fact]
    public async Task Encrypt_Strict_connects_and_check_reports_an_encrypted_connection()
    {
        await using var server = Server(TdsEncryption.Strict);

        var result = await CheckAsync(server.Server.ConnectionString(encrypt: "Strict", trustServerCertificate: false) + $";ServerCertificate={tls.PemPath}");

        Assert.True(result.Ok, string.Join("; ", result.Problems));
        Assert.True(result.Encrypted);
        Assert.DoesNotContain(result.Warnings, w => w.Contains("encrypt", StringComparison.OrdinalIgnoreCase) || w.Contains("Certificate", StringComparison.Ordinal));
        Assert.NotEmpty(server.Server.Logins);
        Assert.All(server.Server.Logins, login => Assert.Equal((TdsSessionSecurity.Strict, "tds/8.0"), (login.Security, login.ApplicationProtocol))); // the checks and the live-stream probe
    }

    [Fact]
    public async Task An_untrusted_certificate_fails_check_with_a_message_that_names_the_settings_to_change()
    {
        await using var server = Server(TdsEncryption.Required);

        var result = await CheckAsync(server.Server.ConnectionString(encrypt: "Mandatory", trustServerCertificate: false));

        var problem = Assert.Single(result.Problems);
        Assert.StartsWith("cannot connect (tls): the TLS handshake failed", problem, StringComparison.Ordinal);
        Assert.Contains("UntrustedRoot", problem, StringComparison.Ordinal); // the client's own reason, on one line
        Assert.Contains("not issued for '127.0.0.1'", problem, StringComparison.Ordinal); // the host, without the port
        Assert.Contains("HostNameInCertificate=", problem, StringComparison.Ordinal);
        Assert.Contains("ServerCertificate=", problem, StringComparison.Ordinal);
        Assert.Contains("TrustServerCertificate=True turns the check off: for tests only", problem, StringComparison.Ordinal);
        Assert.DoesNotContain(ScriptedSqlServer.Password, problem, StringComparison.Ordinal);
        Assert.DoesNotContain('\n', problem);
        Assert.Empty(server.Server.Logins); // no LOGIN7, so no password, ever reached the untrusted server
    }

    [Fact]
    public async Task With_Encrypt_Strict_the_advice_says_TrustServerCertificate_does_not_apply()
    {
        await using var server = Server(TdsEncryption.Strict);

        var result = await CheckAsync(server.Server.ConnectionString(encrypt: "Strict", trustServerCertificate: true));

        var problem = Assert.Single(result.Problems);
        Assert.StartsWith("cannot connect (tls):", problem, StringComparison.Ordinal);
        Assert.Contains("With Encrypt=Strict (TDS 8) the certificate is always checked: TrustServerCertificate does not apply.", problem, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_server_without_a_certificate_fails_Encrypt_Mandatory_and_check_says_what_the_server_lacks()
    {
        await using var server = Server(TdsEncryption.NotSupported);

        var result = await CheckAsync(server.Server.ConnectionString(encrypt: "Mandatory"));

        var problem = Assert.Single(result.Problems);
        Assert.StartsWith("cannot connect (tls): the server does not support encryption", problem, StringComparison.Ordinal);
        Assert.Contains("mssql-conf set network.tlscert", problem, StringComparison.Ordinal);
        Assert.Contains("clear text", problem, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Encrypt_Optional_against_a_server_that_forces_encryption_is_reported_encrypted()
    {
        await using var server = Server(TdsEncryption.Required);

        var result = await CheckAsync(server.Server.ConnectionString(encrypt: "Optional"));

        Assert.True(result.Ok, string.Join("; ", result.Problems));
        Assert.True(result.Encrypted);
        Assert.All(server.Server.Logins, l => Assert.Equal(TdsSessionSecurity.Full, l.Security)); // the checks and the live-stream probe
    }

    [Fact]
    public async Task Encrypt_Optional_with_login_only_encryption_is_reported_unencrypted_with_the_fix()
    {
        await using var server = Server(TdsEncryption.Optional);

        var result = await CheckAsync(server.Server.ConnectionString(encrypt: "Optional"));

        Assert.True(result.Ok, string.Join("; ", result.Problems)); // a warning, not a problem: it works
        Assert.False(result.Encrypted);
        Assert.Contains(result.Warnings, w => w.StartsWith("the connection is not encrypted after login", StringComparison.Ordinal)
            && w.Contains("Encrypt=Mandatory", StringComparison.Ordinal));
        Assert.All(server.Server.Logins, l => Assert.Equal(TdsSessionSecurity.LoginOnly, l.Security)); // the checks and the live-stream probe
    }

    [Fact]
    public async Task TrustServerCertificate_with_Encrypt_Mandatory_is_flagged_as_for_tests_only()
    {
        await using var server = Server(TdsEncryption.Required);

        var result = await CheckAsync(server.Server.ConnectionString(encrypt: "Mandatory", trustServerCertificate: true));

        Assert.True(result.Ok, string.Join("; ", result.Problems));
        Assert.True(result.Encrypted);
        Assert.Contains(result.Warnings, w => w.StartsWith("TrustServerCertificate=True: the server's certificate is not checked", StringComparison.Ordinal));
    }

    private ScriptedSqlServer Server(TdsEncryption encryption) => new(
        encryption: encryption,
        certificate: encryption == TdsEncryption.NotSupported ? null : tls.Certificate,
        onEvent: e => output.WriteLine($"server: [{e.ConnectionId}] {e.Message}"));

    private static Task<InstanceCheckResult> CheckAsync(string connectionString) =>
        InstanceChecker.CheckAsync(
            new SqlServerInstanceOptions { Name = "prod-1", ConnectionString = connectionString },
            new SqlServerSourceOptions { CommandTimeout = TimeSpan.FromSeconds(5) },
            null,
            CancellationToken.None);
}
