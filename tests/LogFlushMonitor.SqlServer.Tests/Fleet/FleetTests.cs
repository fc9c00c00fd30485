using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Signals;
using LogFlushMonitor.SqlServer.Connections;
using LogFlushMonitor.SqlServer.Fleet;
using LogFlushMonitor.SqlServer.Polling;
using LogFlushMonitor.SqlServer.Tests.Scripted;
using Microsoft.Extensions.Logging;

namespace LogFlushMonitor.SqlServer.Tests.Fleet;

public class FleetTests
{
    private const string Secret = "Zebra-S3cret-9931!";

    /// <summary>These tests run only the polls: no event reaches this sink.</summary>
    private static readonly RecordingSink NoEvents = new();

    [Fact]
    public async Task A_login_failure_is_retried_only_at_the_backoff_cap_logged_once_and_never_logs_the_password()
    {
        var time = new ManualTimeProvider();
        await using var server = new ScriptedSqlServer { RejectLogins = true };
        var logger = new CapturingLogger(time);
        var health = new SourceHealth(time);
        var options = new SqlServerSourceOptions
        {
            MaxReconnectDelay = TimeSpan.FromSeconds(30),
            Instances = [new SqlServerInstanceOptions { Name = "prod-1", ConnectionStringEnvironmentVariable = "LFM_PROD1" }],
        };
        var env = new Dictionary<string, string?> { ["LFM_PROD1"] = server.ConnectionString(password: Secret) };
        var fleet = new SqlServerFleet(options, NoEvents, new RecordingSink(), health, logger, time, n => env.GetValueOrDefault(n))
        {
            Random = () => 0.5,
        };
        using var stop = new CancellationTokenSource();
        var run = fleet.RunPollsAsync(stop.Token);

        var logins = new List<DateTimeOffset>();
        var seen = 0;
        var reached = await time.AdvanceUntilAsync(
            () =>
            {
                for (; seen < server.Server.Logins.Count; seen++)
                {
                    logins.Add(time.GetUtcNow());
                }

                return logins.Count >= 6;
            },
            TimeSpan.FromMilliseconds(500), TimeSpan.FromMinutes(5));
        await stop.CancelAsync();
        await run.WaitAsync(TimeSpan.FromSeconds(10));

        Assert.True(reached, $"only {server.Server.Logins.Count} login attempts");
        // Every retry waits 0.75 of the 30 s cap from the very first: no tight loop, no 1-2-4 s ramp against a wrong password.
        Assert.All(logins.Zip(logins.Skip(1), (a, b) => b - a), gap => Assert.Equal(TimeSpan.FromSeconds(22.5), gap));
        var warning = Assert.Single(logger.Lines, l => l.Level == LogLevel.Warning);
        Assert.Equal(530, warning.EventId);
        Assert.Contains("login_failed, needs a fix", warning.Message, StringComparison.Ordinal);
        Assert.True(health.Errors("prod-1", InstancePoller.Component, SqlErrorKinds.LoginFailed) >= 5);
        Assert.False(health.IsUp("prod-1", InstancePoller.Component));
        Assert.Contains(server.Server.Logins, l => l.Password == Secret); // it was really sent...
        Assert.DoesNotContain(Secret, logger.Everything, StringComparison.Ordinal); // ...and never logged
        Assert.DoesNotContain("Password", logger.Everything, StringComparison.OrdinalIgnoreCase);
    }

    [Fact]
    public async Task A_hung_instance_never_stalls_the_others()
    {
        await using var hung = new ScriptedSqlServer();
        await using var healthy = new ScriptedSqlServer();
        hung.Hang(TimeSpan.FromHours(1));
        var time = new ManualTimeProvider();
        var sink = new RecordingSink();
        var health = new SourceHealth(time);
        var options = new SqlServerSourceOptions
        {
            PollInterval = TimeSpan.FromSeconds(15),
            CommandTimeout = TimeSpan.FromSeconds(1),
            Instances =
            [
                new SqlServerInstanceOptions { Name = "hung", ConnectionString = hung.ConnectionString() },
                new SqlServerInstanceOptions { Name = "healthy", ConnectionString = healthy.ConnectionString() },
            ],
        };
        var fleet = new SqlServerFleet(options, sink, sink, health, new CapturingLogger(), time);
        using var stop = new CancellationTokenSource();
        var run = fleet.RunPollsAsync(stop.Token);

        // Five polls of the healthy instance, 15 virtual seconds apart, while the hung one is stuck in its first query.
        int HealthyPolls() => sink.Of<PollEnded>().Count(p => p.Instance == "healthy" && p.Signal == SignalRegistry.Counters);
        Assert.True(await time.AdvanceUntilAsync(() => HealthyPolls() >= 5, TimeSpan.FromSeconds(15), TimeSpan.FromMinutes(5)), $"healthy polled {HealthyPolls()} times");
        Assert.DoesNotContain(sink.Of<PollEnded>(), p => p.Instance == "hung");

        // The hung query runs into its command timeout (SqlClient's own clock) and is counted as such.
        await Eventually.Until(() => health.Errors("hung", InstancePoller.Component, SqlErrorKinds.Timeout) >= 1, "the hung instance's timeout");
        await stop.CancelAsync();
        time.Advance(TimeSpan.FromMinutes(5));
        await run.WaitAsync(TimeSpan.FromSeconds(30));

        Assert.True(health.IsUp("healthy", InstancePoller.Component));
        Assert.False(health.IsUp("hung", InstancePoller.Component));
    }

    [Fact]
    public async Task An_instance_with_a_missing_secret_is_reported_and_the_others_run()
    {
        await using var server = new ScriptedSqlServer();
        var sink = new RecordingSink();
        var logger = new CapturingLogger();
        var health = new SourceHealth();
        var options = new SqlServerSourceOptions
        {
            PollInterval = TimeSpan.FromMinutes(1),
            Instances =
            [
                new SqlServerInstanceOptions { Name = "nosecret", ConnectionStringEnvironmentVariable = "LFM_NOT_SET_ANYWHERE" },
                new SqlServerInstanceOptions { Name = "ok", ConnectionString = server.ConnectionString() },
            ],
        };
        var fleet = new SqlServerFleet(options, sink, sink, health, logger, environment: _ => null);
        using var stop = new CancellationTokenSource();
        var run = fleet.RunPollsAsync(stop.Token);
        await server.Server.WaitForRequestAsync(r => r.Text.Contains("dropped_event_count", StringComparison.Ordinal), TimeSpan.FromSeconds(10));
        await stop.CancelAsync();
        await run.WaitAsync(TimeSpan.FromSeconds(10));

        Assert.Contains(logger.Lines, l => l.EventId == 512 && l.Message.Contains("LFM_NOT_SET_ANYWHERE", StringComparison.Ordinal));
        Assert.Equal(1, health.Errors("nosecret", InstancePoller.Component, SqlErrorKinds.Configuration));
        Assert.Contains(sink.Counters, c => c.Instance == "ok");
    }
}
