using Polly;
using Polly.Retry;

namespace LogFlushMonitor.SqlServer.Resilience;

/// <summary>
/// The one retry shape of every SQL Server source (DMV polls, live stream, histogram): retry for ever on the injected
/// clock, transient failures and bugs after <see cref="ReconnectBackoff.Delay(int)"/>, failures that need a person
/// (a login, a permission, a certificate) at the backoff's cap. Cancellation is never retried: it ends the source at
/// once, whichever delay is running.
/// </summary>
public static class SourceRetryPipeline
{
    /// <summary>Builds the pipeline.</summary>
    /// <param name="backoff">Delays and their cap.</param>
    /// <param name="time">The clock the delays run on.</param>
    /// <param name="reporter">Counts and logs each failure before its delay.</param>
    /// <param name="component">The health component a failure belongs to (a source may fail in one of several).</param>
    /// <param name="classify">Classifies a failure; <see cref="FailureClassifier.Classify(Exception, bool)"/> when null.</param>
    /// <param name="retrying">Told each delay before it starts (for the sources' counters).</param>
    public static ResiliencePipeline Build(ReconnectBackoff backoff, TimeProvider time, SourceFailureReporter reporter, Func<string> component,
        Func<Exception, SourceFailure>? classify = null, Action<TimeSpan>? retrying = null)
    {
        ArgumentNullException.ThrowIfNull(backoff);
        ArgumentNullException.ThrowIfNull(reporter);
        ArgumentNullException.ThrowIfNull(component);
        classify ??= e => FailureClassifier.Classify(e);
        return new ResiliencePipelineBuilder { TimeProvider = time }
            .AddRetry(new RetryStrategyOptions
            {
                MaxRetryAttempts = int.MaxValue,
                ShouldHandle = args => ValueTask.FromResult(args.Outcome.Exception is { } e && !args.Context.CancellationToken.IsCancellationRequested
                    && e is not OperationCanceledException),
                DelayGenerator = args => ValueTask.FromResult<TimeSpan?>(backoff.Delay(args.AttemptNumber, classify(args.Outcome.Exception!).Class)),
                OnRetry = args =>
                {
                    var e = args.Outcome.Exception!;
                    reporter.Failed(component(), e, classify(e), args.AttemptNumber + 1, args.RetryDelay);
                    retrying?.Invoke(args.RetryDelay);
                    return ValueTask.CompletedTask;
                },
            })
            .Build();
    }
}
