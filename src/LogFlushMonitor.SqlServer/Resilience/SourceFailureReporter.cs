using LogFlushMonitor.Core.Health;
using LogFlushMonitor.SqlServer.Polling;
using Microsoft.Extensions.Logging;

namespace LogFlushMonitor.SqlServer.Resilience;

/// <summary>
/// Reports the failures of one instance's source: each is counted by kind (sqlserver.monitor.errors) and marks the
/// component down; the log says it once per change (a server that refuses us for an hour is one warning, not 30), a
/// bug once with its stack trace, and the recovery once.
/// </summary>
public sealed class SourceFailureReporter(string instance, SourceHealth health, ILogger logger)
{
    private readonly Dictionary<string, (string Signature, int Failures)> _failing = new(StringComparer.Ordinal);
    private readonly Lock _gate = new();

    /// <summary>Reports a failed attempt of <paramref name="component"/>, retried after <paramref name="retryIn"/>.</summary>
    public void Failed(string component, Exception exception, SourceFailure failure, int attempt, TimeSpan retryIn)
    {
        ArgumentNullException.ThrowIfNull(exception);
        health.Failed(instance, component, failure.Kind);
        var signature = $"{failure.Kind}/{failure.Number}/{exception.GetType().FullName}";
        bool changed;
        lock (_gate)
        {
            var known = _failing.TryGetValue(component, out var last);
            changed = !known || last.Signature != signature;
            _failing[component] = (signature, (known ? last.Failures : 0) + 1);
        }

        if (!changed)
        {
            ResilienceLog.StillFailing(logger, instance, component, failure.Kind, attempt, retryIn);
        }
        else if (failure.Class == FailureClass.Unexpected)
        {
            ResilienceLog.Unexpected(logger, instance, component, exception.GetType().FullName ?? exception.GetType().Name, retryIn, exception);
        }
        else
        {
            var retry = failure.Class == FailureClass.Persistent ? "needs a fix; retried at the backoff cap" : "transient";
            ResilienceLog.Failed(logger, instance, component, failure.Kind, retry, SqlServerLog.Safe(exception), retryIn);
        }
    }

    /// <summary>Reports that <paramref name="component"/> works (again); logged only after failures.</summary>
    public void Recovered(string component)
    {
        int failures;
        lock (_gate)
        {
            if (!_failing.Remove(component, out var last))
            {
                return;
            }

            failures = last.Failures;
        }

        ResilienceLog.Recovered(logger, instance, component, failures);
    }
}

/// <summary>Log lines of <see cref="SourceFailureReporter"/> (event ids 530-539). None carries a connection string.</summary>
internal static partial class ResilienceLog
{
    [LoggerMessage(EventId = 530, Level = LogLevel.Warning, Message = "{Instance}: {Component} failed ({ErrorType}, {Retry}): {Problem}; next attempt in {Delay}")]
    public static partial void Failed(ILogger logger, string instance, string component, string errorType, string retry, string problem, TimeSpan delay);

    [LoggerMessage(EventId = 531, Level = LogLevel.Error, Message = "{Instance}: {Component} failed unexpectedly ({ExceptionType}): a bug, please report it with this stack trace; restarting in {Delay}")]
    public static partial void Unexpected(ILogger logger, string instance, string component, string exceptionType, TimeSpan delay, Exception exception);

    [LoggerMessage(EventId = 532, Level = LogLevel.Information, Message = "{Instance}: {Component} works again after {Failures} failed attempt(s)")]
    public static partial void Recovered(ILogger logger, string instance, string component, int failures);

    [LoggerMessage(EventId = 533, Level = LogLevel.Debug, Message = "{Instance}: {Component} still failing ({ErrorType}), attempt {Attempt}; next in {Delay}")]
    public static partial void StillFailing(ILogger logger, string instance, string component, string errorType, int attempt, TimeSpan delay);
}
