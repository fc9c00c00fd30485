using System.Threading.Channels;
using LogFlushMonitor.TdsTestServer.Protocol;

namespace LogFlushMonitor.TdsTestServer;

internal sealed partial class TdsConnection
{
    private async Task ProcessAsync(ChannelReader<TdsMessage> queue, TdsMessageSender sender, TdsLogin login, CancellationToken token)
    {
        var hasAllHeaders = (Acknowledged(login.TdsVersion) >> 24) >= 0x72;
        await foreach (var message in queue.ReadAllAsync(token))
        {
            switch (message.Type)
            {
                case TdsPacketType.Attention:
                    lock (_gate)
                    {
                        _pendingAttentions--;
                    }

                    // Ends whatever the stopped response left open, or stands alone if it had finished.
                    TdsTokens.WriteDone(sender.Tokens, TdsTokens.Done, TdsTokens.DoneAttention, 0);
                    server.Log(Id, "attention acknowledged with DONE_ATTN"); // before the send, so a client that saw it sees this
                    await sender.FlushAsync(endOfMessage: true, partial: true, token);
                    break;
                case TdsPacketType.SqlBatch:
                    await RespondAsync(sender, login, RequestParser.ParseBatch(message.Payload, hasAllHeaders), token);
                    break;
                case TdsPacketType.Rpc:
                    await RespondAsync(sender, login, RequestParser.ParseRpc(message.Payload, hasAllHeaders), token);
                    break;
                case TdsPacketType.TransactionManager:
                    await TransactAsync(sender, login, message.Payload, hasAllHeaders, token);
                    break;
                default:
                    throw new TdsProtocolException($"Unexpected packet type 0x{message.Type:X2} after login.");
            }
        }
    }

    private async Task RespondAsync(TdsMessageSender sender, TdsLogin login, RequestParser.Parsed parsed, CancellationToken token)
    {
        var request = new TdsRequest(
            Id, parsed.Kind, parsed.Text, parsed.ProcedureName, parsed.Declarations, parsed.Parameters,
            server.Options.TimeProvider.GetUtcNow(), login);
        server.RecordRequest(request);
        using var attention = CancellationTokenSource.CreateLinkedTokenSource(token);
        lock (_gate)
        {
            _current = attention;
            if (_pendingAttentions > 0)
            {
                attention.Cancel(); // the attention overtook this request in the queue
            }
        }

        var context = new ResponseContext(
            sender, parsed.Kind == TdsRequestKind.Rpc, server.Options.ServerName, server.Options.TimeProvider, attention.Token, token);
        try
        {
            foreach (var step in server.StepsFor(request))
            {
                await step.RunAsync(context);
            }

            context.EndRequest();
            await sender.FlushAsync(endOfMessage: true, partial: true, token);
        }
        catch (OperationCanceledException) when (attention.IsCancellationRequested && !token.IsCancellationRequested)
        {
            // Stopped by an attention; its DONE_ATTN is written when the attention message is dequeued.
        }
        catch (Exception ex) when (!token.IsCancellationRequested && ex is not (ConnectionCutException or IOException or System.Net.Sockets.SocketException))
        {
            // Scripted code failed (including a cancellation of its own): the client gets an error, not a dead socket.
            if ((ex as TdsErrorException ?? ex.InnerException as TdsErrorException) is { } scripted)
            {
                TdsTokens.WriteMessage(sender.Tokens, true, scripted.Number, scripted.State, scripted.Severity, scripted.Message, server.Options.ServerName);
            }
            else
            {
                server.Log(Id, $"handler failed: {ex.Message}");
                TdsTokens.WriteMessage(sender.Tokens, true, 50000, 1, 16, $"TdsTestServer handler failed: {ex.Message}", server.Options.ServerName);
            }

            context.HadError = true;
            context.EndRequest();
            await sender.FlushAsync(endOfMessage: true, partial: true, token);
        }
        finally
        {
            lock (_gate)
            {
                _current = null;
            }
        }
    }
}
