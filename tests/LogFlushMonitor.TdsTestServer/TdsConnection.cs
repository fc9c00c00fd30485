using System.Net.Sockets;
using System.Threading.Channels;
using System.Security.Authentication;
using LogFlushMonitor.TdsTestServer.Protocol;
using LogFlushMonitor.TdsTestServer.Tls;

namespace LogFlushMonitor.TdsTestServer;

/// <summary>
/// One client connection. A reader loop takes messages off the socket so that an attention can arrive
/// while the processing loop is still writing (or blocked in) the previous response.
/// </summary>
internal sealed partial class TdsConnection(TdsTestServer server, Socket socket, int id, CancellationToken serverStopping)
{
    private readonly Lock _gate = new();
    private readonly CancellationTokenSource _lifetime = CancellationTokenSource.CreateLinkedTokenSource(serverStopping);
    private CancellationTokenSource? _current;
    private int _pendingAttentions;
    private int _aborted;

    public int Id { get; } = id;

    /// <summary>Closes the socket at once (RST), which also ends both loops.</summary>
    public void Abort()
    {
        if (Interlocked.Exchange(ref _aborted, 1) == 1)
        {
            return;
        }

        try
        {
            socket.LingerState = new LingerOption(true, 0);
        }
        catch (Exception ex) when (ex is ObjectDisposedException or SocketException)
        {
            // Already reset by the peer: closing is all that is left to do.
        }

        socket.Close();
        try
        {
            _lifetime.Cancel();
        }
        catch (ObjectDisposedException)
        {
            // RunAsync disposed it while another thread (DropConnections) was the one to get here first.
        }
    }

    public async Task RunAsync()
    {
        using var network = new NetworkStream(socket, ownsSocket: false);
        var transport = new TransportStream(network);
        var reader = new TdsPacketReader(transport);
        var sender = new TdsMessageSender(transport, (ushort)(50 + Id), CutOnDemand);
        var token = _lifetime.Token;
        try
        {
            var login = await LoginAsync(transport, reader, sender, token);
            if (login is not null)
            {
                await ServeAsync(reader, sender, login, token);
            }
        }
        catch (Exception ex)
        {
            LogFailure(ex);
        }
        finally
        {
            Abort();
            _tls?.Dispose();
            _lifetime.Dispose();
        }
    }

    /// <summary>Logged before the socket closes, so a test that saw the cut also sees the entry.</summary>
    private void CutOnDemand()
    {
        server.Log(Id, "connection cut on demand");
        Abort();
    }

    private void LogFailure(Exception ex)
    {
        if (ex is not ConnectionCutException)
        {
            server.Log(Id, Describe(ex));
        }
    }

    private string Describe(Exception ex) => ex switch
    {
        TdsProtocolException => $"malformed request, connection closed: {ex.Message}",
        AuthenticationException => $"TLS handshake failed, connection closed: {ex.Message}{(ex.InnerException is { } inner ? " (" + inner.Message + ")" : string.Empty)}",
        IOException or SocketException or ObjectDisposedException or OperationCanceledException when Volatile.Read(ref _aborted) == 1 => "connection closed by the server",
        IOException or SocketException or ObjectDisposedException or OperationCanceledException => $"connection lost: {ex.Message}",
        _ => $"unexpected failure, connection closed: {ex}",
    };

    private async Task ServeAsync(TdsPacketReader reader, TdsMessageSender sender, TdsLogin login, CancellationToken token)
    {
        var queue = Channel.CreateUnbounded<TdsMessage>(new UnboundedChannelOptions { SingleReader = true, SingleWriter = true });
        var processing = Task.Run(async () =>
        {
            try
            {
                await ProcessAsync(queue.Reader, sender, login, token);
            }
            catch (Exception ex)
            {
                LogFailure(ex);
                Abort();
            }
        });
        try
        {
            while (await reader.ReadMessageAsync(token) is { } message)
            {
                if (message.Type == TdsPacketType.Attention)
                {
                    lock (_gate)
                    {
                        _pendingAttentions++;
                        _current?.Cancel();
                    }
                }

                queue.Writer.TryWrite(message);
            }

            server.Log(Id, "client closed the connection");
        }
        finally
        {
            queue.Writer.TryComplete();
            Abort();
            await processing;
        }
    }
}
