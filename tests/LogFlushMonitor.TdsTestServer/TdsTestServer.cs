using System.Collections.Concurrent;
using System.Net;
using System.Net.Sockets;

namespace LogFlushMonitor.TdsTestServer;

/// <summary>
/// A TDS 7.4 server on 127.0.0.1 for tests, written from [MS-TDS]: the real SqlClient and Dapper log in,
/// run batches and sp_executesql, read scripted result sets and faults, and cancel with attention.
/// Every request is recorded in <see cref="Requests"/>; answers come from rules added with <see cref="Handle"/>.
/// </summary>
public sealed partial class TdsTestServer : IAsyncDisposable
{
    /// <summary>The password <see cref="ConnectionString"/> uses unless told otherwise.</summary>
    public const string DefaultPassword = "monitor-Passw0rd";

    private readonly TcpListener _listener;
    private readonly CancellationTokenSource _stopping = new();
    private readonly ConcurrentDictionary<int, (TdsConnection Connection, Task Task)> _connections = new();
    private readonly ConcurrentQueue<TdsRequest> _requests = new();
    private readonly ConcurrentQueue<TdsLogin> _logins = new();
    private readonly ConcurrentQueue<TdsServerEvent> _events = new();
    private readonly Task _acceptLoop;
    private int _nextConnectionId;

    /// <summary>Starts listening on a free loopback port.</summary>
    public TdsTestServer(TdsTestServerOptions? options = null)
    {
        Options = options ?? new TdsTestServerOptions();
        if (Options.Encryption != TdsEncryption.NotSupported && Options.Certificate is not { HasPrivateKey: true })
        {
            throw new ArgumentException(
                $"Encryption {Options.Encryption} needs a Certificate with its private key (TdsTestCertificates.CreateSelfSigned()).", nameof(options));
        }

        _listener = new TcpListener(IPAddress.Loopback, Options.Port);
        // Lets a restarted server take its predecessor's port at once.
        _listener.Server.SetSocketOption(SocketOptionLevel.Socket, SocketOptionName.ReuseAddress, true);
        _listener.Start(backlog: 128);
        Port = ((IPEndPoint)_listener.LocalEndpoint).Port;
        _acceptLoop = AcceptAsync();
    }

    /// <summary>The settings this server runs with.</summary>
    public TdsTestServerOptions Options { get; }

    /// <summary>The TCP port on 127.0.0.1.</summary>
    public int Port { get; }

    /// <summary>Every SQL batch and RPC received, in arrival order (a snapshot).</summary>
    public IReadOnlyList<TdsRequest> Requests => [.. _requests];

    /// <summary>Every LOGIN7 received, accepted or not (a snapshot).</summary>
    public IReadOnlyList<TdsLogin> Logins => [.. _logins];

    /// <summary>The server's own log: connections, logins, cuts, protocol faults (a snapshot).</summary>
    public IReadOnlyList<TdsServerEvent> Events => [.. _events];

    /// <summary>Connections currently open.</summary>
    public int OpenConnections => _connections.Count;

    /// <summary>
    /// A SqlClient connection string for this server: <c>Encrypt=False</c> (SqlClient's Optional) unless
    /// <paramref name="encrypt"/> says otherwise (Mandatory, Strict), trusting the server's certificate unless
    /// <paramref name="trustServerCertificate"/> is false.
    /// </summary>
    public string ConnectionString(string user = "monitor", string password = DefaultPassword, bool pooling = false,
        string encrypt = "False", bool trustServerCertificate = true) =>
        $"Server=127.0.0.1,{Port};User ID={user};Password={password};Encrypt={encrypt};TrustServerCertificate={trustServerCertificate};" +
        $"Pooling={pooling};Connect Timeout=10";

    /// <summary>Closes every open connection at once, as a server restart or a network fault would.</summary>
    public void DropConnections()
    {
        foreach (var (connection, _) in _connections.Values)
        {
            connection.Abort();
        }
    }

    /// <summary>Stops listening and closes every connection.</summary>
    public async ValueTask DisposeAsync()
    {
        if (_stopping.IsCancellationRequested)
        {
            return;
        }

        _stopping.Cancel();
        _listener.Stop();
        DropConnections();
        var tasks = _connections.Values.Select(c => c.Task).Append(_acceptLoop).ToArray();
        await Task.WhenAny(Task.WhenAll(tasks), Task.Delay(TimeSpan.FromSeconds(5)));
        _stopping.Dispose();
    }

    internal void Log(int connectionId, string message)
    {
        var entry = new TdsServerEvent(Options.TimeProvider.GetUtcNow(), connectionId, message);
        _events.Enqueue(entry);
        try
        {
            Options.OnEvent?.Invoke(entry);
        }
        catch (InvalidOperationException)
        {
            // A test output helper throws once its test has ended; the server outlives it by a moment.
        }
    }

    internal void RecordLogin(TdsLogin login) => _logins.Enqueue(login);

    private async Task AcceptAsync()
    {
        while (!_stopping.IsCancellationRequested)
        {
            Socket socket;
            try
            {
                socket = await _listener.AcceptSocketAsync(_stopping.Token);
            }
            catch (Exception ex) when (ex is OperationCanceledException or ObjectDisposedException or SocketException)
            {
                break;
            }

            socket.NoDelay = true;
            var id = Interlocked.Increment(ref _nextConnectionId);
            var connection = new TdsConnection(this, socket, id, _stopping.Token);
            Log(id, $"accepted connection from {socket.RemoteEndPoint}");
            // Registered before it runs, so DropConnections and DisposeAsync always see it.
            var start = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            var task = Task.Run(async () =>
            {
                await start.Task;
                try
                {
                    await connection.RunAsync();
                }
                finally
                {
                    _connections.TryRemove(id, out _);
                }
            });
            _connections[id] = (connection, task);
            start.SetResult();
        }
    }
}
