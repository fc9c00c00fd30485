using Polly;
using Polly.Retry;

namespace LogFlushMonitor.SqlServer.Streaming;

/// <summary>
/// The reconnect policy of the event sources (live stream and histogram): retry anything but cancellation, for
/// ever, with capped and jittered exponential backoff on the injected clock.
/// </summary>
internal static class ReconnectPipeline
{
    public static ResiliencePipeline Build(EventSourceSettings settings, TimeProvider time, Action<TimeSpan, int> onRetry) =>
        new ResiliencePipelineBuilder { TimeProvider = time }
            .AddRetry(new RetryStrategyOptions
            {
                ShouldHandle = new PredicateBuilder().Handle<Exception>(e => e is not OperationCanceledException),
                MaxRetryAttempts = int.MaxValue,
                BackoffType = DelayBackoffType.Exponential,
                UseJitter = true,
                Delay = settings.ReconnectDelay,
                MaxDelay = settings.MaxReconnectDelay,
                OnRetry = args =>
                {
                    onRetry(args.RetryDelay, args.AttemptNumber + 1);
                    return default;
                },
            })
            .Build();
}
