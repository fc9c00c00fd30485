using System.Security.Cryptography.X509Certificates;
using LogFlushMonitor.TdsTestServer.Tls;

namespace LogFlushMonitor.SqlServer.Tests.Tls;

/// <summary>One self-signed server certificate per test class (made in the test), and its public part as a PEM file.</summary>
public sealed class TlsCertificateFixture : IDisposable
{
    public X509Certificate2 Certificate { get; } = TdsTestCertificates.CreateSelfSigned();

    /// <summary>For SqlClient's ServerCertificate= keyword: the client then trusts exactly this certificate.</summary>
    public string PemPath { get; }

    public TlsCertificateFixture() => PemPath = TdsTestCertificates.WritePublicPem(Certificate);

    public void Dispose()
    {
        File.Delete(PemPath);
        Certificate.Dispose();
    }
}
