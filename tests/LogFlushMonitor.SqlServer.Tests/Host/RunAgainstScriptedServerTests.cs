using System.Text.RegularExpressions;
using LogFlushMonitor.Hosting;
using LogFlushMonitor.SqlServer.Tests.Scripted;
using LogFlushMonitor.SqlServer.Tests.Streaming;
using Microsoft.Extensions.Hosting;

namespace LogFlushMonitor.SqlServer.Tests.Host;

/// <summary>
/// The whole service as a user runs it (`run` with Sources:SqlServer), against the scripted server over a real
/// socket: pollers and the live stream end up on /metrics.
/// </summary>
[Collection(MeterCollection.Name)]
public partial class RunAgainstScriptedServerTests
{
    [Fact]
    public async Task Run_with_a_sql_server_instance_exports_its_counters_waits_and_streamed_flushes()
    {
        await using var server = new ScriptedSqlServer();
        server.Database("sales").QueryStoreStatements.Add(new ScriptedStatement(0xA1, "INSERT INTO dbo.SecretTable VALUES (N'card 4111')", 10, 500));
        foreach (var (type, data) in StreamRows.Flushes(1, 300))
        {
            await server.EventStream.Writer.WriteAsync([type, data]);
        }

        var host = MonitorHost.Build([], new Dictionary<string, string?>
        {
            ["Http:Urls"] = "http://127.0.0.1:0",
            ["Log:SummaryInterval"] = "00:00:00",
            ["Log:Level"] = "Warning",
            ["Sources:SqlServer:PollInterval"] = "00:00:01",
            ["Sources:SqlServer:Instances:0:Name"] = "prod1",
            ["Sources:SqlServer:Instances:0:ConnectionString"] = server.ConnectionString(),
            ["Sources:SqlServer:Instances:0:SessionName"] = "lfm_e2e",
        });
        await host.StartAsync();
        try
        {
            var address = MonitorHost.HttpAddresses(host.Services)[0];
            using var http = new HttpClient { BaseAddress = address };
            var text = "";
            try
            {
                await Eventually.Until(
                    async () =>
                    {
                        text = await http.GetStringAsync("/metrics");
                        return FlushCount().IsMatch(text) && RateCounter().IsMatch(text) && text.Contains("sqlserver_query_hash=\"0x00000000000000A1\"", StringComparison.Ordinal);
                    },
                    "the streamed flushes and a polled rate on /metrics");
            }
            catch (TimeoutException e)
            {
                var flushLines = string.Join("\n", text.Split('\n').Where(l => l.Contains("write_size_bytes_count", StringComparison.Ordinal) || l.StartsWith("sqlserver_log_flushes_total", StringComparison.Ordinal) || l.StartsWith("sqlserver_monitor", StringComparison.Ordinal)));
                Assert.Fail($"{e.Message} Last scrape:\n{flushLines}");
            }

            Assert.Matches(FlushCount(), text);  // 300 streamed log_flush_start events of database 5 ("sales")
            Assert.Matches(RateCounter(), text); // Log Flushes/sec polled and turned into an increase
            Assert.Contains("sqlserver_wait_tasks_total{sqlserver_instance_name=\"prod1\",wait_type=\"WRITELOG\"", text, StringComparison.Ordinal);
            Assert.Contains("sqlserver_monitor_up{component=\"poller\",sqlserver_instance_name=\"prod1\"", text, StringComparison.Ordinal);
            Assert.Contains("sqlserver_monitor_collection_mode{mode=\"stream\",sqlserver_instance_name=\"prod1\"", text, StringComparison.Ordinal);
            Assert.Equal((true, true), server.EventSession("lfm_e2e"));
            Assert.DoesNotContain(ScriptedSqlServer.Password, text, StringComparison.Ordinal);
            Assert.DoesNotContain("SecretTable", text, StringComparison.Ordinal); // a statement is its query hash on /metrics, never its text
        }
        finally
        {
            await host.StopAsync(TimeSpan.FromSeconds(15));
            host.Dispose();
        }

        Assert.Equal((true, false), server.EventSession("lfm_e2e")); // stopped and left for the next start
    }

    [GeneratedRegex("""sqlserver_log_flush_write_size_bytes_count\{sqlserver_database_name="sales",sqlserver_instance_name="prod1"[^}]*\} 300\b""")]
    private static partial Regex FlushCount();

    [GeneratedRegex("""sqlserver_log_flushes_total\{sqlserver_database_name="sales",sqlserver_instance_name="prod1"[^}]*\} [1-9]""")]
    private static partial Regex RateCounter();
}
