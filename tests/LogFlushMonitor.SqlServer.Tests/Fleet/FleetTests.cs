using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.SqlServer.Fleet;
using LogFlushMonitor.SqlServer.Polling;
using LogFlushMonitor.SqlServer.Resilience;
using LogFlushMonitor.SqlServer.Tests.Scripted;

namespace LogFlushMonitor.SqlServer.Tests.Fleet;

public class FleetTests
{
    private const string Secret = "Zebra-S3cret-9931!";

    [Fact]
    public async Task Login_failures_back_off_exponentially_in_virtual_time_and_never_log_the_password()
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
        var fleet = new SqlServerFleet(options, new RecordingSink(), health, logger, time, n => env.GetValueOrDefault(n))
        {
            Backoff = new ReconnectBackoff(TimeSpan.FromSeconds(1), TimeSpan.FromSeconds(30), () => 0.5),
        };
        using var stop = new CancellationTokenSource();
        var run = fleet.RunAsync(stop.Token);

        var reached = await time.AdvanceUntilAsync(() => server.Server.Logins.Count >= 8, TimeSpan.FromMilliseconds(500), TimeSpan.FromMinutes(5));
        await stop.CancelAsync();
        time.Advance(TimeSpan.FromMinutes(5));
        await run.WaitAsync(TimeSpan.FromSeconds(10));

        Assert.True(reached, $"only {server.Server.Logins.Count} login attempts");
        var failures = logger.Lines.Where(l => l.EventId == 511).ToList();
        for (var k = 0; k + 1 < Math.Min(failures.Count, 7); k++)
        {
            var gap = failures[k + 1].At - failures[k].At;
            var expected = fleet.Backoff.Delay(k); // 0.75 of min(30 s, 2^k s)
            Assert.Equal(expected, gap); // the clock never moves during the login itself: the gap is the backoff, exactly
        }

        Assert.Equal(TimeSpan.FromSeconds(22.5), fleet.Backoff.Delay(6)); // capped
        Assert.All(failures, l => Assert.Contains("login_failed", l.Message, StringComparison.Ordinal));
        Assert.True(health.Errors("prod-1", InstancePoller.Component, SqlErrorKinds.LoginFailed) >= 7);
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
        var fleet = new SqlServerFleet(options, sink, health, new CapturingLogger(), time);
        using var stop = new CancellationTokenSource();
        var run = fleet.RunAsync(stop.Token);

        // Five polls of the healthy instance, 15 virtual seconds apart, while the hung one is stuck in its first query.
        int HealthyPolls() => sink.Of<PollCompleted>().Count(p => p.Instance == "healthy" && p.Kind == PollKind.Counters);
        Assert.True(await time.AdvanceUntilAsync(() => HealthyPolls() >= 5, TimeSpan.FromSeconds(15), TimeSpan.FromMinutes(5)), $"healthy polled {HealthyPolls()} times");
        Assert.DoesNotContain(sink.Of<PollCompleted>(), p => p.Instance == "hung");

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
        var fleet = new SqlServerFleet(options, sink, health, logger, environment: _ => null);
        using var stop = new CancellationTokenSource();
        var run = fleet.RunAsync(stop.Token);
        await server.Server.WaitForRequestAsync(r => r.Text.Contains("dropped_event_count", StringComparison.Ordinal), TimeSpan.FromSeconds(10));
        await stop.CancelAsync();
        await run.WaitAsync(TimeSpan.FromSeconds(10));

        Assert.Contains(logger.Lines, l => l.EventId == 512 && l.Message.Contains("LFM_NOT_SET_ANYWHERE", StringComparison.Ordinal));
        Assert.Equal(1, health.Errors("nosecret", InstancePoller.Component, SqlErrorKinds.Configuration));
        Assert.Contains(sink.Of<CounterSample>(), c => c.Instance == "ok");
    }
}
