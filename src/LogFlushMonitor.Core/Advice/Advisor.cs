using System.Globalization;
using LogFlushMonitor.Core.Aggregation;

namespace LogFlushMonitor.Core.Advice;

/// <summary>How urgent a piece of advice is.</summary>
public enum AdviceLevel
{
    /// <summary>Worth knowing.</summary>
    Info,

    /// <summary>Commits are likely paying for it.</summary>
    Warning,
}

/// <summary>One plain-language finding about a database's log flushing, with the figure it rests on.</summary>
/// <param name="Code">Stable identifier for scripts (e.g. single-sector-flushes).</param>
/// <param name="Level">Urgency.</param>
/// <param name="Text">One line for a person.</param>
public sealed record AdviceItem(string Code, AdviceLevel Level, string Text);

/// <summary>
/// Turns a database's statistics into the advice the articles support (DOMAIN.md §1 and §5). Every rule
/// needs enough data to speak: below <see cref="MinFlushes"/> flushes, the write-size rules stay silent.
/// </summary>
public static class Advisor
{
    /// <summary>Flushes needed before the write-size rules speak.</summary>
    public const int MinFlushes = 100;

    /// <summary>Flushes per second below which row-at-a-time commits cost too little to mention.</summary>
    public const double MinFlushesPerSecond = 50;

    /// <summary>Latency above which log writes are a bottleneck (Microsoft's I/O guide: 10-15 ms consistently).</summary>
    public const double SlowLogWriteSeconds = 0.010;

    /// <summary>The advice for one database, most important first.</summary>
    public static IReadOnlyList<AdviceItem> Advise(DatabaseSnapshot db)
    {
        var list = new List<AdviceItem>();
        var ci = CultureInfo.InvariantCulture;
        var n = db.WriteSizes.Count;
        if (n >= MinFlushes)
        {
            var single = (double)db.WriteSizes.CountAtMost(512) / n;
            var full = (double)db.WriteSizes[WriteSizeDistribution.SlotOf(WriteSizeDistribution.MaxBlockBytes)] / n;
            // A rate needs a time span; without one (a single instant), the shape alone speaks.
            var busy = db.EventSpanSeconds <= 0 || n / db.EventSpanSeconds >= MinFlushesPerSecond;
            if (single >= 0.8 && busy)
            {
                list.Add(new("single-sector-flushes", AdviceLevel.Warning, string.Create(ci,
                    $"{single * 100:0} % of flushes are 512 B: commits are row-at-a-time; batch them into larger transactions or consider delayed durability")));
            }
            else if (full >= 0.5)
            {
                list.Add(new("full-block-flushes", AdviceLevel.Info, string.Create(ci,
                    $"{full * 100:0} % of flushes are full 60 KB log blocks: large transactions fill the log buffer; flush sizes are already as large as they get")));
            }
        }

        var writelog = db.Waits.FirstOrDefault(w => w.WaitType == "WRITELOG");
        if (writelog is { Count: >= 20 } && writelog.P95Seconds > SlowLogWriteSeconds)
        {
            list.Add(new("slow-writelog", AdviceLevel.Warning, string.Create(ci,
                $"WRITELOG p95 is {writelog.P95Seconds * 1000:0.#} ms, over the 10-15 ms bottleneck line: commits wait on the log device; check its latency or reduce the number of commits")));
        }

        if (db.LogWriteLatencySeconds is { } latency && latency > SlowLogWriteSeconds)
        {
            list.Add(new("slow-log-writes", AdviceLevel.Warning, string.Create(ci,
                $"log writes take {latency * 1000:0.#} ms on average (io_stall_write_ms / writes): the log device is slow; SSD/NVMe log writes take well under 1 ms")));
        }

        return list;
    }
}
