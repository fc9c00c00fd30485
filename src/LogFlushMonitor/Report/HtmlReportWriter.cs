using System.Globalization;
using System.Text;
using System.Text.Encodings.Web;
using LogFlushMonitor.Analysis;
using LogFlushMonitor.Core.Advice;

namespace LogFlushMonitor.Report;

/// <summary>
/// Writes the HTML report: one self-contained page (style inline, charts as inline SVG, no script, nothing fetched when
/// it is viewed) with the inputs, then per database its figures, advice, write-size distribution, flush and WRITELOG
/// rates over time, WRITELOG time waited and average wait, and WRITELOG time by application (top 5 and other). Every name from the input is HTML-encoded.
/// </summary>
internal static class HtmlReportWriter
{
    /// <summary>Time buckets a chart shows at most.</summary>
    public const int MaxBuckets = 120;

    private static readonly CultureInfo Ci = CultureInfo.InvariantCulture;

    /// <summary>Writes the page for <paramref name="report"/> and its <paramref name="series"/> to <paramref name="output"/>.</summary>
    public static void Write(AnalyzeReport report, TimeSeriesRecorder series, DateTime generatedUtc, TextWriter output)
    {
        var width = series.DisplayWidth(MaxBuckets);
        var range = series.Range;
        var sb = new StringBuilder(64 * 1024);
        sb.Append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
        sb.Append("<title>").Append(E(Title(report))).Append("</title>\n<style>").Append(Style).Append("</style>\n</head>\n<body>\n");
        Header(sb, report, range, width, generatedUtc);
        var i = 0;
        foreach (var db in report.Databases)
        {
            Database(sb, db, ++i, series.Get(db.Instance, db.DatabaseId, width));
        }

        foreach (var table in report.Signals)
        {
            Signal(sb, table);
        }

        var silent = report.Files.Where(f => f.Status == FileStatus.Ok && !f.HasRelevantEvents).ToList();
        if (silent.Count > 0)
        {
            sb.Append("<section class=\"notes\"><h2>Files without log flush events</h2><ul>");
            foreach (var f in silent)
            {
                sb.Append("<li>").Append(E(TextReportWriter.Census(f))).Append("</li>");
            }

            sb.Append("</ul></section>\n");
        }

        sb.Append("<footer>Written by <code>logflushmonitor report</code> at ").Append(generatedUtc.ToString("yyyy-MM-dd HH:mm:ss", Ci))
            .Append(" UTC. Sizes in binary units (1 KB = 1,024 bytes). Percentiles are within +10 % (the maximum is exact).</footer>\n</body>\n</html>\n");
        output.Write(sb.ToString());
    }

    /// <summary>"250 ms", "1 s", "2 min", "1 h".</summary>
    public static string Span(TimeSpan t) =>
        t.TotalSeconds < 1 ? string.Create(Ci, $"{t.TotalMilliseconds:0} ms")
        : t.TotalMinutes < 1 ? string.Create(Ci, $"{t.TotalSeconds:0.#} s")
        : t.TotalHours < 1 ? string.Create(Ci, $"{t.TotalMinutes:0.#} min")
        : t.TotalDays < 1 ? string.Create(Ci, $"{t.TotalHours:0.#} h")
        : string.Create(Ci, $"{t.TotalDays:0.#} d");

    private static string Title(AnalyzeReport report)
    {
        var names = report.Files.Select(f => Path.GetFileName(f.Path)).ToList();
        return "Log flush report: " + (names.Count == 1 ? names[0] : $"{names.Count} files");
    }

