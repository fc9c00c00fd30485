using System.Net.Sockets;
using System.Text;

namespace LogFlushMonitor.Hosting;

/// <summary>
/// Tells systemd (Type=notify) that the service is ready or stopping, by a datagram to <c>$NOTIFY_SOCKET</c>.
/// Kept rather than Microsoft.Extensions.Hosting.Systemd, which acts only when the parent process is systemd and
/// sends bare READY=1/STOPPING=1 (no STATUS=); this one is tested over a real unix socket. The protocol is one
/// datagram of newline-separated assignments. A socket name starting with '@' is in the abstract namespace.
/// </summary>
public sealed class SystemdNotifier
{
    private readonly string? _socketPath;

    /// <summary>Reads the socket from <paramref name="notifySocket"/> (normally the NOTIFY_SOCKET variable).</summary>
    public SystemdNotifier(string? notifySocket) => _socketPath = string.IsNullOrWhiteSpace(notifySocket) ? null : notifySocket;

    /// <summary>True when started by systemd with a notify socket.</summary>
    public bool IsEnabled => _socketPath is not null;

    /// <summary>Sends <c>READY=1</c>.</summary>
    public bool NotifyReady() => Send("READY=1\nSTATUS=Monitoring log flushes");

    /// <summary>Sends <c>STOPPING=1</c>.</summary>
    public bool NotifyStopping() => Send("STOPPING=1\nSTATUS=Stopping");

    /// <summary>Sends a raw state string; returns false when disabled or the socket is unreachable.</summary>
    public bool Send(string state)
    {
        if (_socketPath is null)
        {
            return false;
        }

        var path = _socketPath[0] == '@' ? "\0" + _socketPath[1..] : _socketPath;
        try
        {
            using var socket = new Socket(AddressFamily.Unix, SocketType.Dgram, ProtocolType.Unspecified);
            socket.Connect(new UnixDomainSocketEndPoint(path));
            socket.Send(Encoding.UTF8.GetBytes(state));
            return true;
        }
        catch (SocketException)
        {
            return false;
        }
    }
}

/// <summary>Sends READY=1 once the host has started and STOPPING=1 when it begins to stop.</summary>
internal sealed class SystemdNotifierService(SystemdNotifier notifier, IHostApplicationLifetime lifetime, Readiness readiness) : IHostedService
{
    public Task StartAsync(CancellationToken cancellationToken)
    {
        lifetime.ApplicationStarted.Register(() =>
        {
            readiness.HostStarted();
            notifier.NotifyReady();
        });
        lifetime.ApplicationStopping.Register(() => notifier.NotifyStopping());
        return Task.CompletedTask;
    }

    public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;
}
