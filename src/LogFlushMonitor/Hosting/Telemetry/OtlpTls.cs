using System.Net.Security;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;
using LogFlushMonitor.SqlServer.Connections;

namespace LogFlushMonitor.Hosting;

/// <summary>
/// TLS material for the OTLP exporter from the OpenTelemetry specification's variables: OTEL_EXPORTER_OTLP_CERTIFICATE
/// (PEM file of the certificate authorities that sign the collector's certificate) and, for mutual TLS,
/// OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE with OTEL_EXPORTER_OTLP_CLIENT_KEY (PEM certificate and private key); the
/// _METRICS_ forms of each take precedence. The exporter applies these only to an HTTP client of its own making; the
/// monitor supplies its own (to count failures), so it applies them here.
/// </summary>
internal sealed class OtlpTls : IDisposable
{
    private const string Prefix = "OTEL_EXPORTER_OTLP_";

    private OtlpTls(X509Certificate2Collection? authorities, X509Certificate2? client)
    {
        Authorities = authorities;
        Client = client;
    }

    /// <summary>The trusted authorities for the collector's certificate, or null for the system's trust store.</summary>
    public X509Certificate2Collection? Authorities { get; }

    /// <summary>The client certificate (with its key) for mutual TLS, or null.</summary>
    public X509Certificate2? Client { get; }

    /// <summary>The variable that names a setting (the _METRICS_ form when set, else the general one), and its value.</summary>
    internal static (string Variable, string? Path) Setting(string name, Func<string, string?> environment)
    {
        var specific = Prefix + "METRICS_" + name;
        return environment(specific) is { Length: > 0 } path ? (specific, path) : (Prefix + name, NullIfEmpty(environment(Prefix + name)));
    }

    /// <summary>Loads the files the variables name; the problems (a variable, what is wrong, how to fix it) when one cannot be used.</summary>
    public static OtlpTls Load(Func<string, string?> environment, out IReadOnlyList<string> problems)
    {
        var errors = new List<string>();
        var (caVariable, caPath) = Setting("CERTIFICATE", environment);
        var (certVariable, certPath) = Setting("CLIENT_CERTIFICATE", environment);
        var (keyVariable, keyPath) = Setting("CLIENT_KEY", environment);

        X509Certificate2Collection? authorities = null;
        if (caPath is not null)
        {
            try
            {
                authorities = [];
                // Read through BoundedFile: /dev/zero or a pipe named here ran the start out of memory or hung it.
                authorities.ImportFromPem(BoundedFile.ReadAllText(caPath, BoundedFile.PemMaxBytes));
                if (authorities.Count == 0)
                {
                    errors.Add($"{caVariable} names {caPath}, which holds no PEM certificate. Point it at the PEM file of the authority that signs the collector's certificate.");
                }
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException or CryptographicException)
            {
                errors.Add($"{caVariable} names {caPath}, which cannot be read as PEM certificates: {e.Message.TrimEnd('.')}. Point it at the PEM file of the authority that signs the collector's certificate.");
            }
        }

        X509Certificate2? client = null;
        if (certPath is not null != keyPath is not null)
        {
            var (set, missing) = certPath is not null ? (certVariable, keyVariable) : (keyVariable, certVariable);
            errors.Add($"{set} is set but {missing} is not. Mutual TLS needs both: the client certificate and its private key, as PEM files.");
        }
        else if (certPath is not null && keyPath is not null)
        {
            try
            {
                using var pem = X509Certificate2.CreateFromPem(BoundedFile.ReadAllText(certPath, BoundedFile.PemMaxBytes), BoundedFile.ReadAllText(keyPath, BoundedFile.PemMaxBytes));
                // Through PKCS#12, so the key is usable by the TLS stack on every platform (Windows rejects ephemeral keys).
                client = X509CertificateLoader.LoadPkcs12(pem.Export(X509ContentType.Pkcs12), null);
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException or CryptographicException or ArgumentException)
            {
                errors.Add($"{certVariable} and {keyVariable} name {certPath} and {keyPath}, which cannot be used as a client certificate and its key: {e.Message.TrimEnd('.')}. Give PEM files of a certificate and its matching private key.");
            }
        }

        problems = errors;
        return new OtlpTls(authorities, client);
    }

    /// <summary>The connection handler of the exporter's HTTP client, with this TLS material applied.</summary>
    public SocketsHttpHandler CreateHandler()
    {
        var handler = new SocketsHttpHandler { PooledConnectionLifetime = TimeSpan.FromMinutes(5) };
        if (Client is { } client)
        {
            handler.SslOptions.ClientCertificates = [client];
        }

        if (Authorities is { } authorities)
        {
            handler.SslOptions.RemoteCertificateValidationCallback = (_, certificate, _, errors) => TrustedBy(authorities, certificate, errors);
        }

        return handler;
    }

    /// <summary>
    /// The collector's certificate chains to one of <paramref name="authorities"/> (and only those), and every other
    /// check passed (its name matches the endpoint's host).
    /// </summary>
    internal static bool TrustedBy(X509Certificate2Collection authorities, X509Certificate? certificate, SslPolicyErrors errors)
    {
        if (certificate is null || (errors & ~SslPolicyErrors.RemoteCertificateChainErrors) != SslPolicyErrors.None)
        {
            return false;
        }

        using var chain = new X509Chain();
        chain.ChainPolicy.TrustMode = X509ChainTrustMode.CustomRootTrust;
        chain.ChainPolicy.CustomTrustStore.AddRange(authorities);
        chain.ChainPolicy.RevocationMode = X509RevocationMode.NoCheck;
        using var leaf = new X509Certificate2(certificate);
        return chain.Build(leaf);
    }

    /// <inheritdoc />
    public void Dispose()
    {
        Client?.Dispose();
        foreach (var authority in Authorities ?? [])
        {
            authority.Dispose();
        }
    }

    private static string? NullIfEmpty(string? value) => string.IsNullOrWhiteSpace(value) ? null : value;
}

/// <summary>
/// Where the OTLP TLS variables are read: the process environment in the service; a test gives its own, so no test
/// changes the environment other tests run in.
/// </summary>
/// <param name="Read">Reads one variable (null when unset).</param>
internal sealed record OtlpEnvironment(Func<string, string?> Read)
{
    /// <summary>The process environment.</summary>
    public static OtlpEnvironment Process { get; } = new(Environment.GetEnvironmentVariable);
}
