using System.Globalization;

namespace LogFlushMonitor.Core.XEvents;

/// <summary>How the unit of log_flush_complete.duration was settled, with its evidence (logged once).</summary>
/// <param name="Unit">The unit the fallback now uses.</param>
/// <param name="Pairs">Pairs (a start and its complete) whose duration field was not 0, the evidence.</param>
/// <param name="MedianRatio">Median of pair time in microseconds over the field's value: near 1000 means milliseconds, near 1 microseconds.</param>
/// <param name="Previous">The unit used before (the description's, else milliseconds).</param>
public sealed record DurationUnitDecision(DurationUnit Unit, long Pairs, double MedianRatio, DurationUnit Previous)
{
    /// <summary>A sentence for a log line or a report.</summary>
    public override string ToString()
    {
        var before = Unit == Previous ? "" : $" (it was read as {DurationUnits.Name(Previous)} until now)";
        return string.Create(CultureInfo.InvariantCulture,
            $"log_flush_complete.duration is in {DurationUnits.Name(Unit)}: {Pairs:N0} start/complete pairs, median of (pair time in µs / duration field) {MedianRatio:0.###}{before}");
    }
}

/// <summary>
/// Settles the unit of a duration field from flushes whose start and complete were both seen: for each pair whose
/// field is not 0, the ratio of the time between the two events (in microseconds) to the field's value. A median ratio
/// near 1000 means the field counts milliseconds, near 1 microseconds; anything else settles nothing (the field is then
/// read in the unit the description names, else milliseconds). The ratios are kept in a fixed histogram of log10
/// buckets 0.05 wide, so evidence merges exactly (analyze's workers) and costs no allocation per pair.
/// </summary>
/// <remarks>Not thread-safe: one per reading thread, merged afterwards.</remarks>
public sealed class DurationUnitEvidence
{
    /// <summary>Pairs needed before the unit is settled.</summary>
    public const int PairsToSettle = 100;

    /// <summary>Pairs kept at most (later ones change nothing once a unit is clear: the histogram stops growing).</summary>
    public const int MaxPairs = 4096;

    private const double LowLog = -4; // ratio 0.0001
    private const double Step = 0.05;
    private const int Buckets = 200; // up to 10^6
    private readonly int[] _counts = new int[Buckets];

    /// <summary>Pairs counted (field not 0).</summary>
    public long Pairs { get; private set; }

    /// <summary>Whether more pairs would still be kept.</summary>
    public bool WantsMore => Pairs < MaxPairs;

    /// <summary>Adds one pair: <paramref name="pairTicks"/> between start and complete, the complete's raw <paramref name="field"/>.</summary>
    public void Add(long pairTicks, ulong field)
    {
        if (field == 0 || pairTicks <= 0 || Pairs >= MaxPairs)
        {
            return;
        }

        var ratio = pairTicks / 10.0 / field;
        var bucket = (int)Math.Floor((Math.Log10(ratio) - LowLog) / Step);
        _counts[Math.Clamp(bucket, 0, Buckets - 1)]++;
        Pairs++;
    }

    /// <summary>Adds another reader's evidence.</summary>
    public void AddFrom(DurationUnitEvidence other)
    {
        ArgumentNullException.ThrowIfNull(other);
        for (var i = 0; i < Buckets; i++)
        {
            _counts[i] += other._counts[i];
        }

        Pairs += other.Pairs;
    }

    /// <summary>The median ratio (the centre of its bucket), or NaN without pairs.</summary>
    public double MedianRatio()
    {
        if (Pairs == 0)
        {
            return double.NaN;
        }

        long seen = 0;
        for (var i = 0; i < Buckets; i++)
        {
            seen += _counts[i];
            if (seen * 2 >= Pairs)
            {
                return Math.Pow(10, LowLog + ((i + 0.5) * Step));
            }
        }

        return double.NaN;
    }

    /// <summary>
    /// The unit the pairs show once there are <paramref name="minPairs"/> of them: milliseconds for a median ratio
    /// between 250 and 4000, microseconds between 0.25 and 4; null otherwise (too few pairs, or a ratio that names
    /// neither unit: the fallback then keeps what it had).
    /// </summary>
    public DurationUnitDecision? Decide(DurationUnit previous, int minPairs = PairsToSettle)
    {
        if (Pairs < minPairs)
        {
            return null;
        }

        var median = MedianRatio();
        DurationUnit? unit = median is >= 250 and <= 4000 ? DurationUnit.Milliseconds
            : median is >= 0.25 and <= 4 ? DurationUnit.Microseconds
            : null;
        return unit is { } u ? new DurationUnitDecision(u, Pairs, median, previous) : null;
    }
}
