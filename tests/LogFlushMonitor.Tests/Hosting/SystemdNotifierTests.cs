using System.Net.Sockets;
using System.Text;
using LogFlushMonitor.Hosting;

namespace LogFlushMonitor.Tests.Hosting;

[Collection("host")]
public class SystemdNotifierTests
{
    private static (Socket Socket, string Path) Listen()
    {
        var path = Path.Combine(Path.GetTempPath(), "lfm-notify-" + Guid.NewGuid().ToString("N")[..8] + ".sock");
        var socket = new Socket(AddressFamily.Unix, SocketType.Dgram, ProtocolType.Unspecified);
        socket.Bind(new UnixDomainSocketEndPoint(path));
        socket.ReceiveTimeout = 15_000;
        return (socket, path);
    }

    private static string Receive(Socket socket)
    {
        var buffer = new byte[4096];
        var n = socket.Receive(buffer);
        return Encoding.UTF8.GetString(buffer, 0, n);
    }

    [SkippableFact]
    public async Task The_host_sends_ready_after_start_and_stopping_at_shutdown_to_a_real_unix_socket()
    {
        Skip.IfNot(OperatingSystem.IsLinux() || OperatingSystem.IsMacOS(), "systemd notification uses a unix datagram socket: Linux and macOS only");
        var (socket, path) = Listen();
        using (socket)
        {
            var host = await RunningHost.StartAsync(
                new() { ["Sources:Simulate:Scenario"] = "autocommit" },
                s => s.AddSingleton(new SystemdNotifier(path)));
            var ready = Receive(socket);
            Assert.StartsWith("READY=1\n", ready, StringComparison.Ordinal);

            await host.DisposeAsync();
            Assert.StartsWith("STOPPING=1\n", Receive(socket), StringComparison.Ordinal);
        }

        File.Delete(path);
    }

    [Fact]
    public void Without_a_notify_socket_nothing_is_sent()
    {
        var n = new SystemdNotifier(null);
        Assert.False(n.IsEnabled);
        Assert.False(n.NotifyReady());
    }

    [Fact]
    public void An_unreachable_socket_is_not_an_error()
    {
        Assert.False(new SystemdNotifier("/nonexistent/notify.sock").NotifyReady());
    }
}
