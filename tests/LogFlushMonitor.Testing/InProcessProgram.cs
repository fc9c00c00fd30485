namespace LogFlushMonitor.Testing;

/// <summary>
/// Runs a program's whole command line in this process through its <c>InvokeAsync(args, stdout, stderr)</c> (what its
/// <c>Main</c> calls with the console), with writers of its own: for tests that check what a command writes and its
/// exit code. Tests that need a process of their own (signals, environment variables, the working directory, the
/// program's name in help, what the runtime itself prints) use <see cref="CliProcess"/>.
/// </summary>
public static class InProcessProgram
{
    /// <summary>Runs <paramref name="main"/> with <paramref name="args"/>; returns the exit code and what it wrote.</summary>
    public static async Task<(int ExitCode, string StdOut, string StdErr)> RunAsync(Func<string[], TextWriter, TextWriter, Task<int>> main, params string[] args)
    {
        ArgumentNullException.ThrowIfNull(main);

        // The process's environment is the program's here: a LOGFLUSHMONITOR__ setting of the shell that started the tests
        // would configure the command under test (CliProcess removes them for its child).
        var inherited = Environment.GetEnvironmentVariables().Keys.OfType<string>()
            .Where(k => k.StartsWith("LOGFLUSHMONITOR__", StringComparison.OrdinalIgnoreCase)).Order(StringComparer.Ordinal).ToList();
        if (inherited.Count > 0)
        {
            throw new InvalidOperationException($"The tests run with {string.Join(", ", inherited)} set; in-process command tests would read them. Unset them in the shell that runs the tests.");
        }

        // Synchronized: a command writes from the thread pool (analyze's readers, the host's log lines).
        using var stdout = new StringWriter();
        using var stderr = new StringWriter();
        var code = await main(args, TextWriter.Synchronized(stdout), TextWriter.Synchronized(stderr));
        return (code, stdout.ToString(), stderr.ToString());
    }
}
