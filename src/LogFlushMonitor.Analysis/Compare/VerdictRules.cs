using System.Globalization;

namespace LogFlushMonitor.Analysis.Compare;

/// <summary>
/// What a change did, in plain words, from the figures of both sides (docs/compare.md, "How the verdict decides"):
/// <list type="bullet">
/// <item>too little to judge: either side under <see cref="MinFlushes"/> flushes or <see cref="MinSeconds"/> seconds;</item>
/// <item>batching worked: flushes per write transaction fell at least <see cref="Factor"/>× (or, without the transaction
/// counter, flushes fell that much while the median write grew that much); commits got smaller: the reverse;</item>
/// <item>WRITELOG: gone (waits under 2 % of before while the flushes go on), else fell or rose by a third or more;</item>
/// <item>the device: flush latency p50 within ±<see cref="SameLatency"/> is unchanged ("so the device was never the
/// problem" when commits changed); lower is faster; higher is slower, unless the writes grew <see cref="Factor"/>× (a
/// larger write takes longer on the same device).</item>
/// </list>
/// </summary>
internal static class VerdictRules
{
    /// <summary>The fewest flushes a side needs for a verdict.</summary>
    public const long MinFlushes = 100;

    /// <summary>The fewest seconds a side's events must cover.</summary>
    public const double MinSeconds = 10;

    /// <summary>A change of this factor or more is a change of pattern, not noise.</summary>
    public const double Factor = 2;

    /// <summary>Flush latency within this share of before is unchanged.</summary>
    public const double SameLatency = 0.2;

    /// <summary>A change of a third or more is a change.</summary>
    public const double Changed = 1 / 3.0;

    private static readonly CultureInfo Ci = CultureInfo.InvariantCulture;

