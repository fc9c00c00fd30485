using System.Globalization;
using LogFlushMonitor.Core.Advice;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Text;
using LogFlushMonitor.XEvent.Binary;
using Spectre.Console;

namespace LogFlushMonitor.Analysis;

/// <summary>Writes the report for a person: per database a write-size histogram as bars, the figures and the advice.</summary>
internal static class TextReportWriter
{
    private const int BarWidth = 40;
    private static readonly CultureInfo Ci = CultureInfo.InvariantCulture;

    /// <summary>Writes <paramref name="report"/> to <paramref name="output"/> (colours only when it is a terminal).</summary>
    public static void Write(AnalyzeReport report, TextWriter output)
    {
        // Colours only on a real terminal: files, pipes and test harnesses get plain text.
        var terminal = Commands.CommandOutput.OutIsTerminal(output);
        var console = AnsiConsole.Create(new AnsiConsoleSettings
        {
            Out = new AnsiConsoleOutput(output),
            Ansi = terminal ? AnsiSupport.Detect : AnsiSupport.No,
            ColorSystem = terminal ? ColorSystemSupport.Detect : ColorSystemSupport.NoColors,
            Interactive = InteractionSupport.No,
        });
        if (!terminal)
        {
            // Files and pipes get whole lines: an advice or census line must not be wrapped at 80 columns.
            console.Profile.Width = 4096;
        }

        WriteHeader(console, report);
        // A recording of several instances holds databases of one name and id on each: say whose each one is.
        var instances = report.Databases.Select(d => d.Instance).Distinct(StringComparer.Ordinal).Count() > 1;
        foreach (var db in report.Databases)
        {
            console.WriteLine();
            WriteDatabase(console, db, instances);
        }

        if (NoApplicationNote(report.Databases) is { } note)
        {
            console.WriteLine();
            console.WriteLine(PrintableText.Of(note));
        }

        foreach (var table in report.Signals)
        {
            console.WriteLine();
            WriteSignal(console, table);
        }

        var silent = report.Files.Where(f => !f.HasRelevantEvents && f.Status == FileStatus.Ok).ToList();
        if (silent.Count > 0)
        {
            console.WriteLine();
        }

        foreach (var f in silent)
        {
            console.WriteLine(PrintableText.Of(Census(f)));
        }
    }

    /// <summary>"X holds no … It holds: …": what a file without log flush events holds instead.</summary>
    public static string Census(FileReport f)
    {
        var parts = f.OtherEvents.OrderByDescending(kv => kv.Value).ThenBy(kv => kv.Key, StringComparer.Ordinal)
            .Select(kv => string.Create(Ci, $"{kv.Value:N0} {kv.Key}"))
            .Concat(f.OtherWaits.OrderByDescending(kv => kv.Value).ThenBy(kv => kv.Key, StringComparer.Ordinal)
                .Select(kv => string.Create(Ci, $"{kv.Value:N0} {kv.Key} waits")))
            .ToList();
        var holds = f.Events == 0 ? "It holds no events at all."
            : string.Create(Ci, $"It holds: {string.Join(", ", parts)} ({f.Events:N0} events in all).");
        return $"{Path.GetFileName(f.Path)} holds no log_flush_start, log_flush_complete or WRITELOG wait events. {holds}";
    }

    private static void WriteHeader(IAnsiConsole console, AnalyzeReport report)
    {
        var seconds = report.Elapsed.TotalSeconds;
        var rate = seconds > 0 ? report.TotalBytes / seconds : 0;
        console.MarkupLine(string.Create(Ci,
            $"[bold]logflushmonitor analyze[/]: {report.Files.Count:N0} file(s), {Bytes(report.TotalBytes)}, {report.TotalEvents:N0} events, read in {seconds:0.00} s ({Bytes((long)rate)}/s)"));
        console.WriteLine(string.Create(Ci,
            $"  {report.Files.Sum(f => f.FlushStarts):N0} log_flush_start, {report.Files.Sum(f => f.FlushCompletes):N0} log_flush_complete, {report.Files.Sum(f => f.WriteLogWaits):N0} WRITELOG waits; events lost (event_sequence gaps): {report.TotalLost:N0}"));
        if (report.TotalBytesSkipped > 0 || report.TotalMalformed > 0)
        {
            console.MarkupLine(string.Create(Ci,
                $"  [red]damage[/]: {report.TotalBytesSkipped:N0} bytes skipped, {report.TotalMalformed:N0} malformed events skipped; the figures below miss their events"));
        }

        foreach (var f in report.Files)
        {
            var line = f.Status switch
            {
                FileStatus.Ok => string.Create(Ci, $"  [green]ok[/]       {Safe(f.Path)} ({Bytes(f.Bytes)}, {f.Events:N0} events, {f.EventsLost:N0} lost){Safe(TailNote(f))}"),
                FileStatus.Damaged => string.Create(Ci, $"  [red]damaged[/]  {Safe(f.Path)} ({Bytes(f.Bytes)}, {f.Events:N0} events, {f.EventsLost:N0} lost): {Safe(DamageSummary(f))}"),
                _ => string.Create(Ci, $"  [red]{StatusText(f.Status)}[/]  {Safe(f.Path)}: {Safe(f.Error ?? "")} at byte offset {(f.ErrorOffset is { } o ? o.ToString(Ci) : "?")} ({f.Events:N0} events before it are counted)"),
            };
            console.MarkupLine(line);
        }

        foreach (var s in report.Skipped)
        {
            console.MarkupLine($"  [yellow]skipped[/]  {Safe(s.Reason)}");
        }
    }

