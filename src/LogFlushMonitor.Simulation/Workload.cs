using LogFlushMonitor.Core.Samples;

namespace LogFlushMonitor.Simulation;

/// <summary>A database's transaction pattern: decides when flushes happen, how large, and who waits.</summary>
internal abstract class Workload(SimRandom rng, LatencyModel latency, int sessions, double rateScale)
{
    /// <summary>Time each session is due next, in ticks.</summary>
    protected long[] Next { get; } = new long[sessions];

    protected SimRandom Rng { get; } = rng;

    protected LatencyModel Latency { get; } = latency;

    protected double RateScale { get; } = rateScale;

    protected int Sessions => Next.Length;

    /// <summary>Spreads the sessions' first actions over the first millisecond after <paramref name="ticks"/>.</summary>
    public virtual void StartAt(long ticks)
    {
        for (var i = 0; i < Next.Length; i++)
        {
            Next[i] = ticks + Rng.Next((int)TimeSpan.TicksPerMillisecond);
        }
    }

    /// <summary>After a restart: nothing ran while the instance was down.</summary>
    public void ResumeAt(long ticks)
    {
        for (var i = 0; i < Next.Length; i++)
        {
            if (Next[i] < ticks)
            {
                Next[i] = ticks + Rng.Next((int)TimeSpan.TicksPerMillisecond);
            }
        }
    }

    /// <summary>Produces every flush whose start lies in [<paramref name="from"/>, <paramref name="to"/>).</summary>
    public abstract void Generate(long from, long to, SimulatedInstance instance, SimulatedDatabase db, ISampleSink sink);

    /// <summary>
    /// Samples one write's latency in microseconds at <paramref name="ticks"/>; a write issued while the instance's log
    /// device stalls completes only after the stall ends.
    /// </summary>
    protected long LatencyAt(SimulatedInstance instance, long ticks, uint size) =>
        Latency.Sample(Rng, TimeSpan.FromTicks(ticks - instance.SimulationStartTicks), size) + (instance.StalledTicks(ticks) / 10);
}

/// <summary>
/// Single-row autocommit: every commit flushes its own block (nearly always 512 B) and its session waits
/// WRITELOG for it, so a session commits at most once per write latency: ~5,000 flushes/s per session at
/// sub-millisecond latency, far fewer during a latency spike.
/// </summary>
internal sealed class AutocommitWorkload(SimRandom rng, LatencyModel latency, int sessions, double rateScale, double commitsPerSecond = 5000)
    : Workload(rng, latency, sessions, rateScale)
{
    public override void Generate(long from, long to, SimulatedInstance instance, SimulatedDatabase db, ISampleSink sink)
    {
        // Time between one commit's wait ending and the next commit (think time plus CPU), net of the mean wait
        // (baseline latency, its rare slow writes, the signal delay) so an unhurried session hits the target rate.
        var gapUs = Math.Max(0, (1e6 / (commitsPerSecond * RateScale)) - (Latency.BaseMicroseconds * 1.02) - 11.5);
        for (var s = 0; s < Sessions; s++)
        {
            var t = Next[s];
            while (t < to)
            {
                // 1.5 % of commits carry a bit more log (a page split, a wider row): 1-4 KB.
                var size = Rng.NextDouble() < 0.985 ? 512u : (uint)(512 * (2 + Rng.Next(7)));
                var latencyUs = LatencyAt(instance, t, size);
                var waitUs = latencyUs + 3 + Rng.Next(18);
                instance.Flush(db, t, size, latencyUs, waitUs, sink);
                db.WriteTransactions++;
                t += (waitUs + (long)(gapUs * Rng.Between(0.8, 1.2))) * 10;
            }

            Next[s] = t;
        }
    }
}

