using System.Globalization;
using System.Text.RegularExpressions;
using LogFlushMonitor.Hosting;
using LogFlushMonitor.SqlServer.Tests.Scripted;
using LogFlushMonitor.SqlServer.Tests.Streaming;
using LogFlushMonitor.TdsTestServer;
using Xunit.Abstractions;

namespace LogFlushMonitor.SqlServer.Tests.Hostile;

/// <summary>
/// The whole service (<c>run</c>) against a server whose every answer is one no real server gives (issue 31: "a hostile
/// result-set mode in the test server that the suite drives against run"): NULL cells, negative or huge numbers and
/// times, every row twice. Whatever it answers, the service keeps serving /metrics, never takes the "a bug, please report
/// it" path (no <c>error_type="unexpected"</c>), and reports no impossible figure: no negative or non-finite value, no
/// fraction above 1, no time before 2000 or after 2100.
/// </summary>
[Collection(MeterCollection.Name)]
public sealed partial class HostileServerRunTests(ITestOutputHelper output)
{
    [Theory]
    [InlineData(HostileMode.Null, false)]
    [InlineData(HostileMode.Negative, false)]
    [InlineData(HostileMode.Huge, false)]
    [InlineData(HostileMode.Duplicated, false)]
    [InlineData(HostileMode.Null, true)]
    [InlineData(HostileMode.Negative, true)]
    [InlineData(HostileMode.Huge, true)]
    [InlineData(HostileMode.Duplicated, true)]
    public async Task Run_against_a_hostile_server_keeps_serving_and_reports_no_impossible_figure(HostileMode mode, bool signalsOnly)
    {
        // Every answer hostile stops the service early (the session and the server's identity cannot be read); with the
        // signals' statements alone hostile, the connection and session come up and every poll gets the bad rows.
        var signalTexts = Core.Signals.SignalRegistry.All
            .SelectMany(s => new[] { new Core.Signals.ServerProfile(false, 16), new Core.Signals.ServerProfile(false, 12) }.SelectMany(s.Statements))
            .Select(st => st.Text.Trim()).Distinct(StringComparer.Ordinal).ToList();
        await using var server = new ScriptedSqlServer();
        var hostile = HostileRows.Rewriter(mode);
        server.Server.RowRewriter = signalsOnly
            ? (request, columns, rows) => signalTexts.Any(t => request.Text.Contains(t, StringComparison.Ordinal)) ? hostile(request, columns, rows) : rows
            : hostile;
        var host = MonitorHost.Build([], new Dictionary<string, string?>
        {
            ["Http:Urls"] = "http://127.0.0.1:0",
            ["Log:SummaryInterval"] = "00:00:00",
            ["Log:Level"] = "Warning",
            ["Sources:SqlServer:PollInterval"] = "00:00:01",
            ["Sources:SqlServer:ReconnectDelay"] = "00:00:00.200",
            ["Sources:SqlServer:MaxReconnectDelay"] = "00:00:01",
            ["Sources:SqlServer:Instances:0:Name"] = "hostile",
            ["Sources:SqlServer:Instances:0:ConnectionString"] = server.ConnectionString(),
            ["Sources:SqlServer:Instances:0:SessionName"] = "lfm_hostile",
        });
        await host.StartAsync();
        try
        {
            using var http = new HttpClient { BaseAddress = MonitorHost.HttpAddresses(host.Services)[0], Timeout = TimeSpan.FromSeconds(10) };
            // Long enough for every statement to be asked and answered (badly) several times, the reconnects included.
            var deadline = DateTime.UtcNow.AddSeconds(5);
            var text = "";
            while (DateTime.UtcNow < deadline)
            {
                text = await http.GetStringAsync("/metrics");
                await Task.Delay(500);
            }

            output.WriteLine($"statements asked: {server.Server.Requests.Count}");
            output.WriteLine(string.Join("\n", text.Split('\n').Where(l => l.StartsWith("sqlserver_monitor_errors", StringComparison.Ordinal) || l.StartsWith("sqlserver_monitor_up", StringComparison.Ordinal))));
            Assert.True(server.Server.Requests.Count > 10, $"the service asked only {server.Server.Requests.Count} statements");
            Assert.DoesNotContain("error_type=\"unexpected\"", text, StringComparison.Ordinal);
            var impossible = Samples(text).Where(s => Impossible(s.Name, s.Value)).Select(s => s.Line).ToList();
            Assert.True(impossible.Count == 0, $"{mode}: impossible figures on /metrics:\n{string.Join("\n", impossible.Take(20))}");
        }
        finally
        {
            await host.StopAsync();
            host.Dispose();
        }
    }

    /// <summary>A value no real server state can produce for this family.</summary>
    private static bool Impossible(string name, double value)
    {
        if (!double.IsFinite(value) || value < 0)
        {
            return true;
        }

        if (name.EndsWith("_ratio", StringComparison.Ordinal) && !name.Contains("agreement", StringComparison.Ordinal))
        {
            return value > 1;
        }

        // Unix seconds: a start time or a success time before 2000 or after 2100 is no time the server had.
        return name.StartsWith("sqlserver_instance_start_time", StringComparison.Ordinal) && value is < 946_684_800 or > 4_102_444_800;
    }

    private static IEnumerable<(string Name, double Value, string Line)> Samples(string text)
    {
        foreach (var line in text.Split('\n'))
        {
            if (Sample().Match(line) is { Success: true } m && m.Groups[1].Value.StartsWith("sqlserver_", StringComparison.Ordinal))
            {
                var raw = m.Groups[2].Value;
                var value = raw switch
                {
                    "+Inf" => double.PositiveInfinity,
                    "-Inf" => double.NegativeInfinity,
                    "NaN" => double.NaN,
                    _ => double.Parse(raw, CultureInfo.InvariantCulture),
                };
                yield return (m.Groups[1].Value, value, line);
            }
        }
    }

    [GeneratedRegex(@"^([a-z_:][a-z0-9_:]*)(?:\{[^}]*\})? (\S+)")]
    private static partial Regex Sample();
}
