using System.Diagnostics.Metrics;
using System.Net;
using System.Text.Json;
using System.Text.RegularExpressions;
using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Hosting;

namespace LogFlushMonitor.Tests.Hosting;

[Collection("host")]
public partial class SignalHostTests
{
    private const string Flush = """{"type":"flush","t":"2026-11-22T12:00:00Z","instance":"sql1","db_id":5,"db":"shop","write_size":512}""";

    private static string TempFile(string text)
    {
        var path = Path.Combine(Path.GetTempPath(), $"lfm-signal-{Guid.NewGuid():N}.ndjson");
        File.WriteAllText(path, text);
        return path;
    }

    [Theory]
    [InlineData(false, 0)]
    [InlineData(true, 1)]
    public async Task A_stop_while_the_host_starts_ends_run_with_its_exit_code_not_a_crash(bool failed, int expected)
    {
        // The HTTP server starts last and gives up binding with a cancellation when the host is told to stop before it
        // (a component failing at once, SIGTERM early): RunHostAsync let that TaskCanceledException out, a crash with a
        // stack trace instead of exit 0 or 1 (seen as SignalHostTests' pipeline fault on a loaded machine).
        var error = new StringWriter();
        var code = await LogFlushMonitor.Commands.RunCommand.RunHostAsync(
            [],
            new Dictionary<string, string?> { ["Sources:Simulate:Scenario"] = "mixed", ["Http:Urls"] = "http://127.0.0.1:0", ["Log:SummaryInterval"] = "00:00:00", ["Log:Level"] = "Warning" },
            error,
            services => services.AddHostedService(sp => new StopsWhileStarting(sp.GetRequiredService<IHostApplicationLifetime>(), failed ? sp.GetRequiredService<HostFailures>() : null)));
        Assert.True(code == expected, $"exit {code}: {error}");
    }

    /// <summary>Starts after the sources and before the HTTP server (registered last), and stops the host there.</summary>
    private sealed class StopsWhileStarting(IHostApplicationLifetime lifetime, HostFailures? failures) : IHostedService
    {
        public Task StartAsync(CancellationToken cancellationToken)
        {
            failures?.Record("test");
            lifetime.StopApplication();
            return Task.CompletedTask;
        }

        public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;
    }

    [Fact]
    public async Task A_pipeline_consumer_that_faults_stops_the_host_with_exit_code_1()
    {
        var file = TempFile(Flush + "\n");
        using var listener = new MeterListener();
        try
        {
            await using var host = await RunningHost.StartAsync(new() { ["Sources:Replay:Path"] = file, ["Sources:Replay:Speed"] = "0" }, services =>
            {
                // A fault inside the consumer's path (here the histogram record of this host's meter throws), as a bug would.
                services.AddSingleton<Action<IMeterFactory>>(factory =>
                {
                    listener.InstrumentPublished = (instrument, l) =>
                    {
                        if (instrument.Meter.Scope == factory && instrument.Name == "sqlserver.log.flush.write_size")
                        {
                            l.EnableMeasurementEvents(instrument);
                        }
                    };
                    listener.SetMeasurementEventCallback<long>((_, _, _, _) => throw new InvalidOperationException("consumer bug"));
                    listener.Start();
                });
            }, beforeStart: sp => sp.GetRequiredService<Action<IMeterFactory>>()(sp.GetRequiredService<IMeterFactory>()));
            var exitCode = HostFailures.ExitCodeOf(host.Host);
            var lifetime = host.Host.Services.GetRequiredService<IHostApplicationLifetime>();

            await Eventually.Until(() => lifetime.ApplicationStopping.IsCancellationRequested, "the host stopping by itself");
            Assert.Equal(1, exitCode());
            Assert.Contains(ReadinessComponents.Pipeline, host.Host.Services.GetRequiredService<HostFailures>().Failed);
        }
        finally
        {
            File.Delete(file);
        }
    }

    [Fact]
    public async Task Readyz_is_503_with_each_sources_state_until_the_replay_delivered_and_healthz_stays_200()
    {
        var file = TempFile("""{"type":"flush","t":"not a time"}""" + "\n");
        try
        {
            await using var host = await RunningHost.StartAsync(new() { ["Sources:Replay:Path"] = file, ["Sources:Replay:Speed"] = "0" });
            using var waiting = await host.Http.GetAsync("/readyz");
            var body = await waiting.Content.ReadAsStringAsync();

            Assert.Equal(HttpStatusCode.ServiceUnavailable, waiting.StatusCode);
            Assert.Equal("application/json", waiting.Content.Headers.ContentType?.MediaType);
            using var json = JsonDocument.Parse(body);
            Assert.Equal("not_ready", json.RootElement.GetProperty("status").GetString());
            Assert.Equal("waiting", json.RootElement.GetProperty("components").GetProperty("source:replay").GetProperty("state").GetString());
            Assert.Equal("ready", json.RootElement.GetProperty("components").GetProperty("pipeline").GetProperty("state").GetString());
            Assert.Equal(HttpStatusCode.OK, (await host.Http.GetAsync("/healthz")).StatusCode);
        }
        finally
        {
            File.Delete(file);
        }
    }

