using LogFlushMonitor.Core.Health;
using LogFlushMonitor.SqlServer.Connections;
using LogFlushMonitor.SqlServer.Resilience;
using LogFlushMonitor.SqlServer.Tests.Scripted;
using Microsoft.Extensions.Logging;
using Xunit.Abstractions;

namespace LogFlushMonitor.SqlServer.Tests.Resilience;

/// <summary>The one retry policy of an instance (Polly's exponential backoff with jitter and cap), in virtual time.</summary>
public sealed class InstanceRetryTests
{
    private readonly ITestOutputHelper _output;
    private readonly ManualTimeProvider _time = new();
    private readonly SourceHealth _health;
    private readonly CapturingLogger _logger;

    public InstanceRetryTests(ITestOutputHelper output)
    {
        _output = output;
        _health = new SourceHealth(_time);
        _logger = new CapturingLogger(_time);
    }

    private InstanceRetry Retry(Func<double>? random = null) =>
        new(TimeSpan.FromSeconds(1), TimeSpan.FromSeconds(30), _time, new SourceFailureReporter("prod1", _health, _logger), random);

    private async Task<List<TimeSpan>> GapsAsync(InstanceRetry retry, Func<ValueTask<bool>> handler, int attempts)
    {
        var at = new List<DateTimeOffset>();
        using var stop = new CancellationTokenSource();
        var run = retry.ExecuteAsync((_, _) =>
        {
            at.Add(_time.GetUtcNow());
            return at.Count < attempts ? handler() : ValueTask.FromResult(true);
        }, SourceComponents.Stream, stop.Token).AsTask();
        Assert.True(await _time.AdvanceUntilAsync(() => run.IsCompleted, TimeSpan.FromMilliseconds(250), TimeSpan.FromMinutes(10)));
        await run;
        var gaps = at.Zip(at.Skip(1), (a, b) => b - a).ToList();
        _output.WriteLine(string.Join(", ", gaps.Select(g => g.TotalSeconds.ToString("0.##", System.Globalization.CultureInfo.InvariantCulture))));
        return gaps;
    }

    [Fact]
    public async Task A_handler_that_throws_an_unexpected_exception_is_logged_once_with_its_stack_counted_and_restarted_at_the_backoffs_pace()
    {
        var gaps = await GapsAsync(Retry(() => 0.5), BuggyHandler, 8);

        // Polly's exponential backoff: growing from about the base delay, never over the 30 s cap.
        Assert.InRange(gaps[0].TotalSeconds, 0.25, 2.5);
        Assert.All(gaps, g => Assert.InRange(g, TimeSpan.FromMilliseconds(100), TimeSpan.FromSeconds(30)));
        Assert.True(gaps[5] > gaps[0] * 4, string.Join(", ", gaps));
        var error = Assert.Single(_logger.Lines, l => l.Level == LogLevel.Error);
        Assert.Equal(531, error.EventId);
        Assert.Contains("System.ArgumentOutOfRangeException", error.Message, StringComparison.Ordinal);
        Assert.Contains(nameof(BuggyHandler), error.Exception, StringComparison.Ordinal); // the stack trace is there
        Assert.Equal(6, _logger.Lines.Count(l => l.EventId == 533)); // the repeats only at Debug
        Assert.Equal(7, _health.Errors("prod1", "stream", SqlErrorKinds.Unexpected));
    }

    [Fact]
    public async Task Delays_are_jittered_so_a_fleet_does_not_reconnect_in_step()
    {
        var low = await GapsAsync(Retry(() => 0.1), () => throw new TimeoutException(), 6);
        var high = await GapsAsync(Retry(() => 0.9), () => throw new TimeoutException(), 6);

        Assert.NotEqual(low, high);
    }

    [Fact]
    public async Task A_failure_only_a_person_can_fix_waits_between_half_and_all_of_the_cap_from_the_first_retry()
    {
        // SqlException has no public constructor: an unsupported format version needs a person just as a login does.
        var gaps = await GapsAsync(Retry(() => 0.5), () => throw new LogFlushMonitor.XEvent.XelUnsupportedVersionException("buffer", 11, null, 0), 4);

        Assert.All(gaps, g => Assert.Equal(TimeSpan.FromSeconds(22.5), g)); // 15 s + half of the other 15 s: no 1-2-4 s ramp
        Assert.Single(_logger.Lines, l => l.EventId == 530);
    }

    [Fact]
    public async Task The_component_an_attempt_names_is_the_one_a_failure_is_counted_under()
    {
        var retry = Retry(() => 0.5);
        var tries = 0;
        using var stop = new CancellationTokenSource();
        var run = retry.ExecuteAsync((attempt, _) =>
        {
            attempt.Component = ++tries == 1 ? SourceComponents.Session : SourceComponents.Stream;
            return tries < 3 ? throw new TimeoutException() : ValueTask.FromResult(true);
        }, SourceComponents.Session, stop.Token).AsTask();
        Assert.True(await _time.AdvanceUntilAsync(() => run.IsCompleted, TimeSpan.FromMilliseconds(250), TimeSpan.FromMinutes(2)));

        Assert.Equal(1, _health.Errors("prod1", "session", SqlErrorKinds.Timeout));
        Assert.Equal(1, _health.Errors("prod1", "stream", SqlErrorKinds.Timeout));
    }

    [Fact]
    public async Task Cancellation_ends_a_backoff_delay_at_once()
    {
        var retry = Retry();
        using var stop = new CancellationTokenSource();
        var run = retry.ExecuteAsync<bool>((_, _) => throw new TimeoutException(), SourceComponents.Poller, stop.Token).AsTask();
        await Eventually.Until(() => _time.PendingTimers > 0, "the first backoff delay");

        await stop.CancelAsync();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => run.WaitAsync(TimeSpan.FromSeconds(10)));
        Assert.Equal(1, _health.Errors("prod1", "poller", SqlErrorKinds.Timeout));
    }

    private static ValueTask<bool> BuggyHandler() => throw new ArgumentOutOfRangeException("databaseId", "a bug");
}
