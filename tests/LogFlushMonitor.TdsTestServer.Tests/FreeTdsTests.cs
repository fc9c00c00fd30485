using System.Diagnostics;
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

    private static async Task<(int Exit, string Output)> RunTsqlAsync(int port, string tdsVersion, string input)
    {
        var start = new ProcessStartInfo(Tsql, ["-H", "127.0.0.1", "-p", port.ToString(System.Globalization.CultureInfo.InvariantCulture), "-U", "monitor", "-P", "tsql-pw"])
        {
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        start.Environment["TDSVER"] = tdsVersion;
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
