using System.Buffers;

namespace LogFlushMonitor.Prometheus;

/// <summary>
/// The scrape pipe's memory: a few fixed-size blocks reused from scrape to scrape. The shared ArrayPool keeps a
/// returned array in the returning thread's cache, and the pipe rents on the renderer's thread and returns on
/// the sender's, both pool threads that change from scrape to scrape: it would miss and allocate. Blocks are
/// handed out with their owner object, which puts itself back on dispose, so a steady scrape allocates nothing.
/// Thread-safe. Holds at most <see cref="MaxKept"/> blocks (what the pipe's pause threshold lets it fill, plus
/// slack); a larger or further request gets a plain array.
/// </summary>
internal sealed class SegmentPool(int blockSize) : MemoryPool<byte>
{
    /// <summary>Blocks kept for reuse at most.</summary>
    public const int MaxKept = 6;

    private readonly Stack<Block> _free = new(MaxKept);

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
            if (_free.Count < MaxKept)
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
