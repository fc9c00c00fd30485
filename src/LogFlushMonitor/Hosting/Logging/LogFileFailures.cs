using System.Globalization;
using Serilog.Core;
using Serilog.Events;

namespace LogFlushMonitor.Hosting;

/// <summary>
/// Hears the Log:File sink's write failures (a full disk, a removed directory, an I/O error): Serilog would otherwise
/// tell only its SelfLog, and the service would run on with an empty log file. Each failure is counted
/// (sqlserver.monitor.log.failures, events lost) and said on stderr, not through the logger whose file just failed:
/// the first at once, then at most once a minute with the count in between.
/// </summary>
/// <param name="file">The configured Log:File, for messages.</param>
/// <param name="stderr">Where failures are said (stderr by default).</param>
/// <param name="time">Clock for the once-a-minute limit.</param>
internal sealed class LogFileFailures(string? file, TextWriter? stderr = null, TimeProvider? time = null) : ILoggingFailureListener
{
    private static readonly TimeSpan SayEvery = TimeSpan.FromMinutes(1);
    private readonly Lock _gate = new();
    private readonly TimeProvider _time = time ?? TimeProvider.System;
    private long _lost;
    private long _lastSaid = long.MinValue;
    private long _unsaid;

    /// <summary>Log events the file sink could not write.</summary>
    public long Lost => Interlocked.Read(ref _lost);

    /// <inheritdoc />
    public void OnLoggingFailed(object sender, LoggingFailureKind kind, string message, IReadOnlyCollection<LogEvent>? events, Exception? exception)
    {
        // A temporary failure is retried by the sink and loses nothing (yet).
        if (kind == LoggingFailureKind.Temporary)
        {
            return;
        }

        var lost = Interlocked.Add(ref _lost, Math.Max(1, events?.Count ?? 1));
        long unsaid;
        lock (_gate)
        {
            var now = _time.GetTimestamp();
            if (_lastSaid != long.MinValue && _time.GetElapsedTime(_lastSaid, now) < SayEvery)
            {
                _unsaid++;
                return;
            }

            _lastSaid = now;
            unsaid = _unsaid;
            _unsaid = 0;
        }

        var why = exception is null ? message : $"{exception.GetType().Name}: {exception.Message.TrimEnd('.')}";
        (stderr ?? Console.Error).WriteLine(string.Create(
            CultureInfo.InvariantCulture,
            $"[{DateTime.Now:HH:mm:ss} ERR] Log:File {LogEscaping.Escape(file ?? "")} cannot be written ({LogEscaping.Escape(why)}): {lost} log event(s) lost so far, {unsaid} failure(s) not reported since the previous message (counted in sqlserver.monitor.log.failures). Free space there, or change Log:File."));
    }
}
