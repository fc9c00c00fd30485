using System.Net;
using System.Net.Sockets;

namespace LogFlushMonitor.Testing;

/// <summary>
/// A TCP proxy on the loopback that injects the network faults a real path has and a well-behaved test server never
/// shows: it can stall (stop forwarding in both directions without closing, as a dead middlebox or a frozen peer does;
/// the client's socket stays open and silent), stall in the middle of what the server sends (after a given number of
/// bytes, so a TDS packet is cut in half), or cut every connection with a reset; all connections at once, or only the
/// one that received the most from the server (a long-lived stream beside short polls). Every connection made through
/// it is forwarded byte for byte otherwise.
/// </summary>
public sealed class FaultProxy : IAsyncDisposable
{
    private readonly TcpListener _listener;
    private readonly IPEndPoint _target;
    private readonly CancellationTokenSource _stop = new();
    private readonly List<Pair> _pairs = [];
    private readonly Lock _gate = new();
    private readonly Task _accepting;
    private TaskCompletionSource _flowing = NewGate(open: true);
    private byte[]? _marker;
    private long _stallAfterServerBytes = long.MaxValue;
    private long _serverBytes;
    private long _clientBytes;
    private int _connections;

    /// <summary>Starts a proxy to <paramref name="targetPort"/> on 127.0.0.1.</summary>
    public FaultProxy(int targetPort)
    {
        _target = new IPEndPoint(IPAddress.Loopback, targetPort);
        _listener = new TcpListener(IPAddress.Loopback, 0);
        _listener.Start();
        Port = ((IPEndPoint)_listener.LocalEndpoint).Port;
        _accepting = Task.Run(AcceptAsync);
    }

    /// <summary>The port clients connect to.</summary>
    public int Port { get; }

    /// <summary>Connections accepted so far.</summary>
    public int Connections => Volatile.Read(ref _connections);

    /// <summary>Bytes forwarded from the server to clients so far.</summary>
    public long ServerBytes => Interlocked.Read(ref _serverBytes);

    /// <summary>Bytes forwarded from clients to the server so far.</summary>
    public long ClientBytes => Interlocked.Read(ref _clientBytes);

    /// <summary>Whether forwarding is stopped now.</summary>
    public bool Stalled => !_flowing.Task.IsCompleted;

    /// <summary>Stops forwarding in both directions; every socket stays open and says nothing.</summary>
    public void Stall()
    {
        lock (_gate)
        {
            if (_flowing.Task.IsCompleted)
            {
                _flowing = NewGate(open: false);
            }
        }
    }

    /// <summary>
    /// Forwards <paramref name="bytes"/> more bytes from the server (counted over all connections), then stalls in the
    /// middle of whatever the server was sending.
    /// </summary>
    public void StallAfterServerBytes(long bytes) => Interlocked.Exchange(ref _stallAfterServerBytes, ServerBytes + bytes);

    /// <summary>Forwards again what was held back, and everything after it.</summary>
    public void Resume()
    {
        Interlocked.Exchange(ref _stallAfterServerBytes, long.MaxValue);
        lock (_gate)
        {
            foreach (var pair in _pairs)
            {
                Interlocked.Exchange(ref pair.StallAfter, long.MaxValue);
                pair.Flowing.TrySetResult();
            }

            _flowing.TrySetResult();
        }
    }

    /// <summary>Resets every connection made so far (the client sees a connection reset); new ones are accepted.</summary>
    public void CutAll()
    {
        List<Pair> pairs;
        lock (_gate)
        {
            pairs = [.. _pairs];
            _pairs.Clear();
        }

        foreach (var pair in pairs)
        {
            Reset(pair.Client);
            Reset(pair.Server);
        }
    }

    /// <summary>
    /// Resets the connections stalled by <see cref="StallMarked"/> or <see cref="StallBusiest"/> (both sides), as a server
    /// finally gives up a dead path; the others flow on. A test server whose handler of the dead connection still
    /// takes rows from a shared source would otherwise keep taking them. Returns how many were reset.
    /// </summary>
    public int CutStalled()
    {
        List<Pair> stalled;
        lock (_gate)
        {
            stalled = [.. _pairs.Where(p => Interlocked.Read(ref p.StallAfter) <= Interlocked.Read(ref p.ServerBytes))];
            _pairs.RemoveAll(stalled.Contains);
        }

        foreach (var pair in stalled)
        {
            Reset(pair.Server);
            Reset(pair.Client);
        }

        return stalled.Count;
    }

    /// <summary>
    /// Marks the connection on which the client sends <paramref name="text"/> (as UTF-16, the way a TDS batch carries a
    /// statement), e.g. the one statement only a live stream sends: <see cref="StallMarked"/> then stalls that one alone.
    /// Connections made before the call are not searched.
    /// </summary>
    public void MarkWhenClientSends(string text) => Volatile.Write(ref _marker, System.Text.Encoding.Unicode.GetBytes(text));

    /// <summary>Whether a connection has been marked (its client sent the marker text).</summary>
    public bool HasMarked
    {
        get
        {
            lock (_gate)
            {
                return _pairs.Any(p => p.Marked && p.Client.Connected);
            }
        }
    }

    /// <summary>
    /// Stops forwarding on the most recent marked connection, in both directions, after <paramref name="afterServerBytes"/>
    /// more bytes from the server (0: at once); the others flow on. Returns false when no marked connection is open.
    /// </summary>
    public bool StallMarked(long afterServerBytes = 0)
    {
        lock (_gate)
        {
            var marked = _pairs.LastOrDefault(p => p.Marked && p.Client.Connected);
            if (marked is null)
            {
                return false;
            }

            Interlocked.Exchange(ref marked.StallAfter, Interlocked.Read(ref marked.ServerBytes) + afterServerBytes);
            return true;
        }
    }

