using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Signals;

namespace LogFlushMonitor.Analysis.Compare;

/// <summary>One side of a comparison: its inputs, its window, what analyze made of them, and the seconds its events cover.</summary>
/// <param name="Label">"before" or "after".</param>
/// <param name="Inputs">The inputs as given.</param>
/// <param name="Window">The part of their time that counts.</param>
/// <param name="Report">What analyze made of them (in the window).</param>
/// <param name="Seconds">From the side's first event to its last, over every database (what the rates are per).</param>
/// <param name="WriteTransactions">Write Transactions/sec increase per (instance, database name), where the input holds the counter.</param>
internal sealed record CompareSide(
    string Label,
    IReadOnlyList<string> Inputs,
    TimeWindow Window,
    AnalyzeReport Report,
    double Seconds,
    IReadOnlyDictionary<(string Instance, string Database), CumulativeFigure> WriteTransactions)
{
    /// <summary>The side's first and last event time (null without events).</summary>
    public (DateTime First, DateTime Last)? Span { get; init; }
}

/// <summary>One figure of a database on both sides.</summary>
/// <param name="Name">What it is, stable (JSON consumers match on it).</param>
/// <param name="Unit">Its unit as a person reads it.</param>
/// <param name="Before">The figure before, or null when that side cannot say.</param>
/// <param name="After">The figure after, or null.</param>
internal sealed record CompareFigure(string Name, string Unit, double? Before, double? After)
{
    /// <summary>The change in % of the figure before; null when either side cannot say or the figure before is 0.</summary>
    public double? ChangePercent => Before is { } b && After is { } a && b != 0 ? (a - b) / Math.Abs(b) * 100 : null;
}

/// <summary>What the change did to one database: stable codes and one paragraph for a person.</summary>
/// <param name="Codes">What the verdict found, stable: <c>too-little</c>, <c>batching-worked</c>, <c>commits-smaller</c>, <c>writelog-gone</c>, <c>writelog-fell</c>, <c>writelog-rose</c>, <c>device-unchanged</c>, <c>device-faster</c>, <c>device-slower</c>, <c>larger-writes-slower</c>, <c>no-change</c>.</param>
/// <param name="Text">The verdict in plain words.</param>
internal sealed record CompareVerdict(IReadOnlyList<string> Codes, string Text);

/// <summary>One database found on both sides.</summary>
internal sealed record DatabaseComparison(string Instance, string Database, IReadOnlyList<CompareFigure> Figures, CompareVerdict Verdict, DatabaseReport Before, DatabaseReport After)
{
    /// <summary>The figure named <paramref name="name"/>.</summary>
    public CompareFigure this[string name] => Figures.Single(f => f.Name == name);
}

/// <summary>The whole comparison.</summary>
internal sealed record Comparison(CompareSide Before, CompareSide After, IReadOnlyList<DatabaseComparison> Databases, IReadOnlyList<(string Instance, string Database)> OnlyBefore, IReadOnlyList<(string Instance, string Database)> OnlyAfter);

/// <summary>The figures' names: one place, for the writers, the verdict and the tests.</summary>
internal static class Figures
{
    public const string FlushesPerSecond = "flushes per second";
    public const string LogBytesPerSecond = "log bytes per second";
    public const string WriteTransactionsPerSecond = "write transactions per second";
    public const string FlushesPerTransaction = "flushes per write transaction";
    public const string LogBytesPerTransaction = "log bytes per write transaction";
    public const string SingleSectorShare = "share of 512-byte flushes";
    public const string WriteSizeP50 = "median write size";
    public const string WriteSizeP99 = "99th percentile write size";
    public const string FlushLatencyP50 = "flush latency p50";
    public const string FlushLatencyP99 = "flush latency p99";
    public const string WriteLogPerSecond = "WRITELOG seconds per second";
    public const string WriteLogWaitsPerSecond = "WRITELOG waits per second";
    public const string WriteLogPerTransaction = "WRITELOG per write transaction";
    public const string WriteLogMean = "average WRITELOG wait";
    public const string CommitWaitPerSecond = "commit wait seconds per second";
    public const string CommitWaitPerTransaction = "commit wait per write transaction";

    /// <summary>The prefix of a part's own figure: "commit wait per second: log-rate cap".</summary>
    public const string CommitPartPrefix = "commit wait per second: ";

    /// <summary>The counter a write transaction is counted by (Databases object, cumulative).</summary>
    public const string WriteTransactionsCounter = "Write Transactions/sec";