/// <summary>
/// One large transaction at a time per session: the log buffer fills and flushes as 60 KB (61,440 B) blocks,
/// about 250 per second per session; the commit flushes the remainder and is the only WRITELOG wait.
/// </summary>
internal sealed class BigTransactionWorkload(SimRandom rng, LatencyModel latency, int sessions, double rateScale)
    : Workload(rng, latency, sessions, rateScale)
{
    private const uint FullBlock = 61440;
    private readonly int[] _blocksLeft = new int[sessions];

    public override void Generate(long from, long to, SimulatedInstance instance, SimulatedDatabase db, ISampleSink sink)
    {
        // ~15 MB/s of log per session: one full block every ~4 ms.
        var blockTicks = 4.0 * TimeSpan.TicksPerMillisecond / RateScale;
        for (var s = 0; s < Sessions; s++)
        {
            var t = Next[s];
            while (t < to)
            {
                if (_blocksLeft[s] <= 0)
                {
                    _blocksLeft[s] = 80 + Rng.Next(80);
                }

                if (--_blocksLeft[s] > 0)
                {
                    var stalled = instance.StalledTicks(t);
                    var latencyUs = LatencyAt(instance, t, FullBlock);
                    instance.Flush(db, t, FullBlock, latencyUs, 0, sink);
                    if (stalled > 0)
                    {
                        // The log device completes nothing: the session waits for a free log buffer until it does.
                        instance.LogBufferWait(latencyUs);
                        t += latencyUs * 10;
                    }
                    else if (Rng.NextDouble() < 0.05)
                    {
                        // All log buffers in flight: the session waits for a free one.
                        instance.LogBufferWait(latencyUs / 2);
                    }

                    t += (long)(blockTicks * Rng.Between(0.8, 1.2));
                }
                else
                {
                    // The commit hardens what is left in the buffer and waits for it; then a pause before the next batch.
                    var size = (uint)(512 * (1 + Rng.Next(119)));
                    var latencyUs = LatencyAt(instance, t, size);
                    var waitUs = latencyUs + 3 + Rng.Next(18);
                    instance.Flush(db, t, size, latencyUs, waitUs, sink);
                    db.WriteTransactions++;
                    t += (waitUs * 10) + (long)(Rng.Between(100, 500) * TimeSpan.TicksPerMillisecond);
                }
            }

            Next[s] = t;
        }
    }
}

/// <summary>
/// Delayed durability: commits return before their log is hardened, so the buffer collects many commits and
/// flushes at a fairly random fill level (article 003): about one flush per ten commits, sizes from 512 B to
/// 60 KB, and no WRITELOG waits.
/// </summary>
internal sealed class DelayedDurabilityWorkload(SimRandom rng, LatencyModel latency, int sessions, double rateScale, double commitsPerSecond = 5000)
    : Workload(rng, latency, sessions, rateScale)
{
    private const int MaxBlock = 61440;
    private long _buffered;
    private long _threshold = -1;

    public override void Generate(long from, long to, SimulatedInstance instance, SimulatedDatabase db, ISampleSink sink)
    {
        var gapTicks = TimeSpan.TicksPerSecond / (commitsPerSecond * RateScale);
        while (true)
        {
            // The sessions share one log buffer: take commits in time order.
            var s = 0;
            for (var i = 1; i < Sessions; i++)
            {
                if (Next[i] < Next[s])
                {
                    s = i;
                }
            }

            var t = Next[s];
            if (t >= to)
            {
                return;
            }

            if (_threshold < 0)
            {
                _threshold = DrawThreshold();
            }

            _buffered += 300 + Rng.Next(150);
            db.WriteTransactions++;
            if (_buffered >= _threshold)
            {
                var size = (uint)Math.Min(MaxBlock, (_buffered + 511) / 512 * 512);
                _buffered = Math.Max(0, _buffered - size);
                _threshold = DrawThreshold();
                instance.Flush(db, t, size, LatencyAt(instance, t, size), 0, sink);
                if (instance.StalledTicks(t) is > 0 and var stalled)
                {
                    // Commits return before hardening, but the log buffers fill behind the stalled write: every session
                    // waits (LOGBUFFER) until the device completes it.
                    instance.LogBufferWait(stalled / 10);
                    for (var i = 0; i < Sessions; i++)
                    {
                        Next[i] = Math.Max(Next[i], t + stalled);
                    }
                }
            }

            Next[s] = Math.Max(Next[s], t + (long)(gapTicks * Rng.Between(0.8, 1.2)));
        }
    }

    // Mostly a few KB, sometimes much larger: the spread the article's histogram shows.
    private long DrawThreshold() => Rng.NextDouble() < 0.05
        ? (long)Rng.Between(16384, MaxBlock)
        : 512 + (long)(-2500 * Math.Log(1 - Rng.NextDouble()));
}

