using System.CommandLine;
using System.Globalization;
using LogFlushMonitor.Analysis;
using LogFlushMonitor.Analysis.Commands;
using LogFlushMonitor.Core.Text;
using LogFlushMonitor.Report;

namespace LogFlushMonitor.Commands;

/// <summary>
/// <c>logflushmonitor report</c>: analyze's reading and aggregation, written as one self-contained HTML page with
/// charts (docs/analyze.md, "report"). Exit codes as analyze: 0, 2 usage, 3 no relevant events, 4 a corrupt input (the
/// report still covers the good ones), 1 when the page cannot be written.
/// </summary>
internal static class ReportCommand
{
    public static Command Create()
    {
        var inputs = new Argument<string[]>("inputs")
        {
            Arity = ArgumentArity.OneOrMore,
            Description = ".xel files, folders (their *.xel files), globs such as /path/session*.xel, or NDJSON recordings (simulate --out).",
        };
        var output = new Option<FileInfo>("--out") { Description = "The HTML file to write.", Required = true };
        var progress = new Option<string>("--progress") { Description = "Progress lines on stderr: auto, always or never.", DefaultValueFactory = _ => "auto" };
        var threads = AnalyzeCommand.ThreadsOption();
        var command = new Command("report", "Write an HTML report of .xel files or an NDJSON recording: per database the write-size distribution, flush and WRITELOG rates over time, lost events and advice.")
        {
            inputs, output, progress, threads,
        };
        command.SetAction(async (parse, cancellationToken) =>
        {
            var progressMode = parse.GetValue(progress)?.ToLowerInvariant() switch
            {
                "auto" => ProgressMode.Auto,
                "always" => ProgressMode.Always,
                "never" => ProgressMode.Never,
                _ => (ProgressMode?)null,
            };
            if (progressMode is null)
            {
                await parse.Error().WriteLineAsync($"--progress '{parse.GetValue(progress)}' is not known. Use auto, always or never.").ConfigureAwait(false);
                return ExitCodes.Configuration;
            }

            if (AnalyzeCommand.ThreadsProblem(parse.GetValue(threads)) is { } threadsProblem)
            {
                await parse.Error().WriteLineAsync(threadsProblem).ConfigureAwait(false);
                return ExitCodes.Configuration;
            }

            var settings = new AnalyzeSettings
            {
                Inputs = parse.GetValue(inputs) ?? [],
                Progress = progressMode.Value,
                StdErrIsTerminal = parse.ErrorIsTerminal(),
                ProgressLabel = "report",
                Threads = parse.GetValue(threads),
            };
            var file = parse.GetValue(output)!;
            return await AnalyzeCommand.RunCancellableAsync(token => Run(settings, file, parse.Out(), parse.Error(), token), "report: cancelled; no report written.", parse.Error(), ExitCodes.Failure, cancellationToken).ConfigureAwait(false);
        });
        return command;
    }

    /// <summary>Reads, writes the page to <paramref name="file"/>, reports to <paramref name="stdout"/> and <paramref name="stderr"/>; returns the exit code.</summary>
    public static int Run(AnalyzeSettings settings, FileInfo file, TextWriter stdout, TextWriter stderr, CancellationToken cancellationToken) =>
        Run(settings, file, stdout, stderr, cancellationToken, path => new FileStream(path, FileMode.Create, FileAccess.Write, FileShare.None));

    /// <summary>As above; <paramref name="create"/> opens the temporary file (a test gives one that fills up).</summary>
    internal static int Run(AnalyzeSettings settings, FileInfo file, TextWriter stdout, TextWriter stderr, CancellationToken cancellationToken, Func<string, Stream> create)
    {
        if (!AnalyzeRunner.TryExpand(settings.Inputs, stderr, out var groups, out var skipped))
        {
            return ExitCodes.Configuration;
        }

        var series = new TimeSeriesRecorder();
        var report = AnalyzeRunner.Analyze(settings, groups, stderr, cancellationToken, series, skipped);
        AnalyzeRunner.WriteProblems(report, stderr, "the other inputs are in the report");

        // Written beside the target and moved into place: a viewer never sees half a page, and a write that fails
        // (a full disk) leaves neither a cut page nor the temporary file behind.
        var temporary = TemporaryFile.For(file.FullName);
        try
        {
            file.Directory?.Create();
            using (var writer = new StreamWriter(create(temporary), new System.Text.UTF8Encoding(false)))
            {
                HtmlReportWriter.Write(report, series, settings.Time.GetUtcNow().UtcDateTime, writer);
            }

            File.Move(temporary, file.FullName, overwrite: true);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            TemporaryFile.Delete(temporary);
            stderr.WriteLine(PrintableText.Of($"error: cannot write {file.FullName}: {e.Message}"));
            return ExitCodes.Failure;
        }

        foreach (var f in report.HasRelevantEvents ? [] : report.Files.Where(f => f.Status == FileStatus.Ok))
        {
            stderr.WriteLine(PrintableText.Of(TextReportWriter.Census(f)));
        }

        stdout.WriteLine(PrintableText.Of(string.Create(CultureInfo.InvariantCulture,
            $"report: wrote {file.FullName} ({report.Databases.Count:N0} database(s), {report.TotalEvents:N0} events from {report.Files.Count:N0} file(s), {report.TotalLost:N0} lost).")));
        return ExitCodes.Of(report.Outcome);
    }
}
