using System.CommandLine;
using LogFlushMonitor.Analysis;
using LogFlushMonitor.Analysis.Commands;
using LogFlushMonitor.Analysis.Compare;
using LogFlushMonitor.Core.Text;
using LogFlushMonitor.Report;

namespace LogFlushMonitor.Commands;

/// <summary>
/// <c>logflushmonitor compare BEFORE AFTER</c>: analyze's reading of two inputs (or two windows of one), laid side by
/// side per database with the change and a verdict in plain words (docs/compare.md). Exit codes: 0 compared, 2 usage,
/// 3 a side holds no log flush or WRITELOG events (nothing to compare), 4 an input is damaged or unreadable (what it
/// holds is still compared), 1 when the page cannot be written.
/// </summary>
internal static class CompareCommand
{
    public static Command Create()
    {
        var before = new Argument<string>("before") { Description = "The input before the change: a .xel file, a folder, a glob or an NDJSON recording." };
        var after = new Argument<string>("after") { Description = "The input after the change (the same input with two windows compares two times of one recording)." };
        var beforeWindow = new Option<string?>("--before-window") { Description = "The part of BEFORE that counts: HH:MM-HH:MM (UTC, every day) or FROM/TO in ISO 8601." };
        var afterWindow = new Option<string?>("--after-window") { Description = "The part of AFTER that counts, as --before-window." };
        var format = new Option<string>("--format") { Description = "text, json or html (html needs --out).", DefaultValueFactory = _ => "text" };
        var output = new Option<FileInfo?>("--out") { Description = "Write the comparison to this file instead of stdout (the HTML page needs one)." };
        var progress = new Option<string>("--progress") { Description = "Progress lines on stderr: auto, always or never.", DefaultValueFactory = _ => "auto" };
        var threads = AnalyzeCommand.ThreadsOption();
        var command = new Command("compare", "Compare two inputs (before and after a change) per database: flushes, write sizes, flush latency and WRITELOG side by side, and a verdict on what the change did.")
        {
            before, after, beforeWindow, afterWindow, format, output, progress, threads,
        };
        command.SetAction(async (parse, cancellationToken) =>
        {
            var problems = new List<string>();
            var windows = new TimeWindow[2];
            foreach (var (option, i) in new[] { (beforeWindow, 0), (afterWindow, 1) })
            {
                windows[i] = TimeWindow.All;
                if (parse.GetValue(option) is { } text && !TimeWindow.TryParse(text, option.Name, out windows[i], out var problem))
                {
                    problems.Add(problem!);
                }
            }

            var kind = parse.GetValue(format)?.ToLowerInvariant();
            if (kind is not ("text" or "json" or "html"))
            {
                problems.Add($"--format '{parse.GetValue(format)}' is not known. Use text, json or html.");
            }

            var file = parse.GetValue(output);
            if (kind == "html" && file is null)
            {
                problems.Add("--format html needs --out FILE: the page is written to a file.");
            }

            var progressMode = parse.GetValue(progress)?.ToLowerInvariant() switch
            {
                "auto" => ProgressMode.Auto,
                "always" => ProgressMode.Always,
                "never" => ProgressMode.Never,
                _ => (ProgressMode?)null,
            };
            if (progressMode is null)
            {
                problems.Add($"--progress '{parse.GetValue(progress)}' is not known. Use auto, always or never.");
            }

            if (AnalyzeCommand.ThreadsProblem(parse.GetValue(threads)) is { } threadsProblem)
            {
                problems.Add(threadsProblem);
            }

            if (problems.Count > 0)
            {
                foreach (var p in problems)
                {
                    await parse.Error().WriteLineAsync(PrintableText.Of(p)).ConfigureAwait(false);
                }

                return ExitCodes.Configuration;
            }

            var settings = new CompareSettings
            {
                Before = [parse.GetValue(before)!],
                After = [parse.GetValue(after)!],
                BeforeWindow = windows[0],
                AfterWindow = windows[1],
                Reading = new AnalyzeSettings
                {
                    Inputs = [],
                    Progress = progressMode!.Value,
                    StdErrIsTerminal = parse.ErrorIsTerminal(),
                    Threads = parse.GetValue(threads),
                },
            };
            return await AnalyzeCommand.RunCancellableAsync(
                token => Run(settings, kind!, file, parse.Out(), parse.Error(), token), "compare: cancelled; nothing written.", parse.Error(), ExitCodes.Failure, cancellationToken).ConfigureAwait(false);
        });
        return command;
    }

    /// <summary>Compares, writes the result, returns the exit code.</summary>
    public static int Run(CompareSettings settings, string format, FileInfo? file, TextWriter stdout, TextWriter stderr, CancellationToken cancellationToken)
    {
        if (CompareRunner.Run(settings, stderr, cancellationToken) is not { } comparison)
        {
            return ExitCodes.Configuration;
        }

        foreach (var side in new[] { comparison.Before, comparison.After })
        {
            AnalyzeRunner.WriteProblems(side.Report, stderr, $"the rest of the {side.Label} side is compared");
        }

        var code = ExitCodeOf(comparison);
        void Write(TextWriter writer)
        {
            switch (format)
            {
                case "json":
                    CompareJsonWriter.Write(comparison, code, writer);
                    break;
                case "html":
                    CompareHtmlWriter.Write(comparison, settings.Reading.Time.GetUtcNow().UtcDateTime, writer);
                    break;
                default:
                    CompareTextWriter.Write(comparison, writer);
                    break;
            }
        }

        if (file is null)
        {
            Write(stdout);
        }
        else
        {
            var temporary = TemporaryFile.For(file.FullName);
            try
            {
                file.Directory?.Create();
                using (var writer = new StreamWriter(temporary, false, new System.Text.UTF8Encoding(false)))
                {
                    Write(writer);
                }

                File.Move(temporary, file.FullName, overwrite: true);
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                TemporaryFile.Delete(temporary);
                stderr.WriteLine(PrintableText.Of($"error: cannot write {file.FullName}: {e.Message}"));
                return ExitCodes.Failure;
            }

            stdout.WriteLine(PrintableText.Of($"compare: wrote {file.FullName} ({comparison.Databases.Count:N0} database(s) compared)."));
        }

        foreach (var side in new[] { comparison.Before, comparison.After }.Where(s => !s.Report.HasRelevantEvents))
        {
            stderr.WriteLine(PrintableText.Of($"compare: the {side.Label} side holds no log flush or WRITELOG events{(side.Window.IsAll ? "" : " in its window")}: nothing to compare it with."));
        }

        return code;
    }

    /// <summary>4 when a side's input is damaged, 3 when a side holds nothing to compare, else 0.</summary>
    internal static int ExitCodeOf(Comparison comparison)
    {
        var outcomes = new[] { comparison.Before.Report.Outcome, comparison.After.Report.Outcome };
        return outcomes.Contains(AnalyzeOutcome.CorruptInput) ? ExitCodes.CorruptInput
            : outcomes.Contains(AnalyzeOutcome.NoRelevantEvents) ? ExitCodes.NoRelevantEvents
            : ExitCodes.Ok;
    }
}
