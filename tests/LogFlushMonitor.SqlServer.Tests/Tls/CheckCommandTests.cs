using System.Diagnostics;
using System.Text.Json.Nodes;
using LogFlushMonitor.SqlServer.Tests.Scripted;
using LogFlushMonitor.TdsTestServer;
using Xunit.Abstractions;

namespace LogFlushMonitor.SqlServer.Tests.Tls;

/// <summary>
/// The real `logflushmonitor check` process against TLS servers: what a user sees, and proof that the shipped
/// executable's runtime settings let SqlClient 7 connect at all (it refuses invariant globalization).
/// </summary>
public sealed class CheckCommandTests(TlsCertificateFixture tls, ITestOutputHelper output) : IClassFixture<TlsCertificateFixture>
{
    private static string Dll => Path.Combine(AppContext.BaseDirectory, "logflushmonitor.dll");

    [Fact]
    public async Task Check_against_an_untrusted_certificate_exits_1_and_names_the_setting_to_change()
    {
        await using var server = new ScriptedSqlServer(encryption: TdsEncryption.Required, certificate: tls.Certificate);

        var (exit, stdout, stderr) = await CheckAsync(server.Server.ConnectionString(encrypt: "Mandatory", trustServerCertificate: false));

        Assert.Equal(1, exit);
        Assert.Contains("prod1: PROBLEMS", stdout, StringComparison.Ordinal);
        Assert.Contains("problem:    cannot connect (tls): the TLS handshake failed", stdout, StringComparison.Ordinal);
        Assert.Contains("HostNameInCertificate=", stdout, StringComparison.Ordinal);
        Assert.Contains("TrustServerCertificate=True turns the check off: for tests only", stdout, StringComparison.Ordinal);
        Assert.DoesNotContain(ScriptedSqlServer.Password, stdout + stderr, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Check_over_Encrypt_Strict_exits_0_and_reports_the_connection_encrypted()
    {
        await using var server = new ScriptedSqlServer(encryption: TdsEncryption.Strict, certificate: tls.Certificate);
        server.HeldPermissions.Add("VIEW ANY DEFINITION");

        var (exit, stdout, _) = await CheckAsync(server.Server.ConnectionString(encrypt: "Strict", trustServerCertificate: false) + $";ServerCertificate={tls.PemPath}");

        Assert.Contains("encrypted:  yes", stdout, StringComparison.Ordinal);
        Assert.DoesNotContain("problem:", stdout, StringComparison.Ordinal);
        Assert.All(server.Server.Logins, l => Assert.Equal(TdsSessionSecurity.Strict, l.Security)); // the checks and the live-stream probe
        Assert.NotEmpty(server.Server.Logins);
        Assert.True(exit is 0 or 1, stdout); // 1 only for event-catalog gaps of the scripted server, never a connection problem
    }

    [Fact]
    public async Task The_executable_keeps_culture_data_on_because_SqlClient_refuses_invariant_globalization()
    {
        var shipped = JsonNode.Parse(await File.ReadAllTextAsync(Path.Combine(AppContext.BaseDirectory, "logflushmonitor.runtimeconfig.json")))!;
        Assert.False((bool?)shipped["runtimeOptions"]?["configProperties"]?["System.Globalization.Invariant"] ?? false);

        // The same executable forced into invariant mode cannot open a connection: this is what the setting protects.
        await using var server = new ScriptedSqlServer();
        var invariant = Path.Combine(Path.GetTempPath(), $"lfm-invariant-{Guid.NewGuid():N}.runtimeconfig.json");
        shipped["runtimeOptions"]!["configProperties"]!["System.Globalization.Invariant"] = true;
        await File.WriteAllTextAsync(invariant, shipped.ToJsonString());
        try
        {
            var (exit, stdout, stderr) = await CheckAsync(server.ConnectionString(), ["exec", "--runtimeconfig", invariant]);
            Assert.NotEqual(0, exit);
            Assert.Contains("Invariant", stdout + stderr, StringComparison.OrdinalIgnoreCase);
            Assert.Empty(server.Server.Logins);
        }
        finally
        {
            File.Delete(invariant);
        }
    }

    private async Task<(int Exit, string StdOut, string StdErr)> CheckAsync(string connectionString, string[]? dotnetOptions = null)
    {
        var start = new ProcessStartInfo("dotnet")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            WorkingDirectory = Path.GetTempPath(),
        };
        foreach (var a in (dotnetOptions ?? []).Append(Dll).Concat(["check",
            "--Sources:SqlServer:Instances:0:Name=prod1",
            "--Sources:SqlServer:Instances:0:ConnectionStringEnvironmentVariable=LFM_TLS_TEST_SQL"]))
        {
            start.ArgumentList.Add(a);
        }

        start.Environment["LFM_TLS_TEST_SQL"] = connectionString;
        using var process = Process.Start(start)!;
        var stdout = process.StandardOutput.ReadToEndAsync();
        var stderr = process.StandardError.ReadToEndAsync();
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(90));
        try
        {
            await process.WaitForExitAsync(timeout.Token);
        }
        catch (OperationCanceledException)
        {
            process.Kill(entireProcessTree: true);
            throw;
        }

        var result = (process.ExitCode, await stdout, await stderr);
        output.WriteLine($"exit {result.ExitCode}\n{result.Item2}\n{result.Item3}");
        return result;
    }
}