    private static void Header(StringBuilder sb, AnalyzeReport report, (DateTime First, DateTime Last)? range, TimeSpan width, DateTime generatedUtc)
    {
        sb.Append("<header><h1>SQL Server log flushes</h1><p class=\"sub\">");
        if (range is { } r)
        {
            sb.Append(Ci, $"{r.First:yyyy-MM-dd HH:mm:ss} to {r.Last:yyyy-MM-dd HH:mm:ss} UTC ({Span(r.Last - r.First)}), charts in steps of {Span(width)}, ");
        }

        sb.Append(Ci, $"{report.Databases.Count:N0} database(s), {report.Files.Count:N0} input file(s). Generated {generatedUtc:yyyy-MM-dd HH:mm} UTC.</p></header>\n");

        sb.Append("<section class=\"overview\"><div class=\"cards\">");
        Card(sb, "log flushes", Num(report.Files.Sum(f => f.FlushStarts)), "log_flush_start events");
        Card(sb, "flush completions", Num(report.Files.Sum(f => f.FlushCompletes)), "log_flush_complete events");
        Card(sb, "WRITELOG waits", Num(report.Files.Sum(f => f.WriteLogWaits)), "completed waits");
        Card(sb, "events lost", Num(report.TotalLost), "event_sequence gaps", report.TotalLost > 0 ? "warn" : null);
        Card(sb, "events read", Num(report.TotalEvents), Bytes(report.TotalBytes) + " of input");
        sb.Append("</div>\n<table class=\"files\"><thead><tr><th>input</th><th>status</th><th class=\"n\">size</th><th class=\"n\">events</th><th class=\"n\">lost</th><th>problem</th></tr></thead><tbody>");
        foreach (var f in report.Files)
        {
            var ok = f.Status == FileStatus.Ok;
            var problem = f.Status switch
            {
                FileStatus.Ok => TextReportWriter.TailNote(f).TrimStart(';', ' '),
                FileStatus.Damaged => TextReportWriter.DamageSummary(f),
                _ => f.Error + (f.ErrorOffset is { } o ? string.Create(Ci, $" (byte offset {o:N0}); the {f.Events:N0} events before it are counted") : ""),
            };
            sb.Append(Ci, $"<tr><td><code>{E(f.Path)}</code></td><td class=\"{(ok ? "ok" : "bad")}\">{StatusText(f.Status)}</td><td class=\"n\">{Bytes(f.Bytes)}</td>");
            sb.Append(Ci, $"<td class=\"n\">{f.Events:N0}</td><td class=\"n\">{f.EventsLost:N0}</td><td>{E(problem)}</td></tr>");
        }

        foreach (var skipped in report.Skipped)
        {
            sb.Append(Ci, $"<tr><td><code>{E(skipped.Path)}</code></td><td class=\"bad\">skipped</td><td class=\"n\"></td><td class=\"n\"></td><td class=\"n\"></td><td>{E(skipped.Reason)}</td></tr>");
        }

        sb.Append("</tbody></table>");
        if (report.Databases.Count > 1)
        {
            sb.Append("<nav><h2>Databases</h2><ol>");
            var i = 0;
            foreach (var db in report.Databases)
            {
                var advice = db.Advice.Count > 0 ? " — " + E(db.Advice[0].Code) : "";
                sb.Append(Ci, $"<li><a href=\"#db-{++i}\">{E(Name(db))}</a> <span class=\"muted\">{db.Flushes:N0} flushes{advice}</span></li>");
            }

            sb.Append("</ol></nav>");
        }

        sb.Append("</section>\n");
    }

