using System.Buffers.Binary;

namespace LogFlushMonitor.TdsTestServer.Protocol;

/// <summary>
/// Splits the tokens composed in <see cref="Tokens"/> into packets of the negotiated size. Only whole
/// tokens are ever composed, so a response stopped by an attention leaves the client's parser in step.
/// </summary>
internal sealed class TdsMessageSender(Stream stream, ushort spid, Action abort)
{
    private readonly Stream _stream = stream;
    private readonly ushort _spid = spid;
    private readonly Action _abort = abort;
    private byte[] _packet = new byte[4096];
    private byte _packetId = 1;
    private long _cutBudget = -1;

    public TdsBuffer Tokens { get; } = new();

    public int PacketSize { get; set; } = 4096;

    /// <summary>After <paramref name="bytes"/> more bytes reach the wire, the socket is closed.</summary>
    public async Task ArmCutAsync(int bytes, CancellationToken cancellationToken)
    {
        await FlushAsync(endOfMessage: false, partial: true, cancellationToken);
        _cutBudget = Math.Max(0, bytes);
        if (_cutBudget == 0)
        {
            Cut();
        }
    }

    /// <summary>
    /// Sends full packets; with <paramref name="partial"/> also the remainder (so a streamed row reaches the
    /// client now); with <paramref name="endOfMessage"/> the remainder as the message's last packet.
    /// </summary>
    public async Task FlushAsync(bool endOfMessage, bool partial, CancellationToken cancellationToken)
    {
        var payloadSize = PacketSize - TdsPacketType.HeaderLength;
        var sent = 0;
        while (Tokens.Length - sent > payloadSize)
        {
            await SendPacketAsync(sent, payloadSize, 0, cancellationToken);
            sent += payloadSize;
        }

        var rest = Tokens.Length - sent;
        if (endOfMessage || (partial && rest > 0))
        {
            await SendPacketAsync(sent, rest, endOfMessage ? TdsPacketType.EndOfMessage : (byte)0, cancellationToken);
            sent += rest;
        }

        Tokens.Consume(sent);
        if (endOfMessage)
        {
            _packetId = 1;
        }
    }

    private async Task SendPacketAsync(int offset, int count, byte status, CancellationToken cancellationToken)
    {
        var total = count + TdsPacketType.HeaderLength;
        if (_packet.Length < total)
        {
            _packet = new byte[total];
        }

        _packet[0] = TdsPacketType.TabularResult;
        _packet[1] = status;
        BinaryPrimitives.WriteUInt16BigEndian(_packet.AsSpan(2), (ushort)total);
        BinaryPrimitives.WriteUInt16BigEndian(_packet.AsSpan(4), _spid);
        _packet[6] = _packetId++;
        _packet[7] = 0;
        Tokens.Written.Slice(offset, count).CopyTo(_packet.AsSpan(TdsPacketType.HeaderLength));
        if (_cutBudget >= 0 && total >= _cutBudget)
        {
            await _stream.WriteAsync(_packet.AsMemory(0, (int)_cutBudget), cancellationToken);
            await _stream.FlushAsync(cancellationToken);
            Cut();
        }

        _cutBudget = _cutBudget >= 0 ? _cutBudget - total : -1;
        await _stream.WriteAsync(_packet.AsMemory(0, total), cancellationToken);
    }

    private void Cut()
    {
        _abort();
        throw new ConnectionCutException();
    }
}
