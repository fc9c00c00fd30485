using System.Collections.Concurrent;
using Microsoft.Extensions.Logging;

namespace LogFlushMonitor.SqlServer.Tests.Scripted;

/// <summary>An ILogger that keeps every formatted line (with its exception text), for asserting what reaches a log.</summary>
public sealed class CapturingLogger(TimeProvider? time = null) : ILogger
{
    private readonly ConcurrentQueue<Line> _lines = new();

    /// <summary>Every line so far.</summary>
    public IReadOnlyList<Line> Lines => [.. _lines];

    /// <summary>Every line's message and exception text joined, to search for secrets.</summary>
    public string Everything => string.Join("\n", _lines.Select(l => l.Message + " " + l.Exception));

    public IDisposable? BeginScope<TState>(TState state)
        where TState : notnull => null;

    public bool IsEnabled(LogLevel logLevel) => true;

    public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter) =>
        _lines.Enqueue(new Line((time ?? TimeProvider.System).GetUtcNow(), logLevel, eventId.Id, formatter(state, exception), exception?.ToString()));

    /// <summary>One log line.</summary>
    public sealed record Line(DateTimeOffset At, LogLevel Level, int EventId, string Message, string? Exception);
}
