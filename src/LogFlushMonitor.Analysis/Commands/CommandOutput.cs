using System.CommandLine;

namespace LogFlushMonitor.Analysis.Commands;

/// <summary>
/// Where a command writes: System.CommandLine's invocation output and error. Both programs' <c>Main</c> give the
/// process's console; tests give their own writers and run the whole command line in-process.
/// </summary>
public static class CommandOutput
{
    /// <summary>Standard output of this invocation.</summary>
    public static TextWriter Out(this ParseResult parse)
    {
        ArgumentNullException.ThrowIfNull(parse);
        return parse.InvocationConfiguration.Output;
    }

    /// <summary>Standard error of this invocation.</summary>
    public static TextWriter Error(this ParseResult parse)
    {
        ArgumentNullException.ThrowIfNull(parse);
        return parse.InvocationConfiguration.Error;
    }

    /// <summary>
    /// Whether standard error is a person's terminal (progress lines that redraw themselves): only the process's own
    /// stderr, not redirected. A test's writer, a pipe or a file is not.
    /// </summary>
    public static bool ErrorIsTerminal(this ParseResult parse) => IsTerminal(parse.Error(), Console.Error, Console.IsErrorRedirected);

    /// <summary>Whether standard output is a person's terminal (colours): only the process's own stdout, not redirected.</summary>
    public static bool OutIsTerminal(TextWriter output) => IsTerminal(output, Console.Out, Console.IsOutputRedirected);

    private static bool IsTerminal(TextWriter writer, TextWriter console, bool redirected) => ReferenceEquals(writer, console) && !redirected;
}
