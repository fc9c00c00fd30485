using System.Diagnostics;
using LogFlushMonitor.Hosting;
using LogFlushMonitor.Sources;

namespace LogFlushMonitor.Tests.Hosting;

/// <summary>Shutdown is bounded by Sources:SqlServer:ShutdownTimeout and names a source that did not stop (issue 20 item 4, host part).</summary>
public class SourceShutdownTests
{
    [Fact]
    public async Task A_source_that_ignores_cancellation_is_named_and_abandoned_within_the_shutdown_timeout()
    {
        var host = MonitorHost.Build([], new Dictionary<string, string?>
        {
            ["Sources:Simulate:Scenario"] = "autocommit",
            ["Http:Urls"] = "http://127.0.0.1:0",
            ["Log:Level"] = "Warning",
            ["Sources:SqlServer:ShutdownTimeout"] = "00:00:01",
        }, services => services.AddHostedService<StuckSource>());
        var exitCode = HostFailures.ExitCodeOf(host);
        await host.StartAsync();
        await host.Services.GetServices<IHostedService>().OfType<StuckSource>().Single().Running.WaitAsync(TimeSpan.FromSeconds(30));

        var stopping = Stopwatch.StartNew();
        await host.StopAsync(TimeSpan.FromSeconds(30));
        stopping.Stop();

        var shutdown = host.Services.GetRequiredService<SourceShutdown>();
        Assert.Equal(["source:stuck"], shutdown.NotStopped);
        Assert.True(stopping.Elapsed < TimeSpan.FromSeconds(5), $"stopping took {stopping.Elapsed}");
        Assert.Equal(0, exitCode());
        host.Dispose();
    }

    [Fact]
    public async Task Sources_that_stop_are_not_named()
    {
        var host = MonitorHost.Build([], new Dictionary<string, string?>
        {
            ["Sources:Simulate:Scenario"] = "autocommit",
            ["Http:Urls"] = "http://127.0.0.1:0",
            ["Log:Level"] = "Warning",
        });
        await host.StartAsync();
        await host.StopAsync(TimeSpan.FromSeconds(30));
        Assert.Empty(host.Services.GetRequiredService<SourceShutdown>().NotStopped);
        host.Dispose();
    }

    /// <summary>A source blocked where cancellation does not reach (as a read of a silent FIFO is).</summary>
    private sealed class StuckSource(SourceShutdown shutdown) : SourceService("source:stuck", shutdown)
    {
        private readonly TaskCompletionSource _never = new();
        private readonly TaskCompletionSource _running = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public Task Running => _running.Task;

        protected override Task RunSourceAsync(CancellationToken stoppingToken)
        {
            _running.SetResult();
            return _never.Task;
        }
    }
}
