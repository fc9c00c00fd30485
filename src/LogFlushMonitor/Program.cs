using System.CommandLine;
using System.CommandLine.Help;
using System.CommandLine.Parsing;
using LogFlushMonitor.Analysis.Commands;
using LogFlushMonitor.Commands;
using LogFlushMonitor.Hosting;

namespace LogFlushMonitor;

/// <summary>The <c>logflushmonitor</c> command line.</summary>
public static class Program
{
    /// <summary>The program's name in usage lines (the root command's name is the executable's, which varies).</summary>
    internal const string Name = "logflushmonitor";

    /// <summary>Entry point.</summary>
    public static Task<int> Main(string[] args) => InvokeAsync(args, Console.Out, Console.Error);

    /// <summary>
    /// The whole command line, writing to <paramref name="output"/> and <paramref name="error"/>: the console in
    /// <see cref="Main"/>; a test's writers when a test runs a command in-process. Every command writes through
    /// System.CommandLine's invocation writers (<see cref="CommandOutput"/>), never to <see cref="Console"/> itself.
    /// </summary>
    internal static async Task<int> InvokeAsync(string[] args, TextWriter output, TextWriter error)
    {
        var root = new RootCommand("LogFlushMonitor: watches how SQL Server hardens its transaction log, per database, and exports it as OpenTelemetry metrics.")
        {
            RunCommand.Create(),
            SimulateCommand.Create(),
            AnalyzeCommand.Create(ExitCodes.Of),
            CheckCommand.Create(),
            SetupSqlCommand.Create(),
            WorkloadCommand.Create(),
            HealthCommand.Create(),
            ReportCommand.Create(),
            CompareCommand.Create(),
        };
        root.WithVersionLine(Name, typeof(Program).Assembly);

        var parse = root.Parse(args);
        if (parse.Errors.Count > 0)
        {
            // A usage error is exit code 2 for every command (System.CommandLine would return 1).
            await WriteUsageErrorAsync(parse, error).ConfigureAwait(false);
            return ExitCodes.Configuration;
        }

        if (parse.Action is HelpAction)
        {
            using var help = new StringWriter();
            var helpCode = await parse.InvokeAsync(new InvocationConfiguration { Output = help }).ConfigureAwait(false);
            await output.WriteAsync(CommandHelp.Rewrite(help.ToString())).ConfigureAwait(false);
            return helpCode;
        }

        // The host handles SIGTERM/Ctrl+C for `run`; commands that need cancellation register it themselves.
        return await parse.InvokeAsync(new InvocationConfiguration { ProcessTerminationTimeout = null, Output = output, Error = error }).ConfigureAwait(false);
    }

    private static async Task WriteUsageErrorAsync(ParseResult parse, TextWriter error)
    {
        var command = parse.CommandResult.Command;
        var commandNames = parse.RootCommandResult.Command.Subcommands.Select(c => c.Name).ToList();
        if (command is RootCommand)
        {
            // No command, or a word that is not one: say which, with the nearest command when it looks like a typo.
            var word = parse.Tokens.FirstOrDefault(t => t.Type != TokenType.Option)?.Value ?? parse.UnmatchedTokens.FirstOrDefault();
            var message = word is null
                ? "No command given."
                : ConfigurationSuggestions.Nearest(word, commandNames) is { } near
                    ? $"Unrecognized command '{word}'. Did you mean '{near}'?"
                    : $"Unrecognized command '{word}'.";
            await error.WriteLineAsync(message).ConfigureAwait(false);
            await error.WriteLineAsync($"Usage: {Name} <command> [options], where <command> is one of {string.Join(", ", commandNames)}. See `{Name} --help`.").ConfigureAwait(false);
            return;
        }

        foreach (var problem in parse.Errors)
        {
            await error.WriteLineAsync(problem.Message).ConfigureAwait(false);
        }

        await error.WriteLineAsync($"See `{CommandHelp.PathOf(parse.CommandResult)} --help`.").ConfigureAwait(false);
    }
}
