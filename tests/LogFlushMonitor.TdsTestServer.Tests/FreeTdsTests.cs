using System.Diagnostics;
using LogFlushMonitor.TdsTestServer.Tls;
using Xunit.Abstractions;

namespace LogFlushMonitor.TdsTestServer.Tests;

public sealed class FreeTdsTests(ITestOutputHelper output)
{
    private const string Tsql = "/usr/bin/tsql";

    [SkippableTheory]
    [InlineData("7.4")]
    [InlineData("7.2")]
    public async Task FreeTDS_tsql_logs_in_runs_a_query_and_prints_the_rows(string tdsVersion)
    {
        Skip.IfNot(File.Exists(Tsql), $"FreeTDS tsql is not installed at {Tsql} (Debian package freetds-bin).");
        await using var server = new TdsTestServer(new TdsTestServerOptions { Authenticate = l => l.Password == "tsql-pw" });
        server.When("log_flushes", TdsResponse.Rows(
            [TdsColumn.NVarChar("database_name"), TdsColumn.BigInt("flushes"), TdsColumn.Float("avg_kb"), TdsColumn.Bit("delayed"), TdsColumn.VarBinaryMax("data")],
            ["perf_db", 12031L, 0.5, true, new byte[] { 0xCA, 0xFE, 0xF0, 0x0D }],
            ["tempdb", 5095L, null, false, null]));

        var (exit, text) = await RunTsqlAsync(server.Port, tdsVersion, "select * from log_flushes\ngo\nexit\n");
        output.WriteLine(text);
        output.WriteLine(string.Join(Environment.NewLine, server.Events.Select(e => e.Message)));

        Assert.True(exit == 0, text);
        Assert.Contains("perf_db", text, StringComparison.Ordinal);
        Assert.Contains("12031", text, StringComparison.Ordinal);
        Assert.Contains("tempdb", text, StringComparison.Ordinal);
        Assert.Contains("5095", text, StringComparison.Ordinal);
        Assert.Contains("cafef00d", text, StringComparison.OrdinalIgnoreCase); // varbinary(max) as PLP
        var login = Assert.Single(server.Logins);
        Assert.Equal("monitor", login.UserName);
        Assert.Contains(server.Requests, r => r.Text.Contains("select * from log_flushes", StringComparison.Ordinal));
    }

    /// <summary>
    /// A second client's view of the TLS negotiation: FreeTDS (GnuTLS) with its own reading of [MS-TDS]. "off" asks
    /// for ENCRYPT_NOT_SUP, "request" for ENCRYPT_OFF (login-only TLS unless the server requires more), "require" for
    /// ENCRYPT_ON; a server that requires encryption refuses "off" (the last case, expected null).
    /// </summary>
    [SkippableTheory]
    [InlineData(TdsEncryption.NotSupported, "off", TdsSessionSecurity.None)]
    [InlineData(TdsEncryption.Optional, "off", TdsSessionSecurity.None)]
    [InlineData(TdsEncryption.Optional, "request", TdsSessionSecurity.LoginOnly)]
    [InlineData(TdsEncryption.Required, "request", TdsSessionSecurity.Full)]
    [InlineData(TdsEncryption.Optional, "require", TdsSessionSecurity.Full)]
    [InlineData(TdsEncryption.Required, "require", TdsSessionSecurity.Full)]
    [InlineData(TdsEncryption.Required, "off", null)]
    public async Task FreeTDS_tsql_logs_in_with_the_encryption_the_server_and_its_configuration_agree_on(
        TdsEncryption serverSetting, string freeTdsEncryption, TdsSessionSecurity? expected)
    {
        Skip.IfNot(File.Exists(Tsql), $"FreeTDS tsql is not installed at {Tsql} (Debian package freetds-bin).");
        using var certificate = TdsTestCertificates.CreateSelfSigned();
        await using var server = new TdsTestServer(new TdsTestServerOptions
        {
            Authenticate = l => l.Password == "tsql-pw",
            Encryption = serverSetting,
            Certificate = serverSetting == TdsEncryption.NotSupported ? null : certificate,
            OnEvent = e => output.WriteLine($"server: [{e.ConnectionId}] {e.Message}"),
        });
        server.When("tls_probe", TdsResponse.Rows([TdsColumn.NVarChar("answer")], ["probe-answer-31"]));
        // FreeTDS reads its settings from the file FREETDSCONF names; [global] applies to a -H/-p connection.
        var conf = Path.Combine(Path.GetTempPath(), $"freetds-{Guid.NewGuid():N}.conf");
        await File.WriteAllTextAsync(conf, $"[global]\n\ttds version = 7.4\n\tencryption = {freeTdsEncryption}\n");
        try
        {
            var (exit, text) = await RunTsqlAsync(server.Port, "7.4", "select * from tls_probe\ngo\nexit\n", conf);
            output.WriteLine(text);
            if (expected is null)
            {
                Assert.NotEqual(0, exit);
                Assert.Empty(server.Logins);
                Assert.Contains(server.Events, e => e.Message.Contains("requires encryption: connection closed", StringComparison.Ordinal));
                return;
            }

            Assert.True(exit == 0, text);
            Assert.Contains("probe-answer-31", text, StringComparison.Ordinal);
            Assert.Equal(expected, Assert.Single(server.Logins).Security);
        }
        finally
        {
            File.Delete(conf);
        }
    }

    private static async Task<(int Exit, string Output)> RunTsqlAsync(int port, string tdsVersion, string input, string? freeTdsConf = null)
    {
        var start = new ProcessStartInfo(Tsql, ["-H", "127.0.0.1", "-p", port.ToString(System.Globalization.CultureInfo.InvariantCulture), "-U", "monitor", "-P", "tsql-pw"])
        {
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        start.Environment["TDSVER"] = tdsVersion;
        if (freeTdsConf is not null)
        {
            start.Environment["FREETDSCONF"] = freeTdsConf;
        }

        using var process = Process.Start(start)!;
        await process.StandardInput.WriteAsync(input);
        process.StandardInput.Close();
        var stdout = process.StandardOutput.ReadToEndAsync();
        var stderr = process.StandardError.ReadToEndAsync();
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(20));
        try
        {
            await process.WaitForExitAsync(timeout.Token);
        }
        catch (OperationCanceledException)
        {
            process.Kill();
            throw;
        }

        return (process.ExitCode, await stdout + await stderr);
    }
}