    private static void Database(StringBuilder sb, DatabaseReport db, int index, DatabaseTimeSeries? series)
    {
        sb.Append(Ci, $"<section class=\"db\" id=\"db-{index}\"><h2>{E(db.Database)}");
        if (db.Instance != AnalyzeRunner.InstanceName)
        {
            sb.Append(" <span class=\"muted\">on ").Append(E(db.Instance)).Append("</span>");
        }

        sb.Append(Ci, $" <span class=\"muted\">database_id {db.DatabaseId}</span></h2>\n");
        if (db.FirstEventUtc is { } first && db.LastEventUtc is { } last)
        {
            sb.Append(Ci, $"<p class=\"sub\">{first:yyyy-MM-dd HH:mm:ss.fff} to {last:yyyy-MM-dd HH:mm:ss.fff} UTC ({Span(last - first)})</p>");
        }

        sb.Append("<div class=\"cards\">");
        Card(sb, "flushes", Num(db.Flushes), db.FlushesPerSecond is { } r ? string.Create(Ci, $"{r:N1} per second") : "no rate (a single instant)");
        Card(sb, "average flush", db.AverageFlushBytes is { } a ? Bytes((long)Math.Round(a)) : "n/a", Bytes(db.Bytes) + " in all");
        Card(sb, "512 B flushes", Pct(db.SingleSectorShare), "single-sector: one per small commit", db.SingleSectorShare >= 0.8 ? "warn" : null);
        Card(sb, "full 60 KB blocks", Pct(db.FullBlockShare), "the log buffer filled");
        if (db.FlushDuration is { } d)
        {
            Card(sb, "flush duration p95", Ms(d.P95Ms), string.Create(Ci, $"p50 {Ms(d.P50Ms)}, max {Ms(d.MaxMs)}"));
        }

        if (db.WriteLog is { } w)
        {
            Card(sb, "WRITELOG wait p95", Ms(w.P95Ms), string.Create(Ci, $"{w.Count:N0} waits, average {Ms(w.MeanMs)}, max {Ms(w.MaxMs)}"), w.P95Ms > 10 ? "warn" : null);
        }

        sb.Append("</div>\n<div class=\"advice\">");
        if (db.Advice.Count == 0)
        {
            var why = db.Flushes < Advisor.MinFlushes ? string.Create(Ci, $"fewer than {Advisor.MinFlushes} flushes to judge write sizes") : "nothing stands out";
            sb.Append("<p class=\"info\"><b>Advice:</b> none (").Append(E(why)).Append(").</p>");
        }

        foreach (var item in db.Advice)
        {
            sb.Append(Ci, $"<p class=\"{(item.Level == AdviceLevel.Warning ? "warning" : "info")}\"><b>Advice:</b> {E(item.Text)}</p>");
        }

        sb.Append("</div>\n<div class=\"charts\">");
        Figure(sb, "Write size of each flush", db.Flushes == 0 ? null : WriteSizes(db));
        if (series is not null)
        {
            var n = series.Count;
            var rates = new List<ChartSeries> { new("log flushes/s", [.. Enumerable.Range(0, n).Select(series.FlushesPerSecond)], "s1") };
            if (db.WriteLog is not null)
            {
                rates.Add(new("WRITELOG waits/s", [.. Enumerable.Range(0, n).Select(series.WaitsPerSecond)], "s2"));
            }

            Figure(sb, "Flushes and WRITELOG waits over time", SvgChart.Time(series.Start, series.Width, rates, "per second", $"{db.Database}: flushes per second over time"));
            if (db.WriteLog is not null)
            {
                Figure(sb, "WRITELOG pressure: time spent waiting", SvgChart.Time(series.Start, series.Width,
                    [new("seconds waited per second", [.. Enumerable.Range(0, n).Select(series.WaitSecondsPerSecond)], "s3")],
                    "seconds waited per second (all sessions)", $"{db.Database}: WRITELOG seconds waited per second"));
                Figure(sb, "Average WRITELOG wait", SvgChart.Time(series.Start, series.Width,
                    [new("average wait (ms)", [.. Enumerable.Range(0, n).Select(series.AverageWaitMs)], "s4")],
                    "milliseconds per wait", $"{db.Database}: average WRITELOG wait"));
                Applications(sb, db, series);
            }
            else
            {
                Figure(sb, "WRITELOG waits", null, "No WRITELOG waits recorded for this database: its commits did not wait on the log (delayed durability), or the session does not capture sqlos.wait_completed.");
            }
        }

        sb.Append("</div></section>\n");
    }

    /// <summary>WRITELOG time by application over time (the client_app_name action), bounded as the metric is: top 5 and other.</summary>
    private static void Applications(StringBuilder sb, DatabaseReport db, DatabaseTimeSeries series)
    {
        const string Caption = "WRITELOG time by application";
        if (series.WaitsWithApplication == 0)
        {
            Figure(sb, Caption, null, "The session did not collect client_app_name: add the sqlserver.client_app_name action to the wait event (wait_completed or wait_info) to see which applications wait on the log.");
            return;
        }

        var n = series.Count;
        var apps = series.Applications;
        var lines = apps.Select((a, i) => new ChartSeries(a.Application, [.. Enumerable.Range(0, n).Select(b => series.WaitSecondsPerSecond(a, b))], "s" + (i + 1).ToString(Ci))).ToList();
        // The table below is the legend: six names of up to 257 characters do not fit above a 560 px chart.
        var chart = SvgChart.Time(series.Start, series.Width, lines, "seconds waited per second", $"{db.Database}: WRITELOG seconds waited per second by application", legend: false);
        var total = apps.Sum(a => a.TotalSeconds);
        var table = new StringBuilder("<table class=\"files apps\"><thead><tr><th>application</th><th class=\"n\">WRITELOG time</th><th class=\"n\">share</th></tr></thead><tbody>");
        foreach (var (a, line) in apps.Zip(lines))
        {
            table.Append(Ci, $"<tr><td><svg class=\"swatch\" width=\"12\" height=\"12\" aria-hidden=\"true\"><rect class=\"key {line.CssClass}\" width=\"12\" height=\"12\"/></svg> {E(a.Application)}</td><td class=\"n\">{a.TotalSeconds:0.000} s</td><td class=\"n\">{Pct(total > 0 ? a.TotalSeconds / total : 0)}</td></tr>");
        }

        table.Append("</tbody></table>");
        var without = series.WriteLogWaits.Sum() - series.WaitsWithApplication;
        if (without > 0)
        {
            table.Append(Ci, $"<p class=\"muted\">{without:N0} WRITELOG wait(s) without the client_app_name action (from a session that did not collect it) are not in this chart.</p>");
        }

        Figure(sb, Caption, chart + table);
    }

