using LogFlushMonitor.Core.Health;
using LogFlushMonitor.SqlServer.Connections;
using LogFlushMonitor.SqlServer.Resilience;
using LogFlushMonitor.SqlServer.Tests.Scripted;
using Microsoft.Extensions.Logging;

namespace LogFlushMonitor.SqlServer.Tests.Resilience;

/// <summary>The one retry shape of the SQL Server sources, in virtual time.</summary>
public sealed class SourceRetryPipelineTests
{
    private readonly ManualTimeProvider _time = new();
    private readonly SourceHealth _health;
    private readonly CapturingLogger _logger;

    public SourceRetryPipelineTests()
    {
        _health = new SourceHealth(_time);
        _logger = new CapturingLogger(_time);
    }

    /// <summary>Ceilings with no jitter (the random source says 1): 1, 2, 4, 8, ... s up to 30 s.</summary>
    private static ReconnectBackoff Backoff() => new(TimeSpan.FromSeconds(1), TimeSpan.FromSeconds(30), () => 1);

    [Fact]
    public async Task A_handler_that_throws_an_unexpected_exception_is_logged_once_with_its_stack_counted_and_restarted_at_the_backoffs_pace()
    {
        var pipeline = SourceRetryPipeline.Build(Backoff(), _time, new SourceFailureReporter("prod1", _health, _logger), () => "stream");
        var attempts = new List<DateTimeOffset>();
        using var stop = new CancellationTokenSource();
        var run = pipeline.ExecuteAsync(_ =>
        {
            attempts.Add(_time.GetUtcNow());
            return attempts.Count < 6 ? BuggyHandler() : ValueTask.CompletedTask;
        }, stop.Token).AsTask();

        Assert.True(await _time.AdvanceUntilAsync(() => run.IsCompleted, TimeSpan.FromMilliseconds(250), TimeSpan.FromMinutes(2)));
        await run;

        var gaps = attempts.Zip(attempts.Skip(1), (a, b) => b - a).ToList();
        Assert.Equal([1, 2, 4, 8, 16], gaps.Select(g => g.TotalSeconds));
        var error = Assert.Single(_logger.Lines, l => l.Level == LogLevel.Error);
        Assert.Equal(531, error.EventId);
        Assert.Contains("System.ArgumentOutOfRangeException", error.Message, StringComparison.Ordinal);
        Assert.Contains(nameof(BuggyHandler), error.Exception, StringComparison.Ordinal); // the stack trace is there
        Assert.Equal(4, _logger.Lines.Count(l => l.EventId == 533)); // the repeats only at Debug
        Assert.Equal(5, _health.Errors("prod1", "stream", SqlErrorKinds.Unexpected));
    }

    [Fact]
    public async Task Cancellation_ends_a_backoff_delay_at_once()
    {
        var pipeline = SourceRetryPipeline.Build(Backoff(), _time, new SourceFailureReporter("prod1", _health, _logger), () => "poller");
        using var stop = new CancellationTokenSource();
        var run = pipeline.ExecuteAsync(_ => throw new TimeoutException(), stop.Token).AsTask();
        await Eventually.Until(() => _time.PendingTimers > 0, "the first backoff delay");

        await stop.CancelAsync();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => run.WaitAsync(TimeSpan.FromSeconds(10)));
        Assert.Equal(1, _health.Errors("prod1", "poller", SqlErrorKinds.Timeout));
    }

    private static ValueTask BuggyHandler() => throw new ArgumentOutOfRangeException("databaseId", "a bug");
}