    /// <summary>
    /// What was skipped in a damaged file, for a person: bytes skipped (the first ranges with offset and problem) and
    /// malformed events (the first with offset and value).
    /// </summary>
    public static string DamageSummary(FileReport f)
    {
        var parts = new List<string>();
        if (f.Damage.Count > 0)
        {
            var first = f.Damage[0];
            parts.Add(string.Create(Ci,
                $"{f.BytesSkipped:N0} bytes skipped in {f.Damage.Count:N0} range(s), the first {first.Length:N0} bytes at byte offset {first.Offset} ({first.Problem}, at byte offset {first.ProblemOffset})"));
        }

        if (f.MalformedEvents > 0)
        {
            var first = f.Malformed.Count > 0 ? string.Create(Ci, $", the first at byte offset {f.Malformed[0].Offset}: {f.Malformed[0].Problem}") : "";
            parts.Add(string.Create(Ci, $"{f.MalformedEvents:N0} malformed event(s) skipped{first}"));
        }

        if (parts.Count == 0 && f.Error is { } error)
        {
            parts.Add(error);
        }

        return string.Join("; ", parts);
    }

    /// <summary>" (tail: …)" when the data ended in zeros or an incomplete buffer, else empty.</summary>
    public static string TailNote(FileReport f) => f.Tail switch
    {
        XelTailKind.Zeros => string.Create(Ci, $"; ends in {f.TailBytes:N0} bytes of zeros (preallocated space)"),
        XelTailKind.IncompleteBuffer => string.Create(Ci,
            $"; its last {f.TailBytes:N0} bytes from byte offset {f.TailOffset} are an incomplete buffer (a file being written, or cut), not read"),
        _ => "",
    };

