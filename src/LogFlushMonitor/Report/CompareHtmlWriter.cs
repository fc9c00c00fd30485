using System.Globalization;
using System.Text;
using System.Text.Encodings.Web;
using LogFlushMonitor.Analysis;
using LogFlushMonitor.Analysis.Compare;

namespace LogFlushMonitor.Report;

/// <summary>
/// <c>compare --format html</c>: one self-contained page, styled as <c>report</c>'s: both sides described, then per
/// database the verdict, the figures side by side and both write-size distributions on one chart.
/// </summary>
internal static class CompareHtmlWriter
{
    private static readonly CultureInfo Ci = CultureInfo.InvariantCulture;

    /// <summary>Writes the page for <paramref name="comparison"/> to <paramref name="output"/>.</summary>
    public static void Write(Comparison comparison, DateTime generatedUtc, TextWriter output)
    {
        var sb = new StringBuilder(32 * 1024);
        sb.Append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
        sb.Append("<title>Log flush comparison</title>\n<style>").Append(HtmlReportWriter.Style).Append("</style>\n</head>\n<body>\n");
        sb.Append("<header><h1>SQL Server log flushes: before and after</h1>");
        foreach (var side in new[] { comparison.Before, comparison.After })
        {
            sb.Append("<p class=\"sub\">").Append(E(CompareTextWriter.Describe(side))).Append("</p>");
        }

        sb.Append("</header>\n");
        foreach (var db in comparison.Databases)
        {
            Database(sb, db);
        }

        if (comparison.Databases.Count == 0)
        {
            sb.Append("<section class=\"notes\"><p>No database has log flush or WRITELOG events on both sides: nothing to compare.</p></section>\n");
        }

        foreach (var (label, list) in new[] { ("before", comparison.OnlyBefore), ("after", comparison.OnlyAfter) })
        {
            if (list.Count > 0)
            {
                sb.Append("<section class=\"notes\"><h2>Only ").Append(label).Append(" (not compared)</h2><ul>");
                foreach (var (instance, database) in list)
                {
                    sb.Append("<li>").Append(E(database)).Append(" on ").Append(E(instance)).Append("</li>");
                }

                sb.Append("</ul></section>\n");
            }
        }

        sb.Append("<footer>Written by <code>logflushmonitor compare</code> at ").Append(generatedUtc.ToString("yyyy-MM-dd HH:mm:ss", Ci))
            .Append(" UTC. Rates are per second of the time each side's events cover. Sizes in binary units (1 KB = 1,024 bytes).</footer>\n</body>\n</html>\n");
        output.Write(sb.ToString());
    }

    private static void Database(StringBuilder sb, DatabaseComparison db)
    {
        sb.Append("<section class=\"db\"><h2>").Append(E(db.Database)).Append(" <span class=\"sub\">on ").Append(E(db.Instance)).Append("</span></h2>");
        sb.Append("<p class=\"verdict\"><strong>Verdict:</strong> ").Append(E(db.Verdict.Text)).Append("</p>");
        sb.Append("<table class=\"files\"><thead><tr><th>figure</th><th class=\"n\">before</th><th class=\"n\">after</th><th class=\"n\">change</th></tr></thead><tbody>");
        foreach (var f in db.Figures)
        {
            sb.Append("<tr><td>").Append(E(f.Name + (f.Unit.Length > 0 ? $" ({f.Unit})" : ""))).Append("</td><td class=\"n\">").Append(E(CompareTextWriter.Value(f.Before, f.Unit)))
                .Append("</td><td class=\"n\">").Append(E(CompareTextWriter.Value(f.After, f.Unit))).Append("</td><td class=\"n\">").Append(E(CompareTextWriter.Change(f))).Append("</td></tr>");
        }

        sb.Append("</tbody></table>");
        double[] Shares(DatabaseReport r) => [.. r.Buckets.Select(b => r.Flushes > 0 ? 100.0 * b / r.Flushes : 0)];
        var chart = SvgChart.PairedBars(WriteSizeBuckets.Labels, ("before", Shares(db.Before)), ("after", Shares(db.After)),
            v => string.Create(Ci, $"{v:0.0} % of flushes"), "write size (bytes, sector-aligned buckets)", "share of flushes (%)", $"{db.Database}: write sizes before and after", axisMax: 100);
        sb.Append("<figure>").Append(chart).Append("<figcaption>Write size of each flush, before and after: the share of each side's flushes in each bucket</figcaption></figure>");
        sb.Append("</section>\n");
    }

    private static string E(string? text) => HtmlEncoder.Default.Encode(text ?? "");
}
