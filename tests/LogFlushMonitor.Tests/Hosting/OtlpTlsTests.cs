using System.Net;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;
using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Hosting;
using LogFlushMonitor.Simulation;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Server.Kestrel.Https;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace LogFlushMonitor.Tests.Hosting;

/// <summary>
/// A stand-in OTLP collector over TLS on 127.0.0.1: its certificate is signed by a private authority, and it requires a
/// client certificate from that authority. The PEM files a monitor needs are written to a temporary folder.
/// </summary>
internal sealed class TlsCollector : IAsyncDisposable
{
    private readonly DirectoryInfo _directory = Directory.CreateTempSubdirectory("lfm-otlp-tls-");
    private readonly List<string> _clientSubjects = [];
    private X509Certificate2 _authority = null!;
    private WebApplication _collector = null!;

    private TlsCollector()
    {
    }

    /// <summary>The subject of each request's client certificate ("none" without one).</summary>
    public IReadOnlyList<string> ClientSubjects
    {
        get
        {
            lock (_clientSubjects)
            {
                return [.. _clientSubjects];
            }
        }
    }

    public Uri Address => new(_collector.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses.First().Replace("127.0.0.1", "localhost", StringComparison.Ordinal));

    /// <summary>The path of one of the PEM files: ca.pem, other-ca.pem, client.pem/.key, stranger.pem/.key, not-a-cert.pem.</summary>
    public string Pem(string name) => Path.Combine(_directory.FullName, name);

    public static async Task<TlsCollector> StartAsync()
    {
        var c = new TlsCollector();
        await c.InitializeAsync();
        return c;
    }

    private async Task InitializeAsync()
    {
        _authority = OtlpTlsTests.Authority("CN=LogFlushMonitor test collector CA");
        using var other = OtlpTlsTests.Authority("CN=Some other CA");
        using var server = OtlpTlsTests.Issue(_authority, "CN=localhost", server: true);
        using var client = OtlpTlsTests.Issue(_authority, "CN=logflushmonitor-client", server: false);
        using var stranger = OtlpTlsTests.Issue(other, "CN=stranger", server: false);
        await File.WriteAllTextAsync(Pem("ca.pem"), _authority.ExportCertificatePem());
        await File.WriteAllTextAsync(Pem("other-ca.pem"), other.ExportCertificatePem());
        await File.WriteAllTextAsync(Pem("client.pem"), client.ExportCertificatePem());
        await File.WriteAllTextAsync(Pem("client.key"), client.GetRSAPrivateKey()!.ExportPkcs8PrivateKeyPem());
        await File.WriteAllTextAsync(Pem("stranger.pem"), stranger.ExportCertificatePem());
        await File.WriteAllTextAsync(Pem("stranger.key"), stranger.GetRSAPrivateKey()!.ExportPkcs8PrivateKeyPem());
        await File.WriteAllTextAsync(Pem("not-a-cert.pem"), "hello");

        var serverCert = X509CertificateLoader.LoadPkcs12(server.Export(X509ContentType.Pkcs12), null);
        var builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        builder.WebHost.ConfigureKestrel(k => k.Listen(IPAddress.Loopback, 0, l => l.UseHttps(serverCert, https =>
        {
            https.ClientCertificateMode = ClientCertificateMode.RequireCertificate;
            https.ClientCertificateValidation = (certificate, _, _) => OtlpTls.TrustedBy([_authority], certificate, System.Net.Security.SslPolicyErrors.None);
        })));
        _collector = builder.Build();
        _collector.Run(async context =>
        {
            lock (_clientSubjects)
            {
                _clientSubjects.Add(context.Connection.ClientCertificate?.Subject ?? "none");
            }

            await context.Request.Body.CopyToAsync(Stream.Null);
            context.Response.StatusCode = StatusCodes.Status200OK;
        });
        await _collector.StartAsync();
    }

    public async ValueTask DisposeAsync()
    {
        await _collector.StopAsync();
        await _collector.DisposeAsync();
        _authority.Dispose();
        _directory.Delete(recursive: true);
    }
}

/// <summary>
/// The OTEL_EXPORTER_OTLP_CERTIFICATE / _CLIENT_CERTIFICATE / _CLIENT_KEY variables apply to the HTTP client the
/// monitor gives the OTLP exporter: checked against a real TLS collector stand-in that trusts one authority and
/// requires a client certificate from it.
/// </summary>
public sealed class OtlpTlsTests : IAsyncLifetime
{
    private TlsCollector _c = null!;

    private IReadOnlyList<string> ClientSubjects => _c.ClientSubjects;

    private Uri Address => _c.Address;

    private string Pem(string name) => _c.Pem(name);

    public async Task InitializeAsync() => _c = await TlsCollector.StartAsync();

