using System.Net;
using System.Net.Sockets;

namespace LogFlushMonitor.Testing;

/// <summary>Ports for servers that tests start on the loopback.</summary>
public static class TestPorts
{
    /// <summary>A port no one listened on a moment ago (the system's choice); a server that then finds it taken retries with another.</summary>
    public static int Free()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }
}
