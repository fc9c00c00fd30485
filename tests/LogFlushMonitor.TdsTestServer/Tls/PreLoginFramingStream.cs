using System.Buffers.Binary;
using LogFlushMonitor.TdsTestServer.Protocol;

namespace LogFlushMonitor.TdsTestServer.Tls;

/// <summary>
/// The stream an <see cref="System.Net.Security.SslStream"/> runs on in TDS 7.x: during the handshake every TLS
/// record travels as the payload of PRELOGIN (0x12) packets ([MS-TDS] 2.2.6.5, 3.3.5.2), so this strips those
/// headers from what it reads and adds them to what it writes. After <see cref="StopFraming"/> the same TLS session
/// continues in raw TLS records on the socket, with the TDS packets inside them.
/// </summary>
internal sealed class PreLoginFramingStream(Stream inner) : Stream
{
    // The packet size before LOGIN7 has negotiated another one ([MS-TDS] 2.2.6.4 PacketSize).
    private const int PacketSize = 4096;
    private readonly Stream _inner = inner;
    private readonly byte[] _header = new byte[TdsPacketType.HeaderLength];
    private int _payloadLeft;
    private byte _packetId = 1;
    private bool _framing = true;

    public override bool CanRead => true;

    public override bool CanWrite => true;

    public override bool CanSeek => false;

    public override long Length => throw new NotSupportedException();

    public override long Position { get => throw new NotSupportedException(); set => throw new NotSupportedException(); }

    /// <summary>The handshake is over: from now on bytes pass through unchanged.</summary>
    public void StopFraming()
    {
        if (_payloadLeft != 0)
        {
            throw new TdsProtocolException($"{_payloadLeft} bytes of a PRELOGIN packet left unread after the TLS handshake.");
        }

        _framing = false;
    }

    public override async ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default)
    {
        if (!_framing)
        {
            return await _inner.ReadAsync(buffer, cancellationToken);
        }

        while (_payloadLeft == 0)
        {
            var got = await _inner.ReadAtLeastAsync(_header, _header.Length, throwOnEndOfStream: false, cancellationToken);
            if (got == 0)
            {
                return 0;
            }

            if (got < _header.Length)
            {
                throw new EndOfStreamException("The client closed the socket inside a TLS handshake packet header.");
            }

            if (_header[0] != TdsPacketType.PreLogin)
            {
                throw new TdsProtocolException($"Expected a PRELOGIN packet carrying the TLS handshake, got packet type 0x{_header[0]:X2}.");
            }

            _payloadLeft = BinaryPrimitives.ReadUInt16BigEndian(_header.AsSpan(2)) - TdsPacketType.HeaderLength;
            if (_payloadLeft < 0)
            {
                throw new TdsProtocolException("A TLS handshake packet is shorter than its header.");
            }
        }

        if (buffer.IsEmpty)
        {
            // SslStream's zero-byte read waits for data without holding a buffer: there is some now.
            return 0;
        }

        var read = await _inner.ReadAsync(buffer[..Math.Min(buffer.Length, _payloadLeft)], cancellationToken);
        if (read == 0)
        {
            throw new EndOfStreamException("The client closed the socket inside a TLS handshake packet.");
        }

        _payloadLeft -= read;
        return read;
    }

    public override async ValueTask WriteAsync(ReadOnlyMemory<byte> buffer, CancellationToken cancellationToken = default)
    {
        if (!_framing)
        {
            await _inner.WriteAsync(buffer, cancellationToken);
            return;
        }

        const int payloadSize = PacketSize - TdsPacketType.HeaderLength;
        var packet = new byte[PacketSize];
        for (var sent = 0; sent < buffer.Length; sent += payloadSize)
        {
            var count = Math.Min(payloadSize, buffer.Length - sent);
            var last = sent + count == buffer.Length;
            packet[0] = TdsPacketType.PreLogin;
            packet[1] = last ? TdsPacketType.EndOfMessage : (byte)0;
            BinaryPrimitives.WriteUInt16BigEndian(packet.AsSpan(2), (ushort)(count + TdsPacketType.HeaderLength));
            BinaryPrimitives.WriteUInt16BigEndian(packet.AsSpan(4), 0);
            packet[6] = _packetId++;
            packet[7] = 0;
            buffer.Slice(sent, count).CopyTo(packet.AsMemory(TdsPacketType.HeaderLength));
            await _inner.WriteAsync(packet.AsMemory(0, count + TdsPacketType.HeaderLength), cancellationToken);
        }
    }

    public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) =>
        ReadAsync(buffer.AsMemory(offset, count), cancellationToken).AsTask();

    public override Task WriteAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) =>
        WriteAsync(buffer.AsMemory(offset, count), cancellationToken).AsTask();

    public override int Read(byte[] buffer, int offset, int count) => ReadAsync(buffer, offset, count, CancellationToken.None).GetAwaiter().GetResult();

    public override void Write(byte[] buffer, int offset, int count) => WriteAsync(buffer, offset, count, CancellationToken.None).GetAwaiter().GetResult();

    public override Task FlushAsync(CancellationToken cancellationToken) => _inner.FlushAsync(cancellationToken);

    public override void Flush() => _inner.Flush();

    public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

    public override void SetLength(long value) => throw new NotSupportedException();
}
