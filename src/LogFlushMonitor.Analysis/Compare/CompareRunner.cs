using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;

namespace LogFlushMonitor.Analysis.Compare;

/// <summary>What <c>compare</c> is asked to do.</summary>
internal sealed record CompareSettings
{
    /// <summary>The inputs before the change (as analyze takes them).</summary>
    public required IReadOnlyList<string> Before { get; init; }

    /// <summary>The inputs after the change.</summary>
    public required IReadOnlyList<string> After { get; init; }

    /// <summary>The part of the inputs before that counts.</summary>
    public TimeWindow BeforeWindow { get; init; } = TimeWindow.All;

    /// <summary>The part of the inputs after that counts.</summary>
    public TimeWindow AfterWindow { get; init; } = TimeWindow.All;

    /// <summary>How analyze reads each side (threads, progress); its inputs and window are the side's.</summary>
    public required AnalyzeSettings Reading { get; init; }
}

/// <summary>Reads both sides with analyze's reader and lays their databases side by side (docs/compare.md).</summary>
internal static class CompareRunner
{
    /// <summary>
    /// The comparison, or null (with the problem on <paramref name="stderr"/>) when an input names nothing. A side's
    /// damaged or unreadable files are read as far as they go and reported by <see cref="AnalyzeRunner.WriteProblems"/>.
    /// </summary>
    public static Comparison? Run(CompareSettings settings, TextWriter stderr, CancellationToken cancellationToken)
    {
        if (!AnalyzeRunner.TryExpand(settings.Before, stderr, out var beforeGroups, out var beforeSkipped)
            || !AnalyzeRunner.TryExpand(settings.After, stderr, out var afterGroups, out var afterSkipped))
        {
            return null;
        }

        var before = Side("before", settings.Before, settings.BeforeWindow, beforeGroups, beforeSkipped, settings.Reading, stderr, cancellationToken);
        var after = Side("after", settings.After, settings.AfterWindow, afterGroups, afterSkipped, settings.Reading, stderr, cancellationToken);
        return Compare(before, after);
    }

    /// <summary>The databases of both sides matched by instance and name, each with its figures and verdict.</summary>
    public static Comparison Compare(CompareSide before, CompareSide after)
    {
        static (string, string) Key(DatabaseReport d) => (d.Instance, d.Database);
        var afterByKey = after.Report.Databases.GroupBy(Key).ToDictionary(g => g.Key, g => g.First());
        var beforeKeys = before.Report.Databases.Select(Key).ToHashSet();
        var databases = new List<DatabaseComparison>();
        foreach (var b in before.Report.Databases)
        {
            if (!afterByKey.TryGetValue(Key(b), out var a) || databases.Any(d => (d.Instance, d.Database) == Key(b)))
            {
                continue;
            }

            var figures = Figures.Of(b, before).Zip(Figures.Of(a, after), (x, y) => new CompareFigure(x.Name, x.Unit, x.Value, y.Value))
                .Concat(Figures.Budget(b, a, before, after)).ToList();
            databases.Add(new DatabaseComparison(b.Instance, b.Database, figures, VerdictRules.Judge(b, a, before, after, figures), b, a));
        }

        return new Comparison(before, after, databases,
            [.. before.Report.Databases.Select(Key).Where(k => !afterByKey.ContainsKey(k)).Distinct()],
            [.. after.Report.Databases.Select(Key).Where(k => !beforeKeys.Contains(k)).Distinct()]);
    }

    private static CompareSide Side(string label, IReadOnlyList<string> inputs, TimeWindow window, IReadOnlyList<IReadOnlyList<string>> groups,
        IReadOnlyList<XEvent.Binary.XelSkippedEntry> skipped, AnalyzeSettings reading, TextWriter stderr, CancellationToken cancellationToken)
    {
        var transactions = new Dictionary<(string Instance, string Database), CumulativeFigure>();
        void OnSignal(SignalBatch batch)
        {
            if (batch is not SignalBatch<CounterRow> counters)
            {
                return;
            }

            foreach (var row in counters.Rows)
            {
                if (row.CounterName == Figures.WriteTransactionsCounter && row.ObjectName == DatabasesCounters.Object)
                {
                    var key = (batch.Instance, row.CounterInstance);
                    var figure = transactions.GetValueOrDefault(key);
                    figure.Add(row.Value, batch.TimestampUtc);
                    transactions[key] = figure;
                }
            }
        }

        var settings = reading with { Inputs = inputs, Window = window, OnSignal = OnSignal, ProgressLabel = $"compare ({label})" };
        var report = AnalyzeRunner.Analyze(settings, groups, stderr, cancellationToken, skipped: skipped);
        var firsts = report.Databases.Select(d => d.FirstEventUtc).OfType<DateTime>().ToList();
        var lasts = report.Databases.Select(d => d.LastEventUtc).OfType<DateTime>().ToList();
        (DateTime, DateTime)? span = firsts.Count > 0 && lasts.Count > 0 ? (firsts.Min(), lasts.Max()) : null;
        var seconds = span is var (first, last) ? (last - first).TotalSeconds : 0;
        return new CompareSide(label, inputs, window, report, seconds, transactions) { Span = span };
    }
}