    public async Task DisposeAsync() => await _c.DisposeAsync();

    private Func<string, string?> Environment(params (string Name, string File)[] variables) =>
        name => variables.FirstOrDefault(v => v.Name == name) is { Name: not null } v ? Pem(v.File) : null;

    /// <summary>One export-shaped request through the handler the monitor builds; the failures it counted.</summary>
    private async Task<(bool Delivered, long Failures)> ExportAsync(Func<string, string?> environment)
    {
        using var tls = OtlpTls.Load(environment, out var problems);
        Assert.Empty(problems);
        var health = new ExportHealth();
        var endpoint = new Uri(Address, "/v1/metrics");
        using var http = new HttpClient(new OtlpFailureHandler(health, endpoint, TimeProvider.System, NullLogger.Instance, tls.CreateHandler()));
        try
        {
            using var response = await http.PostAsync(endpoint, new ByteArrayContent([1, 2, 3]));
            return (response.IsSuccessStatusCode, health.Failures(OtlpFailureHandler.Exporter));
        }
        catch (HttpRequestException)
        {
            return (false, health.Failures(OtlpFailureHandler.Exporter));
        }
    }

    [Fact]
    public async Task With_the_authority_and_a_client_certificate_the_export_arrives_over_mutual_tls()
    {
        var (delivered, failures) = await ExportAsync(Environment(
            ("OTEL_EXPORTER_OTLP_CERTIFICATE", "ca.pem"), ("OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE", "client.pem"), ("OTEL_EXPORTER_OTLP_CLIENT_KEY", "client.key")));

        Assert.True(delivered);
        Assert.Equal(0, failures);
        Assert.Equal(["CN=logflushmonitor-client"], ClientSubjects);
    }

    [Fact]
    public async Task The_metrics_specific_variables_take_precedence()
    {
        var (delivered, _) = await ExportAsync(Environment(
            ("OTEL_EXPORTER_OTLP_CERTIFICATE", "other-ca.pem"), ("OTEL_EXPORTER_OTLP_METRICS_CERTIFICATE", "ca.pem"),
            ("OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE", "stranger.pem"), ("OTEL_EXPORTER_OTLP_CLIENT_KEY", "stranger.key"),
            ("OTEL_EXPORTER_OTLP_METRICS_CLIENT_CERTIFICATE", "client.pem"), ("OTEL_EXPORTER_OTLP_METRICS_CLIENT_KEY", "client.key")));

        Assert.True(delivered);
        Assert.Equal(["CN=logflushmonitor-client"], ClientSubjects);
    }

    [Fact]
    public async Task A_collector_signed_by_another_authority_is_refused_and_counted()
    {
        var (delivered, failures) = await ExportAsync(Environment(
            ("OTEL_EXPORTER_OTLP_CERTIFICATE", "other-ca.pem"), ("OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE", "client.pem"), ("OTEL_EXPORTER_OTLP_CLIENT_KEY", "client.key")));

        Assert.False(delivered);
        Assert.Equal(1, failures);
        Assert.Empty(ClientSubjects); // nothing reached the collector
    }

    [Fact]
    public async Task Without_the_variables_the_private_authority_is_not_trusted()
    {
        var (delivered, failures) = await ExportAsync(_ => null);
        Assert.False(delivered);
        Assert.Equal(1, failures);
    }

    [Fact]
    public async Task A_client_certificate_from_another_authority_is_refused_by_the_collector()
    {
        var (delivered, failures) = await ExportAsync(Environment(
            ("OTEL_EXPORTER_OTLP_CERTIFICATE", "ca.pem"), ("OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE", "stranger.pem"), ("OTEL_EXPORTER_OTLP_CLIENT_KEY", "stranger.key")));
        Assert.False(delivered);
        Assert.Equal(1, failures);
    }

    [Theory]
    [InlineData("OTEL_EXPORTER_OTLP_CERTIFICATE", "missing.pem", null, null, "OTEL_EXPORTER_OTLP_CERTIFICATE names")]
    [InlineData("OTEL_EXPORTER_OTLP_CERTIFICATE", "not-a-cert.pem", null, null, "holds no PEM certificate")]
    [InlineData("OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE", "client.pem", null, null, "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE is set but OTEL_EXPORTER_OTLP_CLIENT_KEY is not")]
    [InlineData("OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE", "client.pem", "OTEL_EXPORTER_OTLP_CLIENT_KEY", "stranger.key", "cannot be used as a client certificate and its key")]
    public void Unusable_files_stop_the_start_naming_the_variable(string variable, string file, string? variable2, string? file2, string expected)
    {
        var options = new LogFlushMonitor.Hosting.MonitorOptions();
        options.Sources.Simulate.Scenario = "autocommit";
        options.Exporters.Otlp.Enabled = true;
        var environment = variable2 is null ? Environment((variable, file)) : Environment((variable, file), (variable2, file2!));

        var result = new MonitorOptionsValidator(SimulationScenarios.Names, environment).Validate(null, options);

        Assert.True(result.Failed);
        Assert.Contains(expected, result.FailureMessage, StringComparison.Ordinal);
        options.Exporters.Otlp.Enabled = false; // the variables only matter when OTLP is on
        Assert.True(new MonitorOptionsValidator(SimulationScenarios.Names, environment).Validate(null, options).Succeeded);
    }

