using Microsoft.Extensions.Options;

namespace LogFlushMonitor.Hosting;

/// <summary>
/// Keeps the generic host's "Hosting failed to start" entry (with its stack trace) out of the log when the failure
/// is one <c>run</c> reports itself as a single line and exit code 2: invalid configuration, an address in use and an address this host does not have;
/// or a cancellation of the start (a stop that came while the host was starting, which <c>run</c> reports as a stop).
/// Every other start failure, and everything else, passes through unchanged.
/// </summary>
internal sealed class StartupFailureLogFilter(ILoggerProvider inner) : ILoggerProvider
{
    private const string HostCategory = "Microsoft.Extensions.Hosting.Internal.Host";

    /// <summary>Microsoft.Extensions.Hosting's LoggerEventIds.HostedServiceStartupFaulted.</summary>
    private const int HostedServiceStartupFaulted = 11;

    /// <summary>Start failures that <c>run</c> prints as one message naming the setting to change (exit 2).</summary>
    public static bool IsReportedByRun(Exception exception) =>
        exception is OptionsValidationException or ConfigurationException or IOException or System.Net.Sockets.SocketException;

    public ILogger CreateLogger(string categoryName)
    {
        var logger = inner.CreateLogger(categoryName);
        return categoryName == HostCategory ? new Filtered(logger) : logger;
    }

    public void Dispose() => inner.Dispose();

    private sealed class Filtered(ILogger inner) : ILogger
    {
        public IDisposable? BeginScope<TState>(TState state)
            where TState : notnull => inner.BeginScope(state);

        public bool IsEnabled(LogLevel logLevel) => inner.IsEnabled(logLevel);

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
        {
            // A cancellation at start is the host told to stop while it was starting (the HTTP server, which starts
            // last, gives up binding): run treats it as a stop, not a crash (RunCommand.RunHostAsync), and what stopped it
            // logged its own reason. Under load its stack trace reached the output of an address this host does not have.
            if (eventId.Id == HostedServiceStartupFaulted && exception is not null && (IsReportedByRun(exception) || exception is OperationCanceledException))
            {
                return;
            }

            inner.Log(logLevel, eventId, state, exception, formatter);
        }
    }
}
