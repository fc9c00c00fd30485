using System.Buffers;

namespace LogFlushMonitor.Prometheus;

/// <summary>
/// One collect's text, in pooled blocks, shared by every scrape that joined that collect. Each scrape holds a
/// reference (as does the render until it ends); the blocks go back to the pool with the last one. Written by one
/// render thread; read only after <see cref="Rendered"/> completes.
/// </summary>
internal sealed class RenderedText(MemoryPool<byte> pool, PrometheusFormat format = PrometheusFormat.Text)
{
    /// <summary>The format the text is rendered in.</summary>
    public PrometheusFormat Format => format;

    private readonly List<IMemoryOwner<byte>> _blocks = [];
    private readonly TaskCompletionSource<Exception?> _rendered = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private int _lastBlockLength;
    private int _references = 1; // the render's own
    private long _length;

    /// <summary>Completes when the render ended: null when the text is whole, else why it failed.</summary>
    public Task<Exception?> Rendered => _rendered.Task;

    /// <summary>The text's length in bytes (once rendered).</summary>
    public long Length => Interlocked.Read(ref _length);

    /// <summary>Copies <paramref name="bytes"/> to the end of the text.</summary>
    public void Append(ReadOnlySpan<byte> bytes)
    {
        while (bytes.Length > 0)
        {
            if (_blocks.Count == 0 || _lastBlockLength == _blocks[^1].Memory.Length)
            {
                _blocks.Add(pool.Rent(PrometheusScrapeHandler.ChunkSize));
                _lastBlockLength = 0;
            }

            var room = _blocks[^1].Memory.Span[_lastBlockLength..];
            var n = Math.Min(room.Length, bytes.Length);
            bytes[..n].CopyTo(room);
            _lastBlockLength += n;
            bytes = bytes[n..];
            Interlocked.Add(ref _length, n);
        }
    }

    /// <summary>Ends the render.</summary>
    public void Complete(Exception? failure) => _rendered.TrySetResult(failure);

    /// <summary>Another scrape reads this text.</summary>
    public void AddReader() => Interlocked.Increment(ref _references);

    /// <summary>A reader (or the render) is done; the last one returns the blocks.</summary>
    public void Release()
    {
        if (Interlocked.Decrement(ref _references) != 0)
        {
            return;
        }

        foreach (var block in _blocks)
        {
            block.Dispose();
        }

        _blocks.Clear();
    }

    /// <summary>The text's pieces, in order (once rendered).</summary>
    public IEnumerable<ReadOnlyMemory<byte>> Pieces()
    {
        for (var i = 0; i < _blocks.Count; i++)
        {
            var memory = _blocks[i].Memory;
            yield return i == _blocks.Count - 1 ? memory[.._lastBlockLength] : memory;
        }
    }
}
