using System.Buffers;

namespace LogFlushMonitor.Prometheus;

/// <summary>
/// The scrape pipe's memory: a few fixed-size blocks reused from scrape to scrape. The shared ArrayPool keeps a
/// returned array in the returning thread's cache, and the pipe rents on the renderer's thread and returns on
/// the sender's, both pool threads that change from scrape to scrape: it would miss and allocate. Blocks are
/// handed out with their owner object, which puts itself back on dispose, so a steady scrape allocates nothing.
/// Thread-safe. Keeps at most <paramref name="maxKept"/> blocks (what the pipe can hold at its pause threshold plus
/// the partly filled ones at either end); a larger request gets a plain array that is not kept.
/// </summary>
internal sealed class SegmentPool(int blockSize, int maxKept) : MemoryPool<byte>
{
    private readonly Stack<Block> _free = new(maxKept);

    /// <summary>Blocks created so far (tests: a steady scrape creates none).</summary>
    internal int Created { get; private set; }

    /// <inheritdoc />
    public override int MaxBufferSize => blockSize;

    /// <summary>Blocks waiting for reuse (tests).</summary>
    internal int Kept
    {
        get
        {
            lock (_free)
            {
                return _free.Count;
            }
        }
    }

    /// <inheritdoc />
    public override IMemoryOwner<byte> Rent(int minBufferSize = -1)
    {
        if (minBufferSize <= blockSize)
        {
            lock (_free)
            {
                if (_free.TryPop(out var block))
                {
                    block.Rented = true;
                    return block;
                }
            }

            lock (_free)
            {
                Created++;
            }

            return new Block(this, new byte[blockSize]) { Rented = true };
        }

        // Never asked for by the pipe (its writes come in chunks of at most the block size): not kept.
        return new Block(null, new byte[minBufferSize]) { Rented = true };
    }

    /// <inheritdoc />
    protected override void Dispose(bool disposing)
    {
        lock (_free)
        {
            _free.Clear();
        }
    }

    private void Return(Block block)
    {
        lock (_free)
        {
            if (_free.Count < maxKept)
            {
                _free.Push(block);
            }
        }
    }

    private sealed class Block(SegmentPool? owner, byte[] array) : IMemoryOwner<byte>
    {
        public bool Rented { get; set; }

        public Memory<byte> Memory => array;

        public void Dispose()
        {
            if (!Rented)
            {
                return;
            }

            Rented = false;
            owner?.Return(this);
        }
    }
}
