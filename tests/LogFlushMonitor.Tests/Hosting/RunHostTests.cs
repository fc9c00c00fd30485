using System.Net;
using System.Text.RegularExpressions;
using LogFlushMonitor.Core.Pipeline;

namespace LogFlushMonitor.Tests.Hosting;

/// <summary>Hosts listen to the one meter name "LogFlushMonitor": run one at a time.</summary>
[CollectionDefinition("host", DisableParallelization = true)]
public sealed class HostCollection;

[Collection("host")]
public partial class RunHostTests
{
    [Fact]
    public async Task Run_with_a_simulated_workload_serves_live_metrics_health_and_readiness()
    {
        await using var host = await RunningHost.StartAsync(new()
        {
            ["Sources:Simulate:Scenario"] = "mixed",
            ["Sources:Simulate:Speed"] = "20",
            ["Exporters:CardinalityLimit"] = "5000", // a view over every instrument must keep the advised buckets
        });

        var text = await host.ScrapeUntilAsync(t => t.Contains("sqlserver_log_flushes_total{", StringComparison.Ordinal) && FlushBucket().IsMatch(t), TimeSpan.FromSeconds(30));

        Assert.Matches(FlushBucket(), text);
        Assert.Contains("le=\"49152\"", text, StringComparison.Ordinal);
        Assert.Contains("le=\"0.00025\"", text, StringComparison.Ordinal);
        Assert.Contains("# TYPE sqlserver_log_flush_write_size_bytes histogram", text, StringComparison.Ordinal);
        Assert.Contains("sqlserver_log_flushes_total{", text, StringComparison.Ordinal);
        Assert.Contains("target_info{", text, StringComparison.Ordinal);
        Assert.Equal(HttpStatusCode.OK, (await host.Http.GetAsync("/healthz")).StatusCode);
        var ready = await host.Http.GetAsync("/readyz");
        Assert.Equal(HttpStatusCode.OK, ready.StatusCode);
        Assert.True(host.Host.Services.GetRequiredService<SamplePipeline>().Accepted > 0);
    }

    [SkippableFact]
    public async Task A_real_scrape_of_every_metric_passes_promtool_check_metrics()
    {
        var promtool = Environment.GetEnvironmentVariable("PROMTOOL") ?? "/usr/bin/promtool";
        Skip.IfNot(File.Exists(promtool), $"promtool not found at {promtool} (Debian package prometheus; .ci/run installs it)");
        await using var host = await RunningHost.StartAsync(new() { ["Sources:Simulate:Scenario"] = "mixed", ["Sources:Simulate:Speed"] = "20" });
        var text = await host.ScrapeUntilAsync(t => t.Contains("sqlserver_log_file_write_stall_seconds_total{", StringComparison.Ordinal) && t.Contains("sqlserver_database_wait_duration_seconds_bucket{", StringComparison.Ordinal), TimeSpan.FromSeconds(30));

        var psi = new System.Diagnostics.ProcessStartInfo(promtool, ["check", "metrics"]) { RedirectStandardInput = true, RedirectStandardOutput = true, RedirectStandardError = true };
        using var p = System.Diagnostics.Process.Start(psi)!;
        await p.StandardInput.WriteAsync(text);
        p.StandardInput.Close();
        var output = await p.StandardOutput.ReadToEndAsync() + await p.StandardError.ReadToEndAsync();
        await p.WaitForExitAsync();
        Assert.True(p.ExitCode == 0, "promtool check metrics: " + output);
    }

    [GeneratedRegex("""sqlserver_log_flush_write_size_bytes_bucket\{[^}]*le="512"[^}]*\} [1-9]""")]
    private static partial Regex FlushBucket();
}