    /// <summary>The figures of one database on one side, in the order they are shown.</summary>
    public static IReadOnlyList<(string Name, string Unit, double? Value)> Of(DatabaseReport? db, CompareSide side)
    {
        var seconds = side.Seconds;
        double? PerSecond(double v) => db is null || seconds < 1 ? null : v / seconds;
        // The counter's own rate: its increase over the time between its first and last poll in the window (the polls
        // are 15 s apart, the events continuous), null when the window holds fewer than two polls a second apart.
        double? wtx = db is not null && side.WriteTransactions.TryGetValue((db.Instance, db.Database), out var w) ? w.PerSecond : null;
        var flushes = PerSecond(db?.Flushes ?? 0);
        var bytes = PerSecond(db?.Bytes ?? 0);
        var writeLogSeconds = db?.WriteLog is { } wl ? wl.Count * wl.MeanMs / 1000 : 0;
        var writeLog = PerSecond(writeLogSeconds);
        return
        [
            (FlushesPerSecond, "/s", flushes),
            (LogBytesPerSecond, "B/s", bytes),
            (WriteTransactionsPerSecond, "/s", wtx),
            (FlushesPerTransaction, "", wtx is > 0 ? flushes / wtx : null),
            (LogBytesPerTransaction, "B", wtx is > 0 ? bytes / wtx : null),
            (SingleSectorShare, "%", db is { Flushes: > 0 } ? db.SingleSectorShare * 100 : null),
            (WriteSizeP50, "B", db?.WriteSizeP50),
            (WriteSizeP99, "B", db?.WriteSizeP99),
            (FlushLatencyP50, "ms", db?.FlushDuration?.P50Ms),
            (FlushLatencyP99, "ms", db?.FlushDuration?.P99Ms),
            (WriteLogPerSecond, "s/s", writeLog),
            (WriteLogWaitsPerSecond, "/s", PerSecond(db?.WriteLog?.Count ?? 0)),
            (WriteLogPerTransaction, "ms", wtx is > 0 && writeLog is { } wps ? wps / wtx.Value * 1000 : null),
            (WriteLogMean, "ms", db?.WriteLog?.MeanMs),
        ];
    }

    /// <summary>
    /// The latency budget where the inputs have it (the commit-time waits of the events: WRITELOG, HADR_SYNC_COMMIT,
    /// LOGBUFFER, the log-rate governor's forms): the whole per second and per write transaction, then each part other
    /// than the local flush (WRITELOG's own figures above) that either side waited on, per second. None when neither side's
    /// events hold a commit wait.
    /// </summary>
    public static IEnumerable<CompareFigure> Budget(DatabaseReport before, DatabaseReport after, CompareSide beforeSide, CompareSide afterSide)
    {
        var (b, a) = (before.CommitBudget, after.CommitBudget);
        if (b is not { TotalSeconds: > 0 } && a is not { TotalSeconds: > 0 })
        {
            yield break;
        }

        static double? PerSecond(CommitBudgetSnapshot? budget, double seconds, Func<CommitBudgetSnapshot, double> take) =>
            seconds < 1 ? null : (budget is null ? 0 : take(budget)) / seconds;
        static double? PerTransaction(CommitBudgetSnapshot? budget, DatabaseReport db, CompareSide side) =>
            side.WriteTransactions.TryGetValue((db.Instance, db.Database), out var w) && w.PerSecond is > 0 and var wtx && side.Seconds >= 1
                ? (budget?.TotalSeconds ?? 0) / side.Seconds / wtx * 1000 : null;

        yield return new CompareFigure(CommitWaitPerSecond, "s/s", PerSecond(b, beforeSide.Seconds, x => x.TotalSeconds), PerSecond(a, afterSide.Seconds, x => x.TotalSeconds));
        yield return new CompareFigure(CommitWaitPerTransaction, "ms", PerTransaction(b, before, beforeSide), PerTransaction(a, after, afterSide));
        var parts = (b?.Parts ?? []).Concat(a?.Parts ?? []).Where(p => p.Seconds > 0 && p.Part != CommitPart.LocalFlush).Select(p => p.Part).Distinct().Order();
        foreach (var part in parts)
        {
            double Of(CommitBudgetSnapshot s) => s.Parts.Where(p => p.Part == part).Sum(p => p.Seconds);
            yield return new CompareFigure(CommitPartPrefix + CommitParts.Label(part), "s/s", PerSecond(b, beforeSide.Seconds, Of), PerSecond(a, afterSide.Seconds, Of));
        }
    }
}
