using System.Security.Authentication;
using Microsoft.Data.SqlClient;

namespace LogFlushMonitor.SqlServer.Connections;

/// <summary>
/// How a connection is protected, said so that an operator can act on it: TLS failures recognised and explained
/// with the setting to change, and warnings for connections that are not encrypted or not verified. SqlClient 4 and
/// later encrypt by default (Encrypt=Mandatory) and check the server's certificate, so a server without a
/// certificate this machine trusts is the first thing a new user meets.
/// </summary>
public static class ConnectionSecurity
{
    /// <summary>SqlClient's error number when the server answered ENCRYPT_NOT_SUP but the client must encrypt.</summary>
    private const int EncryptionNotSupported = 20;

    /// <summary>Whether <paramref name="e"/> is a TLS failure: the handshake failed, or the server's certificate was rejected.</summary>
    public static bool IsTlsFailure(SqlException e) =>
        e.Class >= 20 && (e.Number == EncryptionNotSupported || TlsCause(e) is not null
            // Native SNI (Windows) names the failure only in the message; Class 20+ keeps server errors out.
            || e.Message.Contains("SSL Provider", StringComparison.Ordinal)
            || e.Message.Contains("certificate", StringComparison.OrdinalIgnoreCase));

    /// <summary>What went wrong with TLS and how to fix it; the connection string is read for its settings only, never quoted.</summary>
    public static string ExplainTlsFailure(SqlException e, string connectionString)
    {
        var b = new SqlConnectionStringBuilder(connectionString);
        if (e.Number == EncryptionNotSupported)
        {
            return $"the server does not support encryption (it has no TLS certificate) and Encrypt={ConnectionStrings.EncryptName(b.Encrypt)} requires it. "
                + "Give SQL Server a certificate (Windows: SQL Server Configuration Manager, Force Encryption; Linux: "
                + "mssql-conf set network.tlscert / network.tlskey), then connect with a certificate this machine trusts. "
                + "Encrypt=Optional would connect, but then the password and everything else cross the network in clear text.";
        }

        var cause = TlsCause(e)?.Message ?? e.Message;
        var server = HostName(b.DataSource) is { Length: > 0 } host ? $"'{host}'" : "the Server= name";
        var strict = b.Encrypt == SqlConnectionEncryptOption.Strict;
        return $"the TLS handshake failed, most often because this machine does not trust the server's certificate or the "
            + $"certificate is not issued for {server} ({OneLine(cause)}). SqlClient encrypts by default (Encrypt=Mandatory) and "
            + "checks the certificate. Fix one of: give SQL Server a certificate from a CA this machine trusts, issued for "
            + "the name you connect to; when you connect by another name (an IP address, an alias, a listener), set "
            + "HostNameInCertificate=<the name in the certificate>; or pin the server's own certificate with "
            + "ServerCertificate=<path to its .cer or .pem>. "
            + (strict
                ? "With Encrypt=Strict (TDS 8) the certificate is always checked: TrustServerCertificate does not apply."
                : "TrustServerCertificate=True turns the check off: for tests only, never in production.");
    }

    /// <summary>Warnings about a connection that works: not encrypted after login, or encrypted to an unverified server.</summary>
    public static IEnumerable<string> Warnings(string connectionString, bool? encrypted)
    {
        var b = new SqlConnectionStringBuilder(connectionString);
        if (encrypted == false)
        {
            yield return $"the connection is not encrypted after login (Encrypt={ConnectionStrings.EncryptName(b.Encrypt)}, and the server does not force encryption): "
                + "statements and results cross the network in clear text. Use Encrypt=Mandatory (the SqlClient default) or "
                + "Encrypt=Strict with a certificate this machine trusts (SECURITY.md, docs/sqlserver.md).";
        }
        else if (b.TrustServerCertificate && b.Encrypt == SqlConnectionEncryptOption.Mandatory)
        {
            yield return "TrustServerCertificate=True: the server's certificate is not checked, so anyone on the path can pose as "
                + "the server and read the connection. For tests only: give the server a certificate this machine trusts, or "
                + "use HostNameInCertificate or ServerCertificate (docs/sqlserver.md).";
        }
    }

    /// <summary>The host the certificate must name: Server= without a tcp: prefix, port or instance.</summary>
    private static string HostName(string dataSource)
    {
        var host = dataSource.StartsWith("tcp:", StringComparison.OrdinalIgnoreCase) ? dataSource[4..] : dataSource;
        var end = host.IndexOfAny([',', '\\']);
        return (end < 0 ? host : host[..end]).Trim();
    }

    private static AuthenticationException? TlsCause(Exception e)
    {
        for (var x = e.InnerException; x is not null; x = x.InnerException)
        {
            if (x is AuthenticationException a)
            {
                return a;
            }
        }

        return null;
    }

    private static string OneLine(string text) =>
        string.Join(' ', text.Split(['\r', '\n'], StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries));
}