    private static string WriteSizes(DatabaseReport db)
    {
        var shares = db.Buckets.Select(c => 100.0 * c / db.Flushes).ToList();
        var labels = shares.Select(p => p is > 0 and < 0.1 ? "<0.1 %" : string.Create(Ci, $"{p:0.#} %")).ToList();
        var tips = db.Buckets.Select((c, i) => string.Create(Ci, $"{c:N0} flushes, {labels[i]}")).ToList();
        return SvgChart.Bars(WriteSizeBuckets.Labels, shares, labels, tips, "write size (bytes, sector-aligned buckets)", "share of flushes (%)", $"{db.Database}: write-size distribution", axisMax: 100);
    }

    /// <summary>A polled signal's table from a recording (at most <see cref="TextReportWriter.MaxSignalRows"/> rows; JSON has them all).</summary>
    private static void Signal(StringBuilder sb, Core.Signals.SignalTable table)
    {
        sb.Append("<section class=\"signal\"><h2>").Append(E(table.Title)).Append("</h2><table class=\"files\"><thead><tr>");
        var numeric = table.Columns.Select((_, c) => table.Rows.Any(r => r[c] is long or int or double)).ToArray();
        for (var c = 0; c < table.Columns.Count; c++)
        {
            var column = table.Columns[c];
            sb.Append(numeric[c] ? "<th class=\"n\">" : "<th>").Append(E(column.Name + (column.Unit.Length > 0 ? $" ({column.Unit})" : ""))).Append("</th>");
        }

        sb.Append("</tr></thead><tbody>");
        foreach (var row in table.Rows.Take(TextReportWriter.MaxSignalRows))
        {
            sb.Append("<tr>");
            for (var c = 0; c < row.Count; c++)
            {
                sb.Append(numeric[c] ? "<td class=\"n\">" : "<td>").Append(E(Core.Signals.SignalTable.Format(row[c]))).Append("</td>");
            }

            sb.Append("</tr>");
        }

        sb.Append("</tbody></table>");
        if (table.Rows.Count > TextReportWriter.MaxSignalRows)
        {
            sb.Append("<p class=\"note\">").Append(E(string.Create(Ci, $"... and {table.Rows.Count - TextReportWriter.MaxSignalRows:N0} more rows (analyze --format json lists them all)"))).Append("</p>");
        }

        foreach (var note in table.Notes)
        {
            sb.Append("<p class=\"note\">").Append(E(note)).Append("</p>");
        }

        sb.Append("</section>\n");
    }

    private static void Figure(StringBuilder sb, string caption, string? svg, string? empty = null)
    {
        sb.Append("<figure><figcaption>").Append(E(caption)).Append("</figcaption>");
        sb.Append(svg ?? $"<p class=\"empty\">{E(empty ?? "No log_flush_start events: write sizes unknown.")}</p>");
        sb.Append("</figure>");
    }

    private static void Card(StringBuilder sb, string label, string value, string detail, string? css = null) =>
        sb.Append(Ci, $"<div class=\"card{(css is null ? "" : " " + css)}\"><div class=\"label\">{E(label)}</div><div class=\"value\">{E(value)}</div><div class=\"detail\">{E(detail)}</div></div>");

    private static string Name(DatabaseReport db) => db.Instance == AnalyzeRunner.InstanceName ? db.Database : $"{db.Instance} / {db.Database}";

