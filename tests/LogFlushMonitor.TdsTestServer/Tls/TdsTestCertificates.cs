using System.Net;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;

namespace LogFlushMonitor.TdsTestServer.Tls;

/// <summary>Self-signed server certificates made in the test, so no key or certificate is ever checked in.</summary>
public static class TdsTestCertificates
{
    /// <summary>
    /// A self-signed TLS server certificate with its private key, valid from an hour ago for a day, for
    /// <paramref name="dnsName"/> and 127.0.0.1 (subject alternative names).
    /// </summary>
    public static X509Certificate2 CreateSelfSigned(string dnsName = "localhost")
    {
        using var key = RSA.Create(2048);
        var request = new CertificateRequest($"CN={dnsName}", key, HashAlgorithmName.SHA256, RSASignaturePadding.Pkcs1);
        var names = new SubjectAlternativeNameBuilder();
        names.AddDnsName(dnsName);
        names.AddIpAddress(IPAddress.Loopback);
        request.CertificateExtensions.Add(names.Build());
        request.CertificateExtensions.Add(new X509BasicConstraintsExtension(false, false, 0, true));
        request.CertificateExtensions.Add(new X509KeyUsageExtension(X509KeyUsageFlags.DigitalSignature | X509KeyUsageFlags.KeyEncipherment, true));
        request.CertificateExtensions.Add(new X509EnhancedKeyUsageExtension([new Oid("1.3.6.1.5.5.7.3.1")], false)); // serverAuth
        var now = DateTimeOffset.UtcNow;
        using var created = request.CreateSelfSigned(now.AddHours(-1), now.AddDays(1));
        // A PKCS#12 round trip gives a key every platform's TLS stack can use (an ephemeral key is refused by SChannel).
        return X509CertificateLoader.LoadPkcs12(created.Export(X509ContentType.Pkcs12), password: null);
    }

    /// <summary>Writes the certificate (public part only, PEM) to a new temporary file, e.g. for SqlClient's <c>ServerCertificate</c> keyword.</summary>
    public static string WritePublicPem(X509Certificate2 certificate)
    {
        var path = Path.Combine(Path.GetTempPath(), $"tds-test-{Guid.NewGuid():N}.pem");
        File.WriteAllText(path, certificate.ExportCertificatePem());
        return path;
    }
}
