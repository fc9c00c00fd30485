using LogFlushMonitor.Core.Samples;

namespace LogFlushMonitor.Simulation;

/// <summary>
/// A bulk load under Azure's log-rate governor: each session writes full 60 KB log blocks in transactions of
/// <see cref="BlocksPerTransaction"/> blocks, wanting <paramref name="quietBytesPerSecond"/> outside the load windows of
/// <paramref name="load"/> and <paramref name="loadBytesPerSecond"/> at their peak (ramping in between). The governor admits log at the cap, first come first served (the
/// sessions are taken in time order): a block beyond it waits LOG_RATE_GOVERNOR until its bytes are admitted, so the
/// database writes at most the cap however hard the sessions push. Each commit flushes the rest and waits WRITELOG.
/// </summary>
internal sealed class GovernedLoadWorkload(SimRandom rng, LatencyModel latency, int sessions, double rateScale, long capBytesPerSecond,
    double quietBytesPerSecond, double loadBytesPerSecond, WritelogSpike load)
    : Workload(rng, latency, sessions, rateScale)
{
    /// <summary>Blocks per transaction (about 1 MB of log).</summary>
    public const int BlocksPerTransaction = 16;

    private const uint FullBlock = 61440;
    private const double BurstTicks = TimeSpan.TicksPerMillisecond * 100.0;
    private readonly int[] _blocks = new int[sessions];

    /// <summary>When the governor admits the next byte (ticks): a FIFO server of the cap's rate.</summary>
    private double _admitTicks;

    public override void Generate(long from, long to, SimulatedInstance instance, SimulatedDatabase db, ISampleSink sink)
    {
        var ticksPerByte = TimeSpan.TicksPerSecond / (double)(capBytesPerSecond * RateScale);
        // The burst is 100 ms of the unscaled cap in bytes (~16 blocks), whatever the RateScale: scaled in time, at 0.02 it
        // was less than one 60 KB block, and every block of a load far under the cap waited (a golden recorded 5.3 s of
        // log-rate cap per commit of it).
        var burst = BurstTicks / TimeSpan.TicksPerSecond * capBytesPerSecond * ticksPerByte;
        while (true)
        {
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

            var intensity = load.Intensity(TimeSpan.FromTicks(t - instance.SimulationStartTicks));
            var want = (quietBytesPerSecond + (intensity * (loadBytesPerSecond - quietBytesPerSecond))) * RateScale;
            var size = ++_blocks[s] % BlocksPerTransaction == 0 ? (uint)(512 * (1 + Rng.Next(119))) : FullBlock;

            // The governor: this block's bytes are admitted once those before them are, less a burst of 100 ms at the cap
            // (governance is enforced "at the subsecond level"): under the cap nobody waits; over it, the session waits.
            _admitTicks = Math.Max(t, _admitTicks) + (size * ticksPerByte);
            var governedUs = (long)((_admitTicks - burst - t) / 10);
            if (governedUs > 0)
            {
                instance.GovernorWait(db, t, governedUs, sink);
                t += governedUs * 10;
            }

            var latencyUs = LatencyAt(instance, t, size);
            var commit = size != FullBlock;
            var waitUs = commit ? latencyUs + 3 + Rng.Next(18) : 0;
            instance.Flush(db, t, size, latencyUs, waitUs, sink);
            if (commit)
            {
                db.WriteTransactions++; // Write Transactions/sec counts the commit (the full blocks before it are its log)
            }

            // The session's own pace (what it wants to write), the commit's wait included.
            t += (waitUs * 10) + (long)(size / want * TimeSpan.TicksPerSecond * Rng.Between(0.9, 1.1));
            Next[s] = t;
        }
    }
}
