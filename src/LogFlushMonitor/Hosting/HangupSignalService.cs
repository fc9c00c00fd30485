using System.Runtime.InteropServices;

namespace LogFlushMonitor.Hosting;

/// <summary>
/// SIGHUP stops the service gracefully, as SIGTERM does (exit 0, sources stopped, the last export sent). Its default
/// action would end the process at once, with nothing logged and no last export; the host handles SIGINT, SIGQUIT
/// and SIGTERM only. It is not a reload: the configuration is read once at start, so a supervisor restarts the service
/// to apply a change (docs/operations.md).
/// </summary>
internal sealed partial class HangupSignalService(IHostApplicationLifetime lifetime, ILogger<HangupSignalService> logger) : IHostedService, IDisposable
{
    private PosixSignalRegistration? _registration;

    public Task StartAsync(CancellationToken cancellationToken)
    {
        _registration = PosixSignalRegistration.Create(PosixSignal.SIGHUP, context =>
        {
            context.Cancel = true; // no default action: the host stops in order instead
            LogHangup(logger);
            lifetime.StopApplication();
        });
        return Task.CompletedTask;
    }

    public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public void Dispose() => _registration?.Dispose();

    [LoggerMessage(EventId = 21, Level = LogLevel.Information, Message = "SIGHUP received: stopping as for SIGTERM (the configuration is read at start only: restart the service to apply a change)")]
    private static partial void LogHangup(ILogger logger);
}
