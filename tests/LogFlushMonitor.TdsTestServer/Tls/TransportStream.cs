namespace LogFlushMonitor.TdsTestServer.Tls;

/// <summary>
/// What the packet reader and sender of one connection talk through: the socket at first, a TLS stream once one is
/// up, and the socket again after a login-only TLS session ends with the LOGIN7 message.
/// </summary>
internal sealed class TransportStream(Stream socket) : Stream
{
    /// <summary>The plain socket stream.</summary>
    public Stream Socket { get; } = socket;

    /// <summary>Where reads and writes go now.</summary>
    public Stream Current { get; set; } = socket;

    public override bool CanRead => true;

    public override bool CanWrite => true;

    public override bool CanSeek => false;

    public override long Length => throw new NotSupportedException();

    public override long Position { get => throw new NotSupportedException(); set => throw new NotSupportedException(); }

    public override ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default) =>
        Current.ReadAsync(buffer, cancellationToken);

    public override ValueTask WriteAsync(ReadOnlyMemory<byte> buffer, CancellationToken cancellationToken = default) =>
        Current.WriteAsync(buffer, cancellationToken);

    public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) =>
        Current.ReadAsync(buffer, offset, count, cancellationToken);

    public override Task WriteAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) =>
        Current.WriteAsync(buffer, offset, count, cancellationToken);

    public override int Read(byte[] buffer, int offset, int count) => Current.Read(buffer, offset, count);

    public override void Write(byte[] buffer, int offset, int count) => Current.Write(buffer, offset, count);

    public override Task FlushAsync(CancellationToken cancellationToken) => Current.FlushAsync(cancellationToken);

    public override void Flush() => Current.Flush();

    public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

    public override void SetLength(long value) => throw new NotSupportedException();
}
