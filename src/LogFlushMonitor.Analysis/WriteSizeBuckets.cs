using LogFlushMonitor.Core.Aggregation;

namespace LogFlushMonitor.Analysis;

/// <summary>
/// The report's write-size buckets: sector-aligned steps that separate the flush causes (512 B commits,
/// mid-size batches, full 60 KB log blocks) in ten rows, derived from the exact 512-byte distribution.
/// </summary>
internal static class WriteSizeBuckets
{
    /// <summary>Inclusive upper bounds in bytes; the last bucket (&gt; 60 KB) has none.</summary>
    public static readonly IReadOnlyList<uint> UpperBounds = [512, 1024, 2048, 4096, 8192, 16384, 32768, 49152, WriteSizeDistribution.MaxBlockBytes];

    /// <summary>Labels for the terminal, one per bucket (the last is the overflow bucket).</summary>
    public static readonly IReadOnlyList<string> Labels = ["≤512 B", "≤1 KB", "≤2 KB", "≤4 KB", "≤8 KB", "≤16 KB", "≤32 KB", "≤48 KB", "≤60 KB", ">60 KB"];

    /// <summary>Number of buckets (bounds plus the overflow bucket).</summary>
    public static int Count => Labels.Count;

    /// <summary>Flushes per bucket.</summary>
    public static long[] Compute(WriteSizeDistribution sizes)
    {
        var counts = new long[Count];
        long below = 0;
        for (var i = 0; i < UpperBounds.Count; i++)
        {
            var atMost = sizes.CountAtMost(UpperBounds[i]);
            counts[i] = atMost - below;
            below = atMost;
        }

        counts[^1] = sizes.Count - below;
        return counts;
    }
}
