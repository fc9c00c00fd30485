using System.Net.Sockets;
using LogFlushMonitor.Hosting;
using Microsoft.Extensions.Logging;

namespace LogFlushMonitor.Tests.Hosting;

/// <summary>
/// The generic host's "Hosting failed to start" entry (event 11, with a stack trace) is left out of the log when run
/// reports the failure itself, and when the start was cancelled (a stop that came while the host started: CI once showed
/// its TaskCanceledException stack beside the one-line message for an address this host does not have).
/// </summary>
public class StartupFailureLogFilterTests
{
    private const string HostCategory = "Microsoft.Extensions.Hosting.Internal.Host";

    [Fact]
    public void A_cancelled_start_and_the_failures_run_reports_leave_no_stack_trace_and_other_failures_pass()
    {
        var inner = new Capture();
        using var filter = new StartupFailureLogFilter(inner);
        var host = filter.CreateLogger(HostCategory);

        host.Log(LogLevel.Error, new EventId(11, "HostedServiceStartupFaulted"), "Hosting failed to start", new TaskCanceledException(), (s, _) => s);
        host.Log(LogLevel.Error, new EventId(11, "HostedServiceStartupFaulted"), "Hosting failed to start", new SocketException(99), (s, _) => s);
        host.Log(LogLevel.Error, new EventId(11, "HostedServiceStartupFaulted"), "Hosting failed to start", new InvalidOperationException("a bug"), (s, _) => s);
        host.Log(LogLevel.Information, new EventId(1), "another entry", null, (s, _) => s);
        filter.CreateLogger("Other").Log(LogLevel.Error, new EventId(11), "not the host", new TaskCanceledException(), (s, _) => s);

        Assert.Equal(["Hosting failed to start: InvalidOperationException", "another entry: -", "not the host: TaskCanceledException"], inner.Lines);
    }

    private sealed class Capture : ILoggerProvider, ILogger
    {
        public List<string> Lines { get; } = [];

        public ILogger CreateLogger(string categoryName) => this;

        public IDisposable? BeginScope<TState>(TState state)
            where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => true;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter) =>
            Lines.Add($"{formatter(state, exception)}: {exception?.GetType().Name ?? "-"}");

        public void Dispose()
        {
        }
    }
}
