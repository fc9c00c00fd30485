using System.Globalization;
using LogFlushMonitor.Core.Text;

namespace LogFlushMonitor.Analysis.Compare;

/// <summary>Writes a comparison for a person: per database the figures side by side with the change, then the verdict.</summary>
internal static class CompareTextWriter
{
    private static readonly CultureInfo Ci = CultureInfo.InvariantCulture;

    /// <summary>Writes <paramref name="comparison"/> to <paramref name="output"/>.</summary>
    public static void Write(Comparison comparison, TextWriter output)
    {
        output.WriteLine("logflushmonitor compare");
        foreach (var side in new[] { comparison.Before, comparison.After })
        {
            output.WriteLine(PrintableText.Of(Describe(side)));
        }

        foreach (var db in comparison.Databases)
        {
            output.WriteLine();
            output.WriteLine(PrintableText.Of($"Database {db.Database} on {db.Instance}"));
            var rows = db.Figures.Select(f => (Name: f.Name + (f.Unit.Length > 0 ? $" ({f.Unit})" : ""), Before: Value(f.Before, f.Unit), After: Value(f.After, f.Unit), Change: Change(f))).ToList();
            var w0 = Math.Max("figure".Length, rows.Max(r => r.Name.Length));
            var w1 = Math.Max("before".Length, rows.Max(r => r.Before.Length));
            var w2 = Math.Max("after".Length, rows.Max(r => r.After.Length));
            output.WriteLine($"  {"figure".PadRight(w0)}  {"before".PadLeft(w1)}  {"after".PadLeft(w2)}  change");
            foreach (var r in rows)
            {
                output.WriteLine($"  {r.Name.PadRight(w0)}  {r.Before.PadLeft(w1)}  {r.After.PadLeft(w2)}  {r.Change}");
            }

            output.WriteLine(PrintableText.Of($"  verdict: {db.Verdict.Text}"));
        }

        if (comparison.Databases.Count == 0)
        {
            output.WriteLine();
            output.WriteLine("No database has log flush or WRITELOG events on both sides: nothing to compare.");
        }

        foreach (var (label, list) in new[] { ("before", comparison.OnlyBefore), ("after", comparison.OnlyAfter) })
        {
            if (list.Count > 0)
            {
                output.WriteLine();
                output.WriteLine(PrintableText.Of($"Only {label} (not compared): {string.Join(", ", list.Select(k => $"{k.Database} on {k.Instance}"))}"));
            }
        }
    }

    /// <summary>"before: 2 file(s), 10:00-10:30 UTC every day, 1,800.0 s of events (2026-11-22 10:00:00 to 10:30:00 UTC)".</summary>
    public static string Describe(CompareSide side)
    {
        var window = side.Window.IsAll ? "" : side.Window.IsTimeOfDay ? $", window {side.Window.Text} UTC every day" : $", window {side.Window.Text}";
        var span = side.Span is var (first, last)
            ? string.Create(Ci, $"{side.Seconds:N1} s of events ({first:yyyy-MM-dd HH:mm:ss} to {last:yyyy-MM-dd HH:mm:ss} UTC)")
            : "no events in the window";
        return string.Create(Ci, $"{side.Label}: {string.Join(" ", side.Inputs)} ({side.Report.Files.Count:N0} file(s){window}), {span}");
    }

    /// <summary>A figure's value for a person, "-" when the side cannot say.</summary>
    public static string Value(double? value, string unit) => value switch
    {
        null => "-",
        { } v when unit is "B" or "B/s" => ReportText.Bytes((long)Math.Round(v)),
        { } v when unit is "%" => v.ToString("0.0", Ci),
        { } v when unit is "ms" => VerdictRules.Ms(v).Replace(" ms", "", StringComparison.Ordinal),
        { } v when Math.Abs(v) >= 100 => v.ToString("N0", Ci),
        { } v when Math.Abs(v) >= 10 => v.ToString("0.#", Ci),
        { } v when Math.Abs(v) >= 1 => v.ToString("0.##", Ci),
        { } v => v.ToString("0.###", Ci),
    };

    /// <summary>The change as a percentage ("-99.0 %"), or "-" when it cannot be given.</summary>
    public static string Change(CompareFigure f) => f.ChangePercent is { } c ? c.ToString("+0.0;-0.0;0.0", Ci) + " %" : "-";
}
