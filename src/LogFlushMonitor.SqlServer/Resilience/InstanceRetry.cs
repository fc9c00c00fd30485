using Polly;
using Polly.Retry;

namespace LogFlushMonitor.SqlServer.Resilience;

/// <summary>
/// The one retry policy of a watched instance, shared by its poll loop and its event loop: Polly's own exponential
/// backoff with jitter from <see cref="SqlServerSourceOptions.ReconnectDelay"/>, capped at
/// <see cref="SqlServerSourceOptions.MaxReconnectDelay"/>, for ever on the instance's clock. A failure only a person can
/// fix (a login, a permission, a certificate) waits the cap from the first retry, jittered between half and all of it:
/// never a tight loop against a wrong password. Cancellation is never retried. Each failure is counted and logged by
/// the instance's <see cref="SourceFailureReporter"/> under the component the attempt named.
/// </summary>
public sealed class InstanceRetry
{
    private static readonly ResiliencePropertyKey<string> ComponentKey = new("logflushmonitor.component");
    private static readonly ResiliencePropertyKey<bool> LostKey = new("logflushmonitor.connection_lost");
    private static readonly ResiliencePropertyKey<Action<TimeSpan>?> RetryingKey = new("logflushmonitor.retrying");
    private readonly ResiliencePipeline _pipeline;
    private readonly Func<double> _random;

    /// <summary>Builds the policy.</summary>
    /// <param name="baseDelay">The first delay (the median of the first retry's).</param>
    /// <param name="maxDelay">The cap.</param>
    /// <param name="time">The clock the delays run on.</param>
    /// <param name="reporter">Counts and logs each failure before its delay.</param>
    /// <param name="random">A random source in [0, 1) (tests give a fixed one).</param>
    public InstanceRetry(TimeSpan baseDelay, TimeSpan maxDelay, TimeProvider time, SourceFailureReporter reporter, Func<double>? random = null)
    {
        ArgumentNullException.ThrowIfNull(reporter);
        _random = random ?? Random.Shared.NextDouble;
        BaseDelay = baseDelay;
        MaxDelay = maxDelay;
        _pipeline = new ResiliencePipelineBuilder { TimeProvider = time }
            .AddRetry(new RetryStrategyOptions
            {
                MaxRetryAttempts = int.MaxValue,
                BackoffType = DelayBackoffType.Exponential,
                UseJitter = true,
                Delay = baseDelay,
                MaxDelay = maxDelay,
                Randomizer = _random,
                ShouldHandle = args => ValueTask.FromResult(args.Outcome.Exception is { } e && !args.Context.CancellationToken.IsCancellationRequested
                    && e is not OperationCanceledException),
                // Polly's backoff for what may go away by itself; the cap at once for what needs a person.
                DelayGenerator = args => ValueTask.FromResult<TimeSpan?>(
                    Classify(args.Context, args.Outcome.Exception!).Class == FailureClass.Persistent ? AtTheCap() : null),
                OnRetry = args =>
                {
                    var e = args.Outcome.Exception!;
                    reporter.Failed(args.Context.Properties.GetValue(ComponentKey, "source"), e, Classify(args.Context, e), args.AttemptNumber + 1, args.RetryDelay);
                    args.Context.Properties.GetValue(RetryingKey, null)?.Invoke(args.RetryDelay);
                    return ValueTask.CompletedTask;
                },
            })
            .Build();
    }

    /// <summary>The first delay.</summary>
    public TimeSpan BaseDelay { get; }

    /// <summary>The cap.</summary>
    public TimeSpan MaxDelay { get; }

    /// <summary>
    /// Runs <paramref name="attempt"/> until it returns, retrying every failure after its delay; a failure is reported
    /// under the component the attempt last named with <see cref="Attempt.Component"/>; <paramref name="retrying"/> is told
    /// each delay before it starts (a source's counters of reconnections).
    /// </summary>
    public async ValueTask<T> ExecuteAsync<T>(Func<Attempt, CancellationToken, ValueTask<T>> attempt, string component, CancellationToken cancellationToken,
        Action<TimeSpan>? retrying = null)
    {
        ArgumentNullException.ThrowIfNull(attempt);
        var context = ResilienceContextPool.Shared.Get(cancellationToken);
        context.Properties.Set(RetryingKey, retrying);
        try
        {
            return await _pipeline.ExecuteAsync(
                static (ctx, state) =>
                {
                    ctx.Properties.Set(ComponentKey, state.component);
                    ctx.Properties.Set(LostKey, false);
                    return state.attempt(new Attempt(ctx), ctx.CancellationToken);
                },
                context, (attempt, component)).ConfigureAwait(false);
        }
        finally
        {
            ResilienceContextPool.Shared.Return(context);
        }
    }

    /// <summary>A delay for a failure that needs a person: between half and all of the cap.</summary>
    private TimeSpan AtTheCap() => TimeSpan.FromTicks(MaxDelay.Ticks / 2 + (long)(MaxDelay.Ticks / 2 * Math.Clamp(_random(), 0, 1)));

    private static SourceFailure Classify(ResilienceContext context, Exception e) => FailureClassifier.Classify(e, context.Properties.GetValue(LostKey, false));

    /// <summary>What an attempt tells the policy about itself while it runs.</summary>
    public readonly struct Attempt
    {
        private readonly ResilienceContext _context;

        internal Attempt(ResilienceContext context) => _context = context;

        /// <summary>The part of the source a failure from here on belongs to (session, stream, histogram, poller).</summary>
        public string Component
        {
            set => _context.Properties.Set(ComponentKey, value);
        }

        /// <summary>Whether the attempt saw its connection close: an exception of any type then means a broken connection.</summary>
        public bool ConnectionLost
        {
            set => _context.Properties.Set(LostKey, value);
        }
    }
}
