using System.Globalization;
using System.Text.RegularExpressions;
using LogFlushMonitor.Tests.Deploy;

namespace LogFlushMonitor.Tests.EndToEnd;

/// <summary>
/// The whole alerting path on one machine: the built logflushmonitor executable on a simulated scenario, a real
/// Prometheus scraping it every second and evaluating the shipped deploy/prometheus/alerts.yml shortened by
/// <see cref="Factor"/> (<see cref="RuleScaling.Shorten"/>), a real Alertmanager with the shipped
/// deploy/alertmanager/alertmanager.yml (<see cref="AlertmanagerForTest"/>), and a webhook receiver inside the test.
/// The one real-time end-to-end test (<see cref="LogStallAlertEndToEndTests"/>) runs on it; the WRITELOG alerts run in
/// virtual time (<see cref="VirtualTimeScrapes"/>, <see cref="PromtoolRuleEvaluation"/>) with the same <see cref="Factor"/>.
/// </summary>
/// <remarks>
/// The simulator runs at <see cref="Speed"/> (its own pace: the scenario's first spike starts 30 s after start, its
/// 20 s plateau ends at 53 s) and every duration of the rules and of Alertmanager's route is divided by
/// <see cref="Factor"/>. What the rules see is therefore the scenario stretched by Factor / Speed = 12 under the
/// shipped rules: a 4-minute spike at 30 ms on a fresh deployment (a database first seen less than 30 minutes ago,
/// so without a baseline: the floors decide). Running the simulator faster would shorten the test further but
/// multiplies the events per second on the shared test machine (the run command has no rate scale); a light scenario
/// may (<see cref="StartAsync"/>'s speed: log-stall's eight sessions run at 3).
/// </remarks>
internal sealed partial class AlertingStack : IAsyncDisposable
{
    /// <summary>The simulator's pace (<c>run --speed</c>).</summary>
    public const double Speed = 1;

    /// <summary>Every duration of the shipped rules and Alertmanager route is divided by this (windows 5 s, for 10 s, offset 150 s).</summary>
    public const double Factor = 12;

    private readonly List<IAsyncDisposable> _parts = [];
    private CliProcess? _monitor;
    private DirectoryInfo? _work;

    private AlertingStack(string scenario, double speed)
    {
        Scenario = scenario;
        SimulationSpeed = speed;
    }

    public string Scenario { get; }

    /// <summary>The simulator's pace for this stack (<see cref="Speed"/> unless the test chose another).</summary>
    public double SimulationSpeed { get; }

    /// <summary>When the monitor process was started: the simulation's virtual time starts no earlier.</summary>
    public DateTimeOffset MonitorStarted { get; private set; }

    public WebhookReceiver Receiver { get; private set; } = null!;

    public RealAlertmanager Alertmanager { get; private set; } = null!;

    public RealPrometheus Prometheus { get; private set; } = null!;

    public string MonitorOutput => _monitor is null ? "" : _monitor.StdOut + _monitor.StdErr;

    /// <summary>Skips the test (with the reason) when a binary of the stack is not installed.</summary>
    public static void SkipUnlessInstalled()
    {
        Skip.IfNot(RealPrometheus.IsInstalled, RealPrometheus.NotInstalledReason);
        Skip.IfNot(RealAlertmanager.IsInstalled, RealAlertmanager.NotInstalledReason);
    }

    public static async Task<AlertingStack> StartAsync(string scenario, double speed = Speed)
    {
        var stack = new AlertingStack(scenario, speed);
        try
        {
            await stack.StartPartsAsync();
            return stack;
        }
        catch
        {
            await stack.DisposeAsync();
            throw;
        }
    }

    /// <summary>Seconds between the monitor's start and <paramref name="at"/>: at least the scenario's virtual time then.</summary>
    public double SecondsSinceMonitorStart(DateTimeOffset at) => (at - MonitorStarted).TotalSeconds;

