using System.Collections.Concurrent;

namespace LogFlushMonitor.Hosting;

/// <summary>
/// Why the host stopped by itself: a background service, or the pipeline's consumer, that failed. <c>run</c> then exits
/// 1 (docs/operations.md), never 0 as after SIGTERM.
/// </summary>
public sealed class HostFailures
{
    private readonly ConcurrentQueue<string> _failed = new();

    /// <summary>The components that failed, in order.</summary>
    public IReadOnlyCollection<string> Failed => _failed;

    /// <summary>Records that <paramref name="component"/> failed and the host is stopping because of it.</summary>
    public void Record(string component) => _failed.Enqueue(component);

    /// <summary>
    /// Call before running <paramref name="host"/> (running disposes it); after it stopped, the function returns the
    /// exit code: <see cref="Commands.ExitCodes.Failure"/> when a component recorded a failure or a
    /// <see cref="BackgroundService"/> ended with an exception (the host logs it and stops,
    /// <see cref="BackgroundServiceExceptionBehavior.StopHost"/>), otherwise <see cref="Commands.ExitCodes.Ok"/>.
    /// </summary>
    public static Func<int> ExitCodeOf(IHost host)
    {
        ArgumentNullException.ThrowIfNull(host);
        var failures = host.Services.GetService<HostFailures>();
        var background = host.Services.GetServices<IHostedService>().OfType<BackgroundService>().ToList();
        return () => failures?.Failed.Count > 0 || background.Any(s => s.ExecuteTask is { IsFaulted: true })
            ? Commands.ExitCodes.Failure
            : Commands.ExitCodes.Ok;
    }
}
