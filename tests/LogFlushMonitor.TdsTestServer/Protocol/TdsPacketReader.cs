using System.Buffers.Binary;

namespace LogFlushMonitor.TdsTestServer.Protocol;

/// <summary>Reads packets from the socket and joins them into messages at the EOM bit.</summary>
internal sealed class TdsPacketReader(Stream stream)
{
    // Large enough for a several-MB varbinary(max) parameter, small enough that junk cannot exhaust memory.
    private const int MaxMessageBytes = 64 * 1024 * 1024;
    private readonly Stream _stream = stream;
    private readonly byte[] _header = new byte[TdsPacketType.HeaderLength];

    /// <summary>Returns the next message, or null when the client closed the socket between messages.</summary>
    public async Task<TdsMessage?> ReadMessageAsync(CancellationToken cancellationToken)
    {
        using var payload = new MemoryStream();
        byte type = 0, firstStatus = 0;
        for (var first = true; ; first = false)
        {
            var got = await _stream.ReadAtLeastAsync(_header, _header.Length, throwOnEndOfStream: false, cancellationToken);
            if (got == 0 && first)
            {
                return null;
            }

            if (got < _header.Length)
            {
                throw new EndOfStreamException("The client closed the socket inside a packet header.");
            }

            var length = BinaryPrimitives.ReadUInt16BigEndian(_header.AsSpan(2));
            if (length < TdsPacketType.HeaderLength)
            {
                throw new TdsProtocolException($"Packet length {length} is shorter than its header.");
            }

            if (first)
            {
                type = _header[0];
                firstStatus = _header[1];
            }
            else if (_header[0] != type)
            {
                throw new TdsProtocolException($"Packet type changed from {type} to {_header[0]} inside one message.");
            }

            var body = new byte[length - TdsPacketType.HeaderLength];
            await _stream.ReadExactlyAsync(body, cancellationToken);
            if (payload.Length + body.Length > MaxMessageBytes)
            {
                throw new TdsProtocolException($"Message longer than {MaxMessageBytes} bytes.");
            }

            payload.Write(body);
            if ((_header[1] & TdsPacketType.EndOfMessage) != 0)
            {
                return new TdsMessage(type, firstStatus, payload.ToArray());
            }
        }
    }
}