    [Fact]
    public async Task A_replay_that_delivered_is_ready_and_exports_source_health_like_a_sql_source()
    {
        var file = TempFile(Flush + "\n" + """{"type":"poll_completed","t":"2026-11-22T12:00:01Z","instance":"sql1","kind":"counters"}""" + "\n");
        try
        {
            await using var host = await RunningHost.StartAsync(new() { ["Sources:Replay:Path"] = file, ["Sources:Replay:Speed"] = "0" });
            await Eventually.Until(async () => (await host.Http.GetAsync("/readyz")).StatusCode == HttpStatusCode.OK, "/readyz 200");
            var text = await host.ScrapeUntilAsync(t => t.Contains("sqlserver_monitor_up{", StringComparison.Ordinal), TimeSpan.FromSeconds(30));

            Assert.Matches(UpFor("stream"), text);
            Assert.Matches(UpFor("poller"), text);
            Assert.Contains("sqlserver_monitor_last_success_seconds{", text, StringComparison.Ordinal);
            Assert.Contains("sqlserver_monitor_collection_mode{", text, StringComparison.Ordinal);
        }
        finally
        {
            File.Delete(file);
        }
    }

    [Fact]
    public async Task A_900_KB_database_name_becomes_a_256_character_label_and_is_counted()
    {
        // The longest name a replay line can carry (lines stop at 1 MiB); a live source hands any length to the same cut.
        var name = new string('d', 900 * 1024);
        var file = TempFile("{\"type\":\"flush\",\"t\":\"2026-11-22T12:00:00Z\",\"instance\":\"sql1\",\"db_id\":5,\"db\":\"" + name + "\",\"write_size\":512}\n");
        try
        {
            var before = MetricAttributes.Truncated;
            await using var host = await RunningHost.StartAsync(new() { ["Sources:Replay:Path"] = file, ["Sources:Replay:Speed"] = "0" });
            var text = await host.ScrapeUntilAsync(t => t.Contains("sqlserver_log_flush_write_size_bytes_count{", StringComparison.Ordinal), TimeSpan.FromSeconds(30));

            var label = DatabaseLabel().Match(text);
            Assert.True(label.Success, text.Length > 2000 ? text[..2000] : text);
            Assert.Equal(MetricAttributes.MaxValueLength, label.Groups[1].Value.Length);
            Assert.True(text.Length < 200_000, $"a scrape of {text.Length} characters");
            Assert.True(MetricAttributes.Truncated > before);
            Assert.Matches(TruncatedCount(), text);
        }
        finally
        {
            File.Delete(file);
        }
    }

    [Fact]
    public async Task Otlp_export_answered_with_503_is_counted_by_status()
    {
        await using var receiver = await FakeOtlpReceiver.StartAsync(grpc: false);
        receiver.Status = 503;
        await using var host = await RunningHost.StartAsync(new()
        {
            ["Sources:Simulate:Scenario"] = "autocommit",
            ["Exporters:Otlp:Enabled"] = "true",
            ["Exporters:Otlp:Protocol"] = "http/protobuf",
            ["Exporters:Otlp:Endpoint"] = receiver.Address.ToString(),
            ["Exporters:Otlp:Interval"] = "00:00:01",
        });

        var text = await host.ScrapeUntilAsync(t => Http503().IsMatch(t), TimeSpan.FromSeconds(60));

        Assert.Matches(Http503(), text);
        Assert.NotEmpty(receiver.Requests);
    }

    [GeneratedRegex("sqlserver_database_name=\"(d+)\"")]
    private static partial Regex DatabaseLabel();

    [GeneratedRegex("""^sqlserver_monitor_attributes_truncated_total\{[^}]*\} [1-9]""", RegexOptions.Multiline)]
    private static partial Regex TruncatedCount();

    [GeneratedRegex("""^sqlserver_monitor_export_failures_total\{[^}]*error_type="http_503"[^}]*\} [1-9]""", RegexOptions.Multiline)]
    private static partial Regex Http503();

    private static Regex UpFor(string component) =>
        new($"^sqlserver_monitor_up\\{{component=\"{component}\",sqlserver_instance_name=\"sql1\"[^}}]*\\}} 1$", RegexOptions.Multiline);
}
