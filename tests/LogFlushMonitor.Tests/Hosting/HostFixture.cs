using LogFlushMonitor.Hosting;

namespace LogFlushMonitor.Tests.Hosting;

/// <summary>Starts the real worker host in-process on a free port and stops it at the end.</summary>
public sealed class RunningHost : IAsyncDisposable
{
    private RunningHost(IHost host, Uri baseAddress)
    {
        Host = host;
        BaseAddress = baseAddress;
        Http = new HttpClient { BaseAddress = baseAddress, Timeout = TimeSpan.FromSeconds(10) };
    }

    public IHost Host { get; }

    public Uri BaseAddress { get; }

    public HttpClient Http { get; }

    public static async Task<RunningHost> StartAsync(Dictionary<string, string?> settings, Action<IServiceCollection>? services = null, Action<IServiceProvider>? beforeStart = null, Func<string, string?>? environment = null)
    {
        var all = new Dictionary<string, string?>
        {
            ["Http:Urls"] = "http://127.0.0.1:0",
            ["Log:SummaryInterval"] = "00:00:00",
            ["Log:Level"] = "Warning",
        };
        foreach (var (k, v) in settings)
        {
            all[k] = v;
        }

        var host = MonitorHost.Build([], all, services, environment);
        beforeStart?.Invoke(host.Services);
        try
        {
            await host.StartAsync();
        }
        catch (OperationCanceledException) when (host.Services.GetRequiredService<IHostApplicationLifetime>().ApplicationStopping.IsCancellationRequested)
        {
            // The host stopped itself while starting (a test that makes a component fail at once): the HTTP server, which
            // starts last, gave up binding. The test asserts on the stopped host.
        }

        var address = MonitorHost.HttpAddresses(host.Services).FirstOrDefault() ?? new Uri("http://127.0.0.1:1");
        return new RunningHost(host, address);
    }

    /// <summary>Scrapes /metrics until <paramref name="until"/> holds or the timeout passes; returns the last text.</summary>
    public async Task<string> ScrapeUntilAsync(Func<string, bool> until, TimeSpan timeout)
    {
        var text = "";
        try
        {
            await Eventually.Until(
                async () =>
                {
                    text = await Http.GetStringAsync("/metrics");
                    return until(text);
                },
                "a scrape of /metrics that holds what the test waits for",
                timeout);
        }
        catch (TimeoutException)
        {
            // The caller asserts on the last text, which says more than a timeout.
        }

        return text;
    }

    public async ValueTask DisposeAsync()
    {
        Http.Dispose();
        await Host.StopAsync(TimeSpan.FromSeconds(10));
        Host.Dispose();
    }
}
