namespace LogFlushMonitor.Simulation;

/// <summary>
/// A small deterministic generator (xorshift128+ seeded by splitmix64). Our own rather than
/// <see cref="Random"/> so a seed gives the same workload on every runtime version.
/// </summary>
internal sealed class SimRandom
{
    private ulong _s0;
    private ulong _s1;

    public SimRandom(ulong seed)
    {
        _s0 = SplitMix(ref seed);
        _s1 = SplitMix(ref seed);
        if ((_s0 | _s1) == 0)
        {
            _s1 = 1;
        }
    }

    public ulong NextUInt64()
    {
        var s1 = _s0;
        var s0 = _s1;
        _s0 = s0;
        s1 ^= s1 << 23;
        _s1 = s1 ^ s0 ^ (s1 >> 17) ^ (s0 >> 26);
        return _s1 + s0;
    }

    /// <summary>Uniform in [0, 1).</summary>
    public double NextDouble() => (NextUInt64() >> 11) * (1.0 / (1UL << 53));

    /// <summary>Uniform in [0, max).</summary>
    public int Next(int max) => (int)(NextDouble() * max);

    /// <summary>Uniform in [low, high).</summary>
    public double Between(double low, double high) => low + (NextDouble() * (high - low));

    /// <summary>Derives a seed for one component from the run's seed and the component's position.</summary>
    public static ulong Derive(int seed, int a, int b)
    {
        var x = ((ulong)(uint)seed << 32) ^ ((ulong)(uint)a << 16) ^ (uint)b ^ 0x5DEECE66DUL;
        return SplitMix(ref x);
    }

    private static ulong SplitMix(ref ulong state)
    {
        var z = state += 0x9E3779B97F4A7C15UL;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
        return z ^ (z >> 31);
    }
}
