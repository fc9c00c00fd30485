using System.CommandLine;

namespace LogFlushMonitor.Analysis.Commands;

/// <summary><c>logflushmonitor analyze</c>: offline analysis of .xel files (docs/analyze.md).</summary>
internal static class AnalyzeCommand
{
    /// <summary>What the command does, in its help.</summary>
    public const string Description = "Analyse .xel files or NDJSON recordings offline: per database the log flush write-size histogram, flush durations, WRITELOG waits, rates, lost events and advice.";

    /// <summary>Builds the <c>analyze</c> subcommand of <c>logflushmonitor</c>; <paramref name="exitCodeOf"/> is the program's exit code for each outcome.</summary>
    public static Command Create(Func<AnalyzeOutcome, int> exitCodeOf) => Configure(new Command("analyze", Description), exitCodeOf);

    /// <summary>
    /// Gives <paramref name="command"/> analyze's arguments, options and action: the subcommand above, or the root
    /// command of the stand-alone <c>logflushmonitor-analyze</c>, which therefore takes the same arguments and gives
    /// the same output and exit codes. <paramref name="exitCodeOf"/> is the program's exit code for each outcome.
    /// </summary>
    public static T Configure<T>(T command, Func<AnalyzeOutcome, int> exitCodeOf)
        where T : Command
    {
        ArgumentNullException.ThrowIfNull(exitCodeOf);
        var inputs = new Argument<string[]>("inputs")
        {
            Arity = ArgumentArity.OneOrMore,
            Description = ".xel files or NDJSON recordings (simulate --out), folders (their *.xel files) or globs such as /path/session*.xel; rollover sets are read in order.",
        };
        var format = new Option<string>("--format") { Description = "Output: text (default) or json (schema in docs/analyze.md).", DefaultValueFactory = _ => "text" };
        var progress = new Option<string>("--progress")
        {
            Description = "Progress lines on stderr: auto (input over 64 MB or stderr is a terminal), always or never.",
            DefaultValueFactory = _ => "auto",
        };
        var threads = ThreadsOption();
        command.Add(inputs);
        command.Add(format);
        command.Add(progress);
        command.Add(threads);
        command.SetAction(async (ParseResult parse, CancellationToken cancellationToken) =>
        {
            // Usage problems are checked here (not by the parser) so they exit with 2, like every usage error.
            var reportFormat = parse.GetValue(format)?.ToLowerInvariant() switch
            {
                "text" => ReportFormat.Text,
                "json" => ReportFormat.Json,
                _ => (ReportFormat?)null,
            };
            var progressMode = parse.GetValue(progress)?.ToLowerInvariant() switch
            {
                "auto" => ProgressMode.Auto,
                "always" => ProgressMode.Always,
                "never" => ProgressMode.Never,
                _ => (ProgressMode?)null,
            };
            if (reportFormat is null || progressMode is null)
            {
                await parse.Error().WriteLineAsync(reportFormat is null
                    ? $"--format '{parse.GetValue(format)}' is not known. Use text or json."
                    : $"--progress '{parse.GetValue(progress)}' is not known. Use auto, always or never.").ConfigureAwait(false);
                return exitCodeOf(AnalyzeOutcome.InvalidArguments);
            }

            if (ThreadsProblem(parse.GetValue(threads)) is { } threadsProblem)
            {
                await parse.Error().WriteLineAsync(threadsProblem).ConfigureAwait(false);
                return exitCodeOf(AnalyzeOutcome.InvalidArguments);
            }

            var settings = new AnalyzeSettings
            {
                Inputs = parse.GetValue(inputs) ?? [],
                Format = reportFormat.Value,
                Progress = progressMode.Value,
                StdErrIsTerminal = parse.ErrorIsTerminal(),
                Threads = parse.GetValue(threads),
            };

            return await RunCancellableAsync(token => AnalyzeRunner.Run(settings, exitCodeOf, parse.Out(), parse.Error(), token), "analyze: cancelled; no report.", parse.Error(), exitCodeOf(AnalyzeOutcome.Failed), cancellationToken).ConfigureAwait(false);
        });
        return command;
    }

    /// <summary>
    /// Runs <paramref name="run"/> on the thread pool with Ctrl+C wired to its token (the host's handler is not
    /// installed for analyze and report): reading stops at the next buffer, <paramref name="cancelledMessage"/> goes
    /// to <paramref name="error"/> and the exit code is <paramref name="cancelledExitCode"/>.
    /// </summary>
    internal static async Task<int> RunCancellableAsync(Func<CancellationToken, int> run, string cancelledMessage, TextWriter error, int cancelledExitCode, CancellationToken cancellationToken)
    {
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        ConsoleCancelEventHandler onCancel = (_, e) =>
        {
            e.Cancel = true;
            stop.Cancel();
        };
        Console.CancelKeyPress += onCancel;
        try
        {
            return await Task.Run(() => run(stop.Token), stop.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            await error.WriteLineAsync(cancelledMessage).ConfigureAwait(false);
            return cancelledExitCode;
        }
        finally
        {
            Console.CancelKeyPress -= onCancel;
        }
    }

    /// <summary>The <c>--threads</c> option of analyze and report: threads decoding .xel files, default every core.</summary>
    internal static Option<int> ThreadsOption() => new("--threads")
    {
        Description = "Threads decoding .xel files (default: every core; 1 reads on one thread). The report is the same for any value.",
        DefaultValueFactory = _ => Environment.ProcessorCount,
    };

    /// <summary>The usage error for a <c>--threads</c> value, or null when it is fine.</summary>
    internal static string? ThreadsProblem(int threads) =>
        threads is >= 1 and <= 256 ? null : $"--threads {threads} is out of range. Give 1 to 256 (default: the {Environment.ProcessorCount} cores).";
}