    /// <summary>The verdict for one database.</summary>
    public static CompareVerdict Judge(DatabaseReport before, DatabaseReport after, CompareSide beforeSide, CompareSide afterSide, IReadOnlyList<CompareFigure> figures)
    {
        double? B(string name) => figures.Single(f => f.Name == name).Before;
        double? A(string name) => figures.Single(f => f.Name == name).After;
        var codes = new List<string>();
        var parts = new List<string>();

        var thin = new List<string>();
        foreach (var (side, db) in new[] { (beforeSide, before), (afterSide, after) })
        {
            if (db.Flushes < MinFlushes || side.Seconds < MinSeconds)
            {
                thin.Add(string.Create(Ci, $"{side.Label} holds {db.Flushes:N0} flushes over {side.Seconds:N1} s"));
            }
        }

        if (thin.Count > 0)
        {
            return new CompareVerdict(["too-little"],
                string.Create(Ci, $"too little to judge: {string.Join(", ", thin)} (a verdict needs at least {MinFlushes:N0} flushes over {MinSeconds:N0} s on each side; widen the window or record longer)."));
        }

        // How commits use the log: fewer flushes for each write transaction, or (a transaction may carry more rows
        // after the change, which no counter sees) fewer and larger flushes for the log written.
        var commits = false;
        var fpt = B(Figures.FlushesPerTransaction) is { } fptB && A(Figures.FlushesPerTransaction) is { } fptA && fptA > 0 && fptB > 0 ? (fptB, fptA) : ((double, double)?)null;
        if (fpt is var (pb, pa) && pb / pa >= Factor)
        {
            commits = true;
            codes.Add("batching-worked");
            parts.Add(string.Create(Ci, $"batching worked: flushes per write transaction fell {pb / pa:N0}× ({pb:0.###} → {pa:0.###})"));
        }
        else if (fpt is var (qb, qa) && qa / qb >= Factor)
        {
            commits = true;
            codes.Add("commits-smaller");
            parts.Add(string.Create(Ci, $"commits got smaller: flushes per write transaction rose {qa / qb:N0}× ({qb:0.###} → {qa:0.###})"));
        }
        else if (B(Figures.FlushesPerSecond) is { } fB && A(Figures.FlushesPerSecond) is { } fA && fA > 0 && B(Figures.WriteSizeP50) is { } sB && A(Figures.WriteSizeP50) is { } sA
            && B(Figures.LogBytesPerSecond) is { } bB && A(Figures.LogBytesPerSecond) is { } bA)
        {
            var logged = string.Create(Ci, $"{Bytes(bB)}/s of log before, {Bytes(bA)}/s after");
            if (fB / fA >= Factor && sA / sB >= Factor)
            {
                commits = true;
                codes.Add("batching-worked");
                parts.Add(string.Create(Ci, $"batching worked: flushes fell {fB / fA:N0}× ({fB:N0}/s → {fA:N0}/s) and the median flush grew from {Bytes(sB)} to {Bytes(sA)} ({logged})"));
            }
            else if (fA / fB >= Factor && sB / sA >= Factor)
            {
                commits = true;
                codes.Add("commits-smaller");
                parts.Add(string.Create(Ci, $"commits got smaller: flushes rose {fA / fB:N0}× ({fB:N0}/s → {fA:N0}/s) and the median flush shrank from {Bytes(sB)} to {Bytes(sA)} ({logged})"));
            }
        }

        // What commits wait for.
        var perTransaction = B(Figures.WriteLogPerTransaction) is { } wtB && A(Figures.WriteLogPerTransaction) is { } wtA ? (wtB, wtA) : ((double, double)?)null;
        if (B(Figures.WriteLogPerSecond) is { } wB && A(Figures.WriteLogPerSecond) is { } wA && wB > 0)
        {
            var detail = string.Create(Ci, $"WRITELOG from {wB:0.###} to {wA:0.###} s waited per second")
                + (perTransaction is var (tb, ta) ? string.Create(Ci, $" ({Ms(tb)} → {Ms(ta)} per write transaction)") : "");
            // Gone: the flushes go on (a quarter of before or more) and hardly anyone waits for them.
            var gone = A(Figures.WriteLogWaitsPerSecond) is { } nA && B(Figures.WriteLogWaitsPerSecond) is { } nB && nA < nB * 0.02
                && A(Figures.FlushesPerSecond) is { } flA && B(Figures.FlushesPerSecond) is { } flB && flA >= flB / 4;
            if (gone)
            {
                codes.Add("writelog-gone");
                parts.Add($"commits no longer wait for the log ({detail}): delayed durability, or the commits went elsewhere");
            }
            else if (wA <= wB * (1 - Changed))
            {
                codes.Add("writelog-fell");
                parts.Add(wB / wA >= Factor ? string.Create(Ci, $"{detail}: {wB / wA:N0}× less") : detail);
            }
            else if (wA >= wB * (1 + Changed))
            {
                codes.Add("writelog-rose");
                parts.Add(wA / wB >= Factor ? string.Create(Ci, $"{detail}: {wA / wB:N0}× more") : detail);
            }
        }

        // The device.
        if (B(Figures.FlushLatencyP50) is { } lB && A(Figures.FlushLatencyP50) is { } lA && lB > 0)
        {
            var latency = string.Create(Ci, $"flush latency p50 {Ms(lB)} → {Ms(lA)}");
            var grew = B(Figures.WriteSizeP50) is { } gB && A(Figures.WriteSizeP50) is { } gA && gB > 0 ? gA / gB : 1;
            if (Math.Abs(lA - lB) <= lB * SameLatency)
            {
                codes.Add("device-unchanged");
                parts.Add(commits ? $"{latency}: unchanged, so the device was never the problem" : $"{latency}: unchanged");
            }
            else if (lA < lB)
            {
                codes.Add("device-faster");
                parts.Add($"{latency}: the log device (or what shares it) got faster");
            }
            else if (grew >= Factor)
            {
                codes.Add("larger-writes-slower");
                parts.Add(string.Create(Ci, $"{latency}, as expected for flushes {grew:N0}× larger: the device is not slower"));
            }
            else
            {
                codes.Add("device-slower");
                parts.Add($"{latency} with writes of about the same size: the log device got slower");
            }
        }

        // The latency budget: when the largest part of commit time is not the local flush on either side, say which it was
        // (a change of storage or of batching does not move a log-rate cap or a synchronous replica).
        var largest = (before.CommitBudget?.Largest, after.CommitBudget?.Largest);
        var budget = largest is (null, null) || (largest.Item1?.Part is null or Core.Aggregation.CommitPart.LocalFlush && largest.Item2?.Part is null or Core.Aggregation.CommitPart.LocalFlush)
            ? null
            : string.Create(Ci, $"the largest part of commit time was {Largest(largest.Item1)} before and {Largest(largest.Item2)} after");
        if (parts.Count == 0)
        {
            return new CompareVerdict(["no-change"], "no change beyond noise in flushes per transaction, write sizes, WRITELOG or flush latency"
                + (budget is null ? "." : "; " + budget + "."));
        }

        if (budget is not null)
        {
            parts.Add(budget);
        }

        var text = string.Join("; ", parts) + ".";
        return new CompareVerdict(codes, char.ToUpperInvariant(text[0]) + text[1..]);
    }

    /// <summary>Milliseconds for a person: three significant figures below 10 ms.</summary>
    public static string Ms(double ms) => ms >= 10 ? string.Create(Ci, $"{ms:N1} ms") : string.Create(Ci, $"{ms:0.###} ms");

    private static string Bytes(double bytes) => ReportText.Bytes((long)bytes);

    private static string Largest(Core.Aggregation.CommitBudgetPart? part) => part is null ? "nothing" : Core.Aggregation.CommitParts.Label(part.Part);
}
