namespace LogFlushMonitor.Simulation;

/// <summary>
/// A recurring window in which log write latency rises from the baseline to <see cref="PeakMicroseconds"/> and
/// back: it starts at <see cref="Offset"/> after the simulation start and every <see cref="Period"/> after,
/// ramps up over <see cref="Ramp"/>, holds for <see cref="Plateau"/>, then ramps down over <see cref="Ramp"/>.
/// </summary>
/// <param name="Offset">Start of the first spike, after the simulation start.</param>
/// <param name="Period">Time between spike starts.</param>
/// <param name="Ramp">Duration of each ramp.</param>
/// <param name="Plateau">Duration at the peak.</param>
/// <param name="PeakMicroseconds">Mean log write latency at the peak.</param>
internal sealed record WritelogSpike(TimeSpan Offset, TimeSpan Period, TimeSpan Ramp, TimeSpan Plateau, double PeakMicroseconds)
{
    /// <summary>How far into the spike (0 = baseline, 1 = peak) the latency is at <paramref name="sinceStart"/>.</summary>
    public double Intensity(TimeSpan sinceStart)
    {
        if (sinceStart < Offset)
        {
            return 0;
        }

        var into = (sinceStart - Offset).Ticks % Period.Ticks;
        var ramp = Ramp.Ticks;
        if (into < ramp)
        {
            return (double)into / ramp;
        }

        into -= ramp;
        if (into < Plateau.Ticks)
        {
            return 1;
        }

        into -= Plateau.Ticks;
        return into < ramp ? 1 - ((double)into / ramp) : 0;
    }
}

/// <summary>Log write latency of one database: a baseline, an optional recurring spike, jitter and a size term.</summary>
internal sealed class LatencyModel(double baseMicroseconds, WritelogSpike? spike)
{
    // About 1 GB/s of sequential log bandwidth: a 60 KB block costs ~60 µs more than a 512 B one.
    private const double MicrosecondsPerByte = 0.001;

    public double BaseMicroseconds { get; } = baseMicroseconds;

    public double MeanAt(TimeSpan sinceStart)
    {
        if (spike is null)
        {
            return BaseMicroseconds;
        }

        var k = spike.Intensity(sinceStart);
        return BaseMicroseconds + (k * (spike.PeakMicroseconds - BaseMicroseconds));
    }

    /// <summary>One write's latency in whole microseconds (whole, so recordings round-trip exactly).</summary>
    public long Sample(SimRandom rng, TimeSpan sinceStart, uint writeSize)
    {
        var mean = MeanAt(sinceStart);
        var jitter = rng.Between(0.6, 1.4);
        if (rng.NextDouble() < 0.01)
        {
            // A rare slow write, as every real log device shows.
            jitter *= 3;
        }

        return Math.Max(20, (long)((mean * jitter) + (writeSize * MicrosecondsPerByte)));
    }
}
