namespace LogFlushMonitor.Sources;

/// <summary>
/// A read-only stream over a file that may not be a regular one (a FIFO, a device): a read that blocks in the kernel
/// does not notice cancellation, so each read is awaited with the token and, when cancelled, abandoned to end by
/// itself. The underlying stream is then left open (its handle closes with the process): disposing it under a read
/// in progress could block the very shutdown this exists for.
/// </summary>
internal sealed class AbandonableReadStream(Stream inner) : Stream
{
    private Task? _pending;

    public override bool CanRead => true;

    public override bool CanSeek => false;

    public override bool CanWrite => false;

    public override long Length => throw new NotSupportedException();

    public override long Position { get => throw new NotSupportedException(); set => throw new NotSupportedException(); }

    public override async ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default)
    {
        var read = inner.ReadAsync(buffer, CancellationToken.None).AsTask();
        _pending = read;
        var n = await read.WaitAsync(cancellationToken).ConfigureAwait(false);
        _pending = null;
        return n;
    }

    public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) =>
        ReadAsync(buffer.AsMemory(offset, count), cancellationToken).AsTask();

    public override int Read(byte[] buffer, int offset, int count) => inner.Read(buffer, offset, count);

    public override void Flush()
    {
    }

    public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

    public override void SetLength(long value) => throw new NotSupportedException();

    public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();

    protected override void Dispose(bool disposing)
    {
        if (disposing && _pending is null or { IsCompleted: true })
        {
            inner.Dispose();
        }

        base.Dispose(disposing);
    }

    public override ValueTask DisposeAsync()
    {
        Dispose(true);
        GC.SuppressFinalize(this);
        return ValueTask.CompletedTask;
    }
}
