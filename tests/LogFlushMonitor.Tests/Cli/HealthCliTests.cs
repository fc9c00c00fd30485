using System.Net;
using System.Net.Sockets;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.Logging;

namespace LogFlushMonitor.Tests.Cli;

/// <summary>
/// <c>logflushmonitor health</c> against a real Kestrel listener: the command line in this process, and through the
/// real executable where its working directory is the point.
/// </summary>
public sealed class HealthCliTests : IAsyncLifetime
{
    private readonly TaskCompletionSource _release = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private WebApplication? _app;
    private string _base = "";

    public async Task InitializeAsync()
    {
        var builder = WebApplication.CreateSlimBuilder();
        builder.WebHost.UseUrls("http://127.0.0.1:0");
        builder.Logging.ClearProviders();
        _app = builder.Build();
        _app.MapGet("/healthz", () => Results.Text("ok"));
        _app.MapGet("/readyz", () => Results.StatusCode(StatusCodes.Status503ServiceUnavailable));
        // Answers only when the test ends: a probe must give up on its own.
        _app.MapGet("/hang", async (HttpContext context) =>
        {
            await _release.Task.WaitAsync(context.RequestAborted);
            return Results.Text("late");
        });
        await _app.StartAsync();
        _base = _app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses.First();
    }

    public async Task DisposeAsync()
    {
        _release.TrySetResult();
        if (_app is not null)
        {
            await _app.DisposeAsync();
        }
    }

    [Fact]
    public async Task A_2xx_answer_exits_0()
    {
        var (code, stdout, _) = await InProcessCli.RunAsync("health", "--url", _base + "/healthz");

        Assert.Equal(0, code);
        Assert.Equal($"healthy: HTTP 200 OK from {_base}/healthz", stdout.Trim());
    }

    [Fact]
    public async Task A_503_exits_1_with_the_status()
    {
        var (code, _, stderr) = await InProcessCli.RunAsync("health", "--url", _base + "/readyz");

        Assert.Equal(1, code);
        Assert.Equal($"unhealthy: HTTP 503 Service Unavailable from {_base}/readyz", stderr.Trim());
    }

    [Fact]
    public async Task A_refused_connection_exits_1_and_says_nothing_listens()
    {
        int port;
        using (var l = new TcpListener(IPAddress.Loopback, 0))
        {
            l.Start();
            port = ((IPEndPoint)l.LocalEndpoint).Port;
        }

        var (code, _, stderr) = await InProcessCli.RunAsync("health", "--url", $"http://127.0.0.1:{port}/healthz");

        Assert.Equal(1, code);
        Assert.StartsWith($"unhealthy: connection refused by 127.0.0.1:{port}", stderr.Trim(), StringComparison.Ordinal);
        Assert.DoesNotContain("   at ", stderr, StringComparison.Ordinal);
    }

    [Fact]
    public async Task No_answer_within_the_timeout_exits_1_and_says_timeout()
    {
        var (code, _, stderr) = await InProcessCli.RunAsync("health", "--url", _base + "/hang", "--timeout", "300ms");

        Assert.Equal(1, code);
        Assert.Equal($"unhealthy: no answer from {_base}/hang within 0.3 s (timeout)", stderr.Trim());
    }

    [Theory]
    [InlineData("--url", "ftp://127.0.0.1/healthz", "--url 'ftp://127.0.0.1/healthz' is not an http or https URL")]
    [InlineData("--url", "healthz", "--url 'healthz' is not an http or https URL")]
    [InlineData("--timeout", "soon", "--timeout 'soon' is not a duration")]
    public async Task A_bad_url_or_timeout_exits_2(string option, string value, string message)
    {
        var (code, _, stderr) = await InProcessCli.RunAsync("health", option, value);

        Assert.Equal(2, code);
        Assert.Contains(message, stderr, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Health_reads_no_configuration()
    {
        // An appsettings.json the host would reject (exit 2) does not matter to the probe.
        var folder = Directory.CreateTempSubdirectory("lfm-health-");
        try
        {
            await File.WriteAllTextAsync(Path.Combine(folder.FullName, "appsettings.json"), "{ not json");
            using var cli = CliProcess.Start(["health", "--url", _base + "/healthz"], workingDirectory: folder.FullName);
            Assert.Equal(0, await cli.WaitAsync(TimeSpan.FromSeconds(60)));
        }
        finally
        {
            folder.Delete(recursive: true);
        }
    }
}