    internal static X509Certificate2 Authority(string subject)
    {
        using var key = RSA.Create(2048);
        var request = new CertificateRequest(subject, key, HashAlgorithmName.SHA256, RSASignaturePadding.Pkcs1);
        request.CertificateExtensions.Add(new X509BasicConstraintsExtension(true, false, 0, true));
        request.CertificateExtensions.Add(new X509KeyUsageExtension(X509KeyUsageFlags.KeyCertSign | X509KeyUsageFlags.CrlSign, true));
        request.CertificateExtensions.Add(new X509SubjectKeyIdentifierExtension(request.PublicKey, false));
        var now = DateTimeOffset.UtcNow;
        return request.CreateSelfSigned(now.AddHours(-1), now.AddDays(1));
    }

    internal static X509Certificate2 Issue(X509Certificate2 authority, string subject, bool server)
    {
        using var key = RSA.Create(2048);
        var request = new CertificateRequest(subject, key, HashAlgorithmName.SHA256, RSASignaturePadding.Pkcs1);
        request.CertificateExtensions.Add(new X509BasicConstraintsExtension(false, false, 0, true));
        request.CertificateExtensions.Add(new X509KeyUsageExtension(X509KeyUsageFlags.DigitalSignature | X509KeyUsageFlags.KeyEncipherment, true));
        request.CertificateExtensions.Add(new X509EnhancedKeyUsageExtension([new Oid(server ? "1.3.6.1.5.5.7.3.1" : "1.3.6.1.5.5.7.3.2")], false));
        if (server)
        {
            var names = new SubjectAlternativeNameBuilder();
            names.AddDnsName("localhost");
            names.AddIpAddress(IPAddress.Loopback);
            request.CertificateExtensions.Add(names.Build());
        }

        var now = DateTimeOffset.UtcNow;
        var serial = RandomNumberGenerator.GetBytes(12);
        using var issued = request.Create(authority, now.AddMinutes(-30), now.AddHours(12), serial);
        return issued.CopyWithPrivateKey(key);
    }
}

/// <summary>The same variables through a whole host: the service's exporter reaches the mutual-TLS collector.</summary>
[Collection("host")]
public sealed class OtlpTlsHostTests
{
    [Fact]
    public async Task The_running_service_exports_over_mutual_tls_with_the_variables()
    {
        await using var collector = await TlsCollector.StartAsync();
        var variables = new Dictionary<string, string>
        {
            ["OTEL_EXPORTER_OTLP_CERTIFICATE"] = collector.Pem("ca.pem"),
            ["OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE"] = collector.Pem("client.pem"),
            ["OTEL_EXPORTER_OTLP_CLIENT_KEY"] = collector.Pem("client.key"),
        };
        await using var host = await RunningHost.StartAsync(
            new()
            {
                ["Sources:Simulate:Scenario"] = "autocommit",
                ["Exporters:Otlp:Enabled"] = "true",
                ["Exporters:Otlp:Protocol"] = "http/protobuf",
                ["Exporters:Otlp:Endpoint"] = collector.Address.ToString(),
                ["Exporters:Otlp:Interval"] = "00:00:01",
            },
            environment: name => variables.GetValueOrDefault(name));

        await Eventually.Until(() => collector.ClientSubjects.Count > 0, "an export at the mutual-TLS collector", TimeSpan.FromSeconds(30));
        Assert.All(collector.ClientSubjects, s => Assert.Equal("CN=logflushmonitor-client", s));
    }

    [Fact]
    public async Task An_unreadable_certificate_file_stops_the_start_naming_the_variable()
    {
        var variables = new Dictionary<string, string> { ["OTEL_EXPORTER_OTLP_CERTIFICATE"] = "/nonexistent/ca.pem" };
        // The configuration loader checks the files before the host is built (it was the options validation at start).
        var e = await Assert.ThrowsAsync<ConfigurationException>(() => RunningHost.StartAsync(
            new() { ["Sources:Simulate:Scenario"] = "autocommit", ["Exporters:Otlp:Enabled"] = "true" },
            environment: name => variables.GetValueOrDefault(name)));
        Assert.Contains("OTEL_EXPORTER_OTLP_CERTIFICATE names /nonexistent/ca.pem", e.Message, StringComparison.Ordinal);
    }
}