    private static void WriteDatabase(IAnsiConsole console, DatabaseReport db, bool instances)
    {
        var on = instances ? $" on instance {Safe(db.Instance)}" : "";
        console.MarkupLine(string.Create(Ci, $"[bold]Database {Safe(db.Database)}[/] (id {db.DatabaseId}){on}"));
        if (db.Flushes > 0)
        {
            console.WriteLine(string.Create(Ci,
                $"  flushes: {db.Flushes:N0}, {Bytes(db.Bytes)}, average {db.AverageFlushBytes:N0} B; single-sector (512 B) flushes: {db.SingleSectorShare * 100:0.0} %; full 60 KB blocks: {db.FullBlockShare * 100:0.0} %"));
        }
        else
        {
            console.WriteLine("  no log_flush_start events: write sizes unknown");
        }

        if (db.FirstEventUtc is { } first && db.LastEventUtc is { } last)
        {
            var rate = db.FlushesPerSecond is { } r ? string.Create(Ci, $", {r:N1} flushes/s") : "";
            console.WriteLine(string.Create(Ci, $"  time range: {first:yyyy-MM-dd HH:mm:ss.fff} to {last:yyyy-MM-dd HH:mm:ss.fff} UTC ({db.SpanSeconds:N1} s){rate}"));
        }

        if (db.Flushes > 0)
        {
            console.Write(Histogram(db, console.Profile.Capabilities.Unicode));
        }

        if (db.FlushDuration is { } d)
        {
            console.WriteLine(string.Create(Ci,
                $"  flush duration ({d.Count:N0} log_flush_complete): p50 {Ms(d.P50Ms)}, p95 {Ms(d.P95Ms)}, p99 {Ms(d.P99Ms)}, max {Ms(d.MaxMs)}"));
        }

        if (db.WriteLog is { } w)
        {
            console.WriteLine(string.Create(Ci, $"  WRITELOG waits: {w.Count:N0}, average {Ms(w.MeanMs)}, p95 {Ms(w.P95Ms)}, max {Ms(w.MaxMs)}"));
        }

        if (db.WriteLogBusiestWindow is { } m)
        {
            console.WriteLine(string.Create(Ci,
                $"  busiest WRITELOG {m.Length.TotalSeconds:0} s: from {m.StartUtc:yyyy-MM-dd HH:mm:ss} UTC{(m.Span < m.Length ? $" (events cover {m.Span.TotalSeconds:0.#} s of it)" : "")}, {m.Waits:N0} waits, average {Ms(m.MeanSeconds * 1000)}, {m.PressureSecondsPerSecond:0.##} s waiting per second"));
        }

        if (db.WriteLogByApplication.Count > 0)
        {
            console.WriteLine("  " + ByApplication(db));
        }

        if (db.WriteLogByStatement.Count > 0)
        {
            foreach (var line in ByStatement(db))
            {
                console.WriteLine("  " + line);
            }
        }

        if (db.CommitBudget is { Largest: { } largest } budget && budget.Text() is { } commitTime)
        {
            console.WriteLine($"  commit time (wait events): {Printable(commitTime)}; largest part: {CommitParts.Label(largest.Part)}");
        }

        if (db.Storage is { } storage)
        {
            console.WriteLine($"  storage: {Printable(storage.Text)}");
        }

        if (db.Advice.Count == 0)
        {
            var why = db.Flushes < Advisor.MinFlushes ? string.Create(Ci, $"fewer than {Advisor.MinFlushes} flushes to judge write sizes") : "nothing stands out";
            console.WriteLine($"  advice: none ({why})");
        }

        foreach (var a in db.Advice)
        {
            var colour = a.Level == AdviceLevel.Warning ? "yellow" : "blue";
            console.MarkupLine($"  [{colour}]advice:[/] {Safe(a.Text)}");
        }
    }

    /// <summary>
    /// "WRITELOG by application: A 12.3 s (80 %), …, other 0.9 s (6 %)", and the waits that carried no client_app_name
    /// when some did not (shares are of the database's whole WRITELOG time, so those make up the rest).
    /// </summary>
    public static string ByApplication(DatabaseReport db)
    {
        var apps = string.Join(", ", db.WriteLogByApplication.Select(a => $"{Printable(a.Name)} {Seconds(a.Seconds)} ({Percent(a.Share)})"));
        var without = (db.WriteLog?.Count ?? 0) - db.WriteLogWaitsWithApplication;
        var rest = without > 0
            ? string.Create(Ci, $"; {without:N0} WRITELOG wait(s) ({Percent(Math.Max(0, 1 - db.WriteLogByApplication.Sum(a => a.Share)))}) carried no client_app_name")
            : "";
        return $"WRITELOG by application: {apps}{rest}";
    }

    /// <summary>
    /// "WRITELOG by statement: 0x… 12.3 s (80 %), …, other 0.9 s (6 %)", the waits that carried no query_hash when some
    /// did not, then one line per statement whose text the recording's Query Store rows gave (its first 200 characters,
    /// printable).
    /// </summary>
    public static IEnumerable<string> ByStatement(DatabaseReport db)
    {
        var statements = string.Join(", ", db.WriteLogByStatement.Select(a => $"{Printable(a.Name)} {Seconds(a.Seconds)} ({Percent(a.Share)})"));
        var without = (db.WriteLog?.Count ?? 0) - db.WriteLogWaitsWithStatement;
        var rest = without > 0
            ? string.Create(Ci, $"; {without:N0} WRITELOG wait(s) ({Percent(Math.Max(0, 1 - db.WriteLogByStatement.Sum(a => a.Share)))}) carried no query_hash")
            : "";
        yield return $"WRITELOG by statement: {statements}{rest}";
        foreach (var a in db.WriteLogByStatement.Where(a => a.Text is not null))
        {
            yield return $"  {Printable(a.Name)}: {Printable(a.Text!)}";
        }
    }

    /// <summary>
    /// Once per report: which databases had WRITELOG waits that named no application, and how to get the names;
    /// null when every database with waits has some named.
    /// </summary>
    public static string? NoApplicationNote(IReadOnlyList<DatabaseReport> databases)
    {
        var without = databases.Where(d => d.WriteLog is { Count: > 0 } && d.WriteLogWaitsWithApplication == 0).Select(d => d.Database).ToList();
        if (without.Count == 0)
        {
            return null;
        }

        const int Named = 5;
        var names = string.Join(", ", without.Take(Named).Select(Printable))
            + (without.Count > Named ? string.Create(Ci, $" and {without.Count - Named:N0} more") : "");
        return $"note: the WRITELOG waits of {names} carried no client application, so the report cannot say which applications waited. "
            + "Add the sqlserver.client_app_name action to the session's wait event (sqlos.wait_completed or sqlos.wait_info), "
            + "as docs/analyze.md shows (\"What the session should capture\"); an NDJSON recording gives it as its wait lines' app field.";
    }

    /// <summary>Seconds for the application line: one decimal from 0.1 s, else up to three.</summary>
    private static string Seconds(double s) => s >= 0.1 ? string.Create(Ci, $"{s:N1} s") : string.Create(Ci, $"{s:0.###} s");

    /// <summary>A share as a whole percentage; "&lt;1 %" rather than "0 %" for a share that is not nothing.</summary>
    private static string Percent(double share) => share > 0 && share < 0.005 ? "<1 %" : string.Create(Ci, $"{share * 100:0} %");

    /// <summary>A name from the input on one line: control characters (a line break in an application name) shown as U+FFFD.</summary>
    /// <summary>A name (or text holding names) from the input, safe for a terminal (<see cref="PrintableText"/>).</summary>
    private static string Printable(string name) => PrintableText.Of(name);

    /// <summary>Text from the input for a markup line: printable, and markup-escaped.</summary>
    private static string Safe(string text) => Markup.Escape(PrintableText.Of(text));

    /// <summary>The most rows of a signal's table a person gets on the terminal; JSON has them all.</summary>
    public const int MaxSignalRows = 50;

    /// <summary>A polled signal's table from a recording: its heading, its rows (at most <see cref="MaxSignalRows"/>), its notes.</summary>
    private static void WriteSignal(IAnsiConsole console, Core.Signals.SignalTable signal)
    {
        console.MarkupLine($"[bold]{Markup.Escape(signal.Title)}[/]");
        var table = new Table { Border = TableBorder.None, ShowHeaders = true };
        for (var c = 0; c < signal.Columns.Count; c++)
        {
            var column = signal.Columns[c];
            var heading = (c == 0 ? "  " : "") + column.Name + (column.Unit.Length > 0 ? $" ({column.Unit})" : "");
            var numeric = signal.Rows.Any(r => r[c] is long or int or double);
            var tableColumn = new TableColumn(Markup.Escape(heading));
            table.AddColumn(numeric ? tableColumn.RightAligned() : tableColumn);
        }

        foreach (var row in signal.Rows.Take(MaxSignalRows))
        {
            table.AddRow([.. row.Select((cell, c) => (Spectre.Console.Rendering.IRenderable)new Text((c == 0 ? "  " : "") + Printable(Core.Signals.SignalTable.Format(cell))))]);
        }

        console.Write(table);
        if (signal.Rows.Count > MaxSignalRows)
        {
            console.WriteLine(string.Create(Ci, $"  ... and {signal.Rows.Count - MaxSignalRows:N0} more rows (--format json lists them all)"));
        }

        foreach (var note in signal.Notes)
        {
            console.WriteLine("  " + note);
        }
    }

    private static Table Histogram(DatabaseReport db, bool unicode)
    {
        var table = new Table { Border = TableBorder.None, ShowHeaders = true };
        table.AddColumn(new TableColumn("  write size").RightAligned());
        table.AddColumn(new TableColumn("").NoWrap());
        table.AddColumn(new TableColumn("flushes").RightAligned());
        table.AddColumn(new TableColumn("share").RightAligned());
        for (var i = 0; i < db.Buckets.Count; i++)
        {
            var share = (double)db.Buckets[i] / db.Flushes;
            table.AddRow(
                new Text(WriteSizeBuckets.Labels[i]),
                new Markup("[green]" + Bar(share, unicode) + "[/]"),
                new Text(db.Buckets[i].ToString("N0", Ci)),
                new Text(string.Create(Ci, $"{share * 100:0.0} %")));
        }

        return table;
    }

    /// <summary>A bar of <see cref="BarWidth"/> cells for 100 %; any non-empty bucket shows at least a sliver.</summary>
    private static string Bar(double share, bool unicode)
    {
        var cells = (int)Math.Round(share * BarWidth);
        if (cells == 0 && share > 0)
        {
            return unicode ? "▏" : "|";
        }

        return new string(unicode ? '█' : '#', cells);
    }

    private static string StatusText(FileStatus status) => status switch
    {
        FileStatus.Corrupt => "corrupt",
        FileStatus.Damaged => "damaged",
        FileStatus.UnsupportedVersion => "version",
        _ => "unreadable",
    };

    private static string Ms(double? ms) => ReportText.Ms(ms);

    private static string Bytes(long bytes) => ReportText.Bytes(bytes);
}