    /// <summary>
    /// Stops forwarding on the open connection that received the most from the server, in both directions, after
    /// <paramref name="afterServerBytes"/> more bytes from the server (0: at once); the others flow on. Returns false when
    /// no connection is open.
    /// </summary>
    public bool StallBusiest(long afterServerBytes = 0)
    {
        lock (_gate)
        {
            var busiest = _pairs.Where(p => p.Client.Connected).MaxBy(p => Interlocked.Read(ref p.ServerBytes));
            if (busiest is null)
            {
                return false;
            }

            Interlocked.Exchange(ref busiest.StallAfter, Interlocked.Read(ref busiest.ServerBytes) + afterServerBytes);
            return true;
        }
    }

    /// <inheritdoc />
    public async ValueTask DisposeAsync()
    {
        await _stop.CancelAsync().ConfigureAwait(false);
        _listener.Stop();
        Resume();
        CutAll();
        try
        {
            await _accepting.ConfigureAwait(false);
        }
        catch (Exception e) when (e is OperationCanceledException or SocketException or ObjectDisposedException)
        {
        }

        _stop.Dispose();
    }

    private static TaskCompletionSource NewGate(bool open)
    {
        var gate = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        if (open)
        {
            gate.SetResult();
        }

        return gate;
    }

    private static void Reset(TcpClient c)
    {
        try
        {
            c.Client.LingerState = new LingerOption(true, 0); // close with RST, not FIN
            c.Close();
        }
        catch (Exception e) when (e is SocketException or ObjectDisposedException)
        {
        }
    }

    private async Task AcceptAsync()
    {
        while (!_stop.IsCancellationRequested)
        {
            var client = await _listener.AcceptTcpClientAsync(_stop.Token).ConfigureAwait(false);
            var server = new TcpClient();
            try
            {
                await server.ConnectAsync(_target, _stop.Token).ConfigureAwait(false);
            }
            catch (SocketException)
            {
                Reset(client);
                server.Dispose();
                continue;
            }

            Interlocked.Increment(ref _connections);
            var pair = new Pair(client, server);
            lock (_gate)
            {
                _pairs.Add(pair);
            }

            _ = PumpAsync(pair, server.GetStream(), client.GetStream(), fromServer: true);
            _ = PumpAsync(pair, client.GetStream(), server.GetStream(), fromServer: false);
        }
    }

    private async Task PumpAsync(Pair pair, NetworkStream from, NetworkStream to, bool fromServer)
    {
        var buffer = new byte[16 * 1024];
        try
        {
            while (true)
            {
                var n = await from.ReadAsync(buffer, _stop.Token).ConfigureAwait(false);
                if (n == 0)
                {
                    to.Socket.Shutdown(SocketShutdown.Send);
                    return;
                }

                var offset = 0;
                while (offset < n)
                {
                    await WaitFlowingAsync().ConfigureAwait(false);
                    await pair.Flowing.Task.WaitAsync(_stop.Token).ConfigureAwait(false);
                    if (!fromServer && Interlocked.Read(ref pair.StallAfter) <= Interlocked.Read(ref pair.ServerBytes))
                    {
                        pair.Stall(); // a stalled path carries nothing either way
                        continue;
                    }

                    var chunk = n - offset;
                    if (fromServer)
                    {
                        // Mid-stream stall: forward only up to the byte where the stall begins, then hold the rest.
                        var allowed = Math.Min(Interlocked.Read(ref _stallAfterServerBytes) - ServerBytes, Interlocked.Read(ref pair.StallAfter) - Interlocked.Read(ref pair.ServerBytes));
                        if (allowed <= 0)
                        {
                            if (Interlocked.Read(ref pair.StallAfter) <= Interlocked.Read(ref pair.ServerBytes))
                            {
                                pair.Stall();
                            }
                            else
                            {
                                Stall();
                            }

                            continue;
                        }

                        chunk = (int)Math.Min(chunk, allowed);
                        Interlocked.Add(ref _serverBytes, chunk);
                        Interlocked.Add(ref pair.ServerBytes, chunk);
                    }
                    else
                    {
                        Interlocked.Add(ref _clientBytes, chunk);
                        if (!pair.Marked && Volatile.Read(ref _marker) is { } marker && buffer.AsSpan(offset, chunk).IndexOf(marker) >= 0)
                        {
                            pair.Marked = true;
                        }
                    }

                    await to.WriteAsync(buffer.AsMemory(offset, chunk), _stop.Token).ConfigureAwait(false);
                    offset += chunk;
                }
            }
        }
        catch (Exception e) when (e is IOException or SocketException or ObjectDisposedException or OperationCanceledException or InvalidOperationException)
        {
            // One side went away (or the proxy stops): the other side learns it from its own socket.
        }
    }

    /// <summary>One connection: its two sockets, what the server sent on it, and its own stall.</summary>
    private sealed class Pair(TcpClient client, TcpClient server)
    {
        public TcpClient Client { get; } = client;

        public TcpClient Server { get; } = server;

        public long ServerBytes;

        public long StallAfter = long.MaxValue;

        public volatile bool Marked;

        public TaskCompletionSource Flowing { get; private set; } = NewGate(open: true);

        public void Stall()
        {
            lock (this)
            {
                if (Flowing.Task.IsCompleted)
                {
                    Flowing = NewGate(open: false);
                }
            }
        }
    }

    private Task WaitFlowingAsync()
    {
        Task gate;
        lock (_gate)
        {
            gate = _flowing.Task;
        }

        return gate.WaitAsync(_stop.Token);
    }
}