/// <summary>
/// A steady stream of log (the <c>log-full</c> and <c>log-grows</c> scenarios): one session commits a 32 KB (32,768 B)
/// transaction at a fixed pace, <paramref name="bytesPerSecond"/> times the rate scale, each commit waiting for its flush.
/// The pace is exact (no jitter), so the log grows at a known rate and a test can hold the predicted time to full against
/// the truth.
/// </summary>
internal sealed class SteadyLogWorkload(SimRandom rng, LatencyModel latency, double rateScale, long bytesPerSecond)
    : Workload(rng, latency, 1, rateScale)
{
    /// <summary>Each commit's log: 32,768 B.</summary>
    public const uint Block = 32_768;

    private long _origin;
    private long _commits;

    public override void StartAt(long ticks)
    {
        _origin = ticks;
        _commits = 0;
        Next[0] = ticks;
    }

    public override void Generate(long from, long to, SimulatedInstance instance, SimulatedDatabase db, ISampleSink sink)
    {
        var interval = TimeSpan.TicksPerSecond * (double)Block / (bytesPerSecond * RateScale);
        var t = Next[0];
        while (t < to)
        {
            var latencyUs = LatencyAt(instance, t, Block);
            instance.Flush(db, t, Block, latencyUs, latencyUs + 5, sink);
            db.WriteTransactions++;
            _commits++;
            // From the origin, not the last commit: the pace does not drift with rounding.
            t = Math.Max(t + 1, _origin + (long)Math.Round(_commits * interval));
        }

        Next[0] = t;
    }
}

/// <summary>
/// The rows of <see cref="AutocommitWorkload"/> committed in batches: the same rows a second (5,000 per session), each
/// adding 300-449 bytes of log, committed <see cref="RowsPerCommit"/> at a time. The log buffer flushes a full 60 KB block
/// (61,440 B) when a batch fills it, and the commit flushes the rest (rounded up to 512-byte sectors, ~37 KB on average)
/// and waits WRITELOG for it: ~50 commits and ~50 flushes a second per session instead of ~5,000, about the same log
/// bytes (the autocommit flushes pad every row to a sector) and one WRITELOG wait per 100 rows.
/// </summary>
internal sealed class BatchedWorkload(SimRandom rng, LatencyModel latency, int sessions, double rateScale, double rowsPerSecond = 5000)
    : Workload(rng, latency, sessions, rateScale)
{
    /// <summary>Rows committed in one transaction.</summary>
    public const int RowsPerCommit = 100;

    private const uint FullBlock = 61440;
    private readonly int[] _rowsDone = new int[sessions];
    private readonly long[] _buffered = new long[sessions];

    public override void Generate(long from, long to, SimulatedInstance instance, SimulatedDatabase db, ISampleSink sink)
    {
        var rowTicks = TimeSpan.TicksPerSecond / (rowsPerSecond * RateScale);
        for (var s = 0; s < Sessions; s++)
        {
            var t = Next[s];
            while (t < to)
            {
                _buffered[s] += 300 + Rng.Next(150);
                if (_buffered[s] >= FullBlock)
                {
                    // The buffer is full before the commit: it is written without anyone waiting for it.
                    instance.Flush(db, t, FullBlock, LatencyAt(instance, t, FullBlock), 0, sink);
                    _buffered[s] -= FullBlock;
                }

                if (++_rowsDone[s] < RowsPerCommit)
                {
                    t += (long)(rowTicks * Rng.Between(0.8, 1.2));
                    continue;
                }

                // The commit hardens what is left and waits for it.
                var size = (uint)((_buffered[s] + 511) / 512 * 512);
                var latencyUs = LatencyAt(instance, t, size);
                var waitUs = latencyUs + 3 + Rng.Next(18);
                instance.Flush(db, t, size, latencyUs, waitUs, sink);
                db.WriteTransactions++;
                _buffered[s] = 0;
                _rowsDone[s] = 0;
                t += (waitUs * 10) + (long)(rowTicks * Rng.Between(0.8, 1.2));
            }

            Next[s] = t;
        }
    }
}