    private static string StatusText(FileStatus status) => status switch
    {
        FileStatus.Ok => "ok",
        FileStatus.Corrupt => "corrupt",
        FileStatus.Damaged => "damaged",
        FileStatus.UnsupportedVersion => "unsupported version",
        _ => "unreadable",
    };

    private static string E(string? text) => HtmlEncoder.Default.Encode(text ?? "");

    private static string Num(long n) => n.ToString("N0", Ci);

    private static string Pct(double share) => string.Create(Ci, $"{share * 100:0.0} %");

    private static string Ms(double? ms) => ReportText.Ms(ms);

    private static string Bytes(long bytes) => ReportText.Bytes(bytes);

    internal const string Style = """
        :root { --ink:#1d2330; --muted:#5b6478; --line:#d8dde6; --bg:#f6f7f9; --s1:#2f6fb3; --s2:#e07b24; --s3:#c0392b; --s4:#7b4fa0; --s5:#1e8c7e; --s6:#7f8c8d; }
        * { box-sizing: border-box; }
        section.signal { overflow-x: auto; }
        body { margin: 0; padding: 24px 32px 48px; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; color: var(--ink); background: var(--bg); }
        h1 { font-size: 24px; margin: 0 0 4px; }
        h2 { font-size: 19px; margin: 0 0 4px; }
        .sub, .muted { color: var(--muted); font-weight: normal; }
        .sub { margin: 0 0 14px; }
        section { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 18px 20px; margin: 16px 0; }
        .cards { display: flex; flex-wrap: wrap; gap: 10px; margin: 6px 0 12px; }
        .card { min-width: 150px; padding: 8px 12px; border: 1px solid var(--line); border-left: 4px solid var(--s1); border-radius: 6px; background: #fbfcfd; }
        .card.warn { border-left-color: var(--s2); }
        .card .label { font-size: 12px; color: var(--muted); text-transform: uppercase; letter-spacing: .03em; }
        .card .value { font-size: 20px; font-weight: 600; }
        .card .detail { font-size: 12px; color: var(--muted); }
        table.files { border-collapse: collapse; width: 100%; margin: 8px 0; font-size: 13px; }
        table.files th, table.files td { border-bottom: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
        table.files .n { text-align: right; white-space: nowrap; }
        td.ok { color: #1e7b34; } td.bad { color: var(--s3); font-weight: 600; }
        nav ol { margin: 4px 0; padding-left: 22px; columns: 2; }
        .advice p { margin: 4px 0; padding: 6px 10px; border-radius: 4px; }
        .advice .warning { background: #fff4e5; border-left: 4px solid var(--s2); }
        .advice .info { background: #eef4fb; border-left: 4px solid var(--s1); }
        .charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(560px, 1fr)); gap: 14px; margin-top: 10px; }
        figure { margin: 0; }
        figcaption { font-weight: 600; margin-bottom: 2px; }
        .empty { color: var(--muted); font-style: italic; padding: 40px 0; }
        svg.chart { background: #fff; }
        svg .grid { stroke: #eceff3; }
        svg .axis { stroke: #8a93a3; }
        svg text { font: 11px system-ui, sans-serif; fill: var(--muted); }
        svg .title { fill: var(--ink); font-size: 12px; }
        svg .legend { fill: var(--ink); }
        svg .value { fill: var(--ink); font-size: 10px; }
        svg .value.inside { fill: #fff; font-weight: 600; }
        svg .bar.s1 { fill: var(--s1); } svg .bar.s2 { fill: var(--s2); }
        svg .area { fill-opacity: .35; stroke-width: 1.5; }
        svg path.line { fill: none; stroke-width: 2; stroke-dasharray: 5 3; }
        svg .s1 { fill: var(--s1); stroke: var(--s1); } svg .s2 { fill: var(--s2); stroke: var(--s2); }
        svg .s3 { fill: var(--s3); stroke: var(--s3); } svg .s4 { fill: var(--s4); stroke: var(--s4); }
        svg .s5 { fill: var(--s5); stroke: var(--s5); } svg .s6 { fill: var(--s6); stroke: var(--s6); }
        svg .key { fill-opacity: .8; }
        svg.swatch { vertical-align: -1px; margin-right: 4px; }
        footer { color: var(--muted); font-size: 12px; margin-top: 24px; }
        code { font-size: 12px; }
        """;
}