    /// <summary>Waits until the receiver has an alert matching <paramref name="match"/> and returns the first such.</summary>
    public async Task<DeliveredAlert> WaitForDeliveryAsync(Func<DeliveredAlert, bool> match, string what, TimeSpan timeout)
    {
        try
        {
            await Eventually.Until(() => Receiver.Alerts.Any(match), what, timeout);
        }
        catch (TimeoutException e)
        {
            throw new TimeoutException($"{e.Message} {Diagnostics()}", e);
        }

        return Receiver.Alerts.First(match);
    }

    /// <summary>What the stack did, for a failure message: delivered alerts, Prometheus's alerts, the ends of the logs.</summary>
    public string Diagnostics()
    {
        var delivered = string.Join("; ", Receiver.Alerts.Select(a =>
            $"{a.Status} {a.Label("alertname")} {a.Label("sqlserver_instance_name")}/{a.Label("sqlserver_database_name")} to {a.Receiver} at {SecondsSinceMonitorStart(a.Arrived):0.0} s"));
        string alerts;
        try
        {
            alerts = Prometheus.QueryAsync("ALERTS").GetAwaiter().GetResult().ToString();
        }
        catch (Exception e) when (e is HttpRequestException or InvalidOperationException or TaskCanceledException)
        {
            alerts = e.Message;
        }

        return $"Delivered: [{delivered}]. Prometheus ALERTS now: {alerts}. Alertmanager stderr: {Tail(Alertmanager.Stderr)}. "
            + $"Prometheus stderr: {Tail(Prometheus.Stderr)}. Monitor output: {Tail(MonitorOutput)}";
    }

    public async ValueTask DisposeAsync()
    {
        if (_monitor is not null)
        {
            if (!_monitor.Process.HasExited)
            {
                _monitor.Process.Kill(entireProcessTree: true);
            }

            _monitor.Dispose();
        }

        for (var i = _parts.Count - 1; i >= 0; i--)
        {
            await _parts[i].DisposeAsync();
        }

        _work?.Delete(recursive: true);
    }

    private async Task StartPartsAsync()
    {
        Receiver = await WebhookReceiver.StartAsync();
        _parts.Add(Receiver);
        var shippedAlertmanager = await File.ReadAllTextAsync(DeployFiles.Path("deploy", "alertmanager", "alertmanager.yml"));
        Alertmanager = await RealAlertmanager.StartAsync(AlertmanagerForTest.Rewrite(shippedAlertmanager, Receiver.BaseUrl, Factor));
        _parts.Add(Alertmanager);

        _work = Directory.CreateTempSubdirectory("lfm-e2e-");
        var rules = Path.Combine(_work.FullName, "alerts.yml");
        await File.WriteAllTextAsync(rules, RuleScaling.Shorten(await File.ReadAllTextAsync(DeployFiles.Path("deploy", "prometheus", "alerts.yml")), Factor));

        MonitorStarted = TimeProvider.System.GetUtcNow();
        _monitor = CliProcess.Start(
            ["run", "--simulate", Scenario, "--speed", SimulationSpeed.ToString(CultureInfo.InvariantCulture), "--urls", "http://127.0.0.1:0", "--Log:SummaryInterval=00:00:00"]);
        var port = 0;
        await Eventually.Until(
            () =>
            {
                if (_monitor.Process.HasExited)
                {
                    throw new InvalidOperationException($"logflushmonitor exited with {_monitor.Process.ExitCode}: {MonitorOutput}");
                }

                var m = ServingRegex().Match(MonitorOutput);
                port = m.Success ? int.Parse(m.Groups[1].Value, CultureInfo.InvariantCulture) : 0;
                return m.Success;
            },
            "logflushmonitor to say where it serves metrics",
            TimeSpan.FromSeconds(60));

        Prometheus = await RealPrometheus.StartAsync($"127.0.0.1:{port}", [rules], Alertmanager.Target);
        _parts.Add(Prometheus);
        await Prometheus.WaitForScrapeAsync(TimeSpan.FromSeconds(60));
    }

    private static string Tail(string text) => text.Length <= 2000 ? text : text[^2000..];

    [GeneratedRegex(@"Serving metrics at http://127\.0\.0\.1:(\d+)/metrics")]
    private static partial Regex ServingRegex();
}
