using System.Net;
using System.Net.Sockets;

namespace LogFlushMonitor.TdsTestServer.Tests;

/// <summary>
/// A TCP relay on 127.0.0.1 between a client and a server that keeps every byte crossing it, so a test can say what
/// an eavesdropper on the wire would read.
/// </summary>
internal sealed class WireTap : IAsyncDisposable
{
    private readonly TcpListener _listener = new(IPAddress.Loopback, 0);
    private readonly int _serverPort;
    private readonly CancellationTokenSource _stop = new();
    private readonly MemoryStream _toServer = new();
    private readonly MemoryStream _toClient = new();
    private readonly List<Task> _pumps = [];
    private readonly Task _accept;

    public WireTap(int serverPort)
    {
        _serverPort = serverPort;
        _listener.Start();
        Port = ((IPEndPoint)_listener.LocalEndpoint).Port;
        _accept = AcceptAsync();
    }

    /// <summary>The port clients connect to instead of the server's.</summary>
    public int Port { get; }

    /// <summary>Everything the clients sent, in order (a copy).</summary>
    public byte[] ClientBytes
    {
        get
        {
            lock (_toServer)
            {
                return _toServer.ToArray();
            }
        }
    }

    /// <summary>Everything the server sent, in order (a copy).</summary>
    public byte[] ServerBytes
    {
        get
        {
            lock (_toClient)
            {
                return _toClient.ToArray();
            }
        }
    }

    /// <summary>Whether <paramref name="text"/> crossed the wire readable, as TDS carries SQL text (UTF-16LE).</summary>
    public bool SawInClear(string text)
    {
        var needle = System.Text.Encoding.Unicode.GetBytes(text);
        return ClientBytes.AsSpan().IndexOf(needle) >= 0 || ServerBytes.AsSpan().IndexOf(needle) >= 0;
    }

    public async ValueTask DisposeAsync()
    {
        _stop.Cancel();
        _listener.Stop();
        await Task.WhenAll(_pumps.Append(_accept)).WaitAsync(TimeSpan.FromSeconds(5)).ContinueWith(_ => { }, TaskScheduler.Default);
        _stop.Dispose();
    }

    private async Task AcceptAsync()
    {
        while (!_stop.IsCancellationRequested)
        {
            TcpClient client;
            try
            {
                client = await _listener.AcceptTcpClientAsync(_stop.Token);
            }
            catch (Exception ex) when (ex is OperationCanceledException or SocketException or ObjectDisposedException)
            {
                return;
            }

            var upstream = new TcpClient();
            await upstream.ConnectAsync(IPAddress.Loopback, _serverPort);
            lock (_pumps)
            {
                _pumps.Add(PumpAsync(client, upstream, _toServer));
                _pumps.Add(PumpAsync(upstream, client, _toClient));
            }
        }
    }

    private async Task PumpAsync(TcpClient from, TcpClient to, MemoryStream record)
    {
        var buffer = new byte[16384];
        try
        {
            while (true)
            {
                var read = await from.GetStream().ReadAsync(buffer, _stop.Token);
                if (read == 0)
                {
                    break;
                }

                lock (record)
                {
                    record.Write(buffer, 0, read);
                }

                await to.GetStream().WriteAsync(buffer.AsMemory(0, read), _stop.Token);
            }
        }
        catch (Exception ex) when (ex is IOException or OperationCanceledException or ObjectDisposedException or SocketException)
        {
            // One side went away: closing both below is all that is left.
        }
        finally
        {
            from.Close();
            to.Close();
        }
    }
}
