using System.Collections.Concurrent;
using LogFlushMonitor.Core.Health;
using LogFlushMonitor.SqlServer;
using Microsoft.Extensions.Options;

namespace LogFlushMonitor.Sources;

/// <summary>
/// One bounded shutdown for every source. The host stops its services one after the other, so a source stuck in a
/// read that does not return (a replay file that is a FIFO with no writer, a stream stalled mid-packet) held the stop
/// of the ones behind it and outlasted the host's own timeout (16 s, exit 1, nothing logged). Here every source is
/// cancelled at once when the shutdown begins, all of them together get Sources:SqlServer:ShutdownTimeout to end,
/// and one that has not ended by then is named in the log and abandoned: the rest of the shutdown (pipeline drain,
/// last export) goes on and the exit code stays 0.
/// </summary>
internal sealed partial class SourceShutdown : ISourceShutdown
{
    private readonly TimeProvider _time;
    private readonly ILogger<SourceShutdown> _logger;
    private readonly ConcurrentQueue<string> _notStopped = new();
    private long _began;

    public SourceShutdown(IHostApplicationLifetime lifetime, IOptions<SqlServerSourceOptions> options, TimeProvider time, ILogger<SourceShutdown> logger)
    {
        _time = time;
        _logger = logger;
        Timeout = options.Value.ShutdownTimeout;
        Stopping = lifetime.ApplicationStopping;
        Stopping.Register(() => Interlocked.CompareExchange(ref _began, _time.GetTimestamp(), 0));
    }

    /// <summary>Cancelled when the shutdown begins, before any service is asked to stop.</summary>
    public CancellationToken Stopping { get; }

    /// <summary>How long all sources together have to end once the shutdown began.</summary>
    public TimeSpan Timeout { get; }

    /// <summary>The sources that had not ended in time, in order (tests read it; the log names each).</summary>
    public IReadOnlyCollection<string> NotStopped => _notStopped;

    /// <summary>What is left of <see cref="Timeout"/> (all of it before the shutdown began).</summary>
    public TimeSpan Remaining
    {
        get
        {
            var began = Interlocked.Read(ref _began);
            if (began == 0)
            {
                return Timeout;
            }

            var left = Timeout - _time.GetElapsedTime(began);
            return left > TimeSpan.Zero ? left : TimeSpan.Zero;
        }
    }

    /// <summary>Records and logs that <paramref name="source"/> had not ended within <see cref="Timeout"/>.</summary>
    public void DidNotStop(string source)
    {
        _notStopped.Enqueue(source);
        LogDidNotStop(_logger, source, Timeout);
    }

    [LoggerMessage(EventId = 320, Level = LogLevel.Warning, Message = "Source {Source} did not stop within {Timeout} of the shutdown (Sources:SqlServer:ShutdownTimeout): it is abandoned, probably in a read that does not return (a FIFO without a writer, a stalled connection); the shutdown goes on")]
    private static partial void LogDidNotStop(ILogger logger, string source, TimeSpan timeout);
}

/// <summary>
/// A source: cancelled when the shutdown begins (with every other source, <see cref="SourceShutdown"/>), and its stop
/// waits no longer than what is left of the sources' shutdown timeout.
/// </summary>
internal abstract class SourceService(string name, SourceShutdown shutdown) : BackgroundService
{
    /// <summary>The source's name in logs and /readyz.</summary>
    protected string Name { get; } = name;

    // The source's own task: BackgroundService.ExecuteTask reports cancelled as soon as the stop is asked on .NET 10,
    // whether or not the source has ended.
    private Task? _running;

    protected sealed override async Task ExecuteAsync(CancellationToken stoppingToken)
    {
        using var stopping = CancellationTokenSource.CreateLinkedTokenSource(stoppingToken, shutdown.Stopping);
        _running = RunSourceAsync(stopping.Token);
        await _running.ConfigureAwait(false);
    }

    /// <summary>Runs the source until <paramref name="stoppingToken"/> is cancelled (or it has nothing more to do).</summary>
    protected abstract Task RunSourceAsync(CancellationToken stoppingToken);

    public override async Task StopAsync(CancellationToken cancellationToken)
    {
        using var bounded = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        bounded.CancelAfter(shutdown.Remaining);
        try
        {
            await base.StopAsync(bounded.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (bounded.IsCancellationRequested)
        {
            // The wait ended, not the source: named below.
        }

        if (Volatile.Read(ref _running) is { IsCompleted: false })
        {
            shutdown.DidNotStop(Name);
        }
    }
}
