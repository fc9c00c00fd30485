using System.Text.RegularExpressions;
using LogFlushMonitor.Hosting;
using LogFlushMonitor.SqlServer.Tests.Scripted;
using LogFlushMonitor.SqlServer.Tests.Streaming;
using LogFlushMonitor.TdsTestServer;
using Microsoft.Extensions.Hosting;

namespace LogFlushMonitor.SqlServer.Tests.Tls;

/// <summary>
/// The whole service (`run` with Sources:SqlServer) over TLS against the scripted server: every poller and the live
/// event stream work on encrypted connections, TDS 7.x (Encrypt=Mandatory) and TDS 8 (Encrypt=Strict).
/// </summary>
public sealed class EncryptedRunTests(TlsCertificateFixture tls) : IClassFixture<TlsCertificateFixture>
{
    [Theory]
    [InlineData("Mandatory", TdsEncryption.Required, TdsSessionSecurity.Full)]
    [InlineData("Strict", TdsEncryption.Strict, TdsSessionSecurity.Strict)]
    public async Task Run_polls_and_streams_over_an_encrypted_connection(string encrypt, TdsEncryption serverSetting, TdsSessionSecurity expected)
    {
        await using var server = new ScriptedSqlServer(encryption: serverSetting, certificate: tls.Certificate);
        var instance = $"tls-{encrypt.ToLowerInvariant()}";
        var flushCount = new Regex($$"""sqlserver_log_flush_write_size_bytes_count\{sqlserver_database_name="sales",sqlserver_instance_name="{{instance}}"[^}]*\} 300\b""");
        var rateCounter = new Regex($$"""sqlserver_log_flushes_total\{sqlserver_database_name="sales",sqlserver_instance_name="{{instance}}"[^}]*\} [1-9]""");
        var writeLogWaits = $"sqlserver_wait_tasks_total{{sqlserver_instance_name=\"{instance}\",wait_type=\"WRITELOG\"";
        foreach (var (type, data) in StreamRows.Flushes(1, 300))
        {
            await server.EventStream.Writer.WriteAsync([type, data]);
        }

        // Mandatory trusts the test certificate (TrustServerCertificate=True, tests only); Strict always validates, so it pins it.
        var connectionString = encrypt == "Strict"
            ? server.Server.ConnectionString(encrypt: "Strict", trustServerCertificate: false) + $";ServerCertificate={tls.PemPath}"
            : server.Server.ConnectionString(encrypt: "Mandatory", trustServerCertificate: true);
        var host = MonitorHost.Build([], new Dictionary<string, string?>
        {
            ["Http:Urls"] = "http://127.0.0.1:0",
            ["Log:SummaryInterval"] = "00:00:00",
            ["Log:Level"] = "Warning",
            ["Sources:SqlServer:PollInterval"] = "00:00:01",
            // An instance name of its own: other tests' hosts in this process export through the same meter name.
            ["Sources:SqlServer:Instances:0:Name"] = instance,
            ["Sources:SqlServer:Instances:0:ConnectionString"] = connectionString,
            ["Sources:SqlServer:Instances:0:SessionName"] = "lfm_tls",
        });
        await host.StartAsync();
        try
        {
            using var http = new HttpClient { BaseAddress = MonitorHost.HttpAddresses(host.Services)[0] };
            var text = "";
            var deadline = DateTime.UtcNow + TimeSpan.FromSeconds(60);
            while (!(flushCount.IsMatch(text) && rateCounter.IsMatch(text) && text.Contains(writeLogWaits, StringComparison.Ordinal)))
            {
                Assert.True(DateTime.UtcNow < deadline, $"streamed flushes, polled counters and wait stats did not all reach /metrics:\n{text}");
                await Task.Delay(200);
                text = await http.GetStringAsync("/metrics");
            }
        }
        finally
        {
            await host.StopAsync(TimeSpan.FromSeconds(15));
            host.Dispose();
        }

        // Every connection the service opened (pollers, session DDL, the stream) was encrypted as asked.
        Assert.NotEmpty(server.Server.Logins);
        Assert.All(server.Server.Logins, l => Assert.Equal(expected, l.Security));
        Assert.Contains(server.Server.Requests, r => r.Text.Contains("fn_MSxe_read_event_stream", StringComparison.Ordinal));
        Assert.Contains(server.Server.Requests, r => r.Text.Contains("dm_os_performance_counters", StringComparison.Ordinal));
    }
}
