using System.Text.RegularExpressions;
using LogFlushMonitor.Tests.Deploy;

namespace LogFlushMonitor.Tests.Cli;

/// <summary>
/// Every command writes through its invocation's writers (CommandOutput), never to Console itself: otherwise what it
/// writes would escape the in-process tests (InProcessCli), which would then pass on output they never saw.
/// </summary>
public sealed partial class CommandOutputTests
{
    [Fact]
    public void No_command_writes_to_the_console_directly()
    {
        string[] folders = ["src/LogFlushMonitor/Commands", "src/LogFlushMonitor/Report", "src/LogFlushMonitor.Analysis", "src/LogFlushMonitor.AnalyzeTool"];
        var files = folders
            .SelectMany(f => Directory.EnumerateFiles(DeployFiles.Path(f.Split('/')), "*.cs", SearchOption.AllDirectories))
            .Append(DeployFiles.Path("src", "LogFlushMonitor", "Program.cs"))
            .Where(f => !f.Contains($"{Path.DirectorySeparatorChar}obj{Path.DirectorySeparatorChar}", StringComparison.Ordinal) && Path.GetFileName(f) != "CommandOutput.cs")
            .ToList();

        Assert.True(files.Count > 20, $"found {files.Count} files");
        var direct = files
            .SelectMany(f => File.ReadLines(f).Select((line, i) => (File: f, Line: i + 1, Text: line)))
            .Where(l => DirectConsoleUse().IsMatch(l.Text))
            .Select(l => $"{Path.GetRelativePath(DeployFiles.Path(), l.File)}:{l.Line}: {l.Text.Trim()}")
            .ToList();
        Assert.True(direct.Count == 0, "write through parse.Out() / parse.Error() (CommandOutput) instead:\n" + string.Join('\n', direct));
    }

    [Fact]
    public async Task The_pattern_catches_a_direct_write_and_an_in_process_run_sees_what_a_command_writes()
    {
        // The pattern against lines as they were before the commands wrote through their invocation's writers.
        Assert.Matches(DirectConsoleUse(), "await Console.Error.WriteLineAsync(speedProblem).ConfigureAwait(false);");
        Assert.Matches(DirectConsoleUse(), "StdErrIsTerminal = !Console.IsErrorRedirected,");
        Assert.Matches(DirectConsoleUse(), "Console.WriteLine(line);");
        Assert.DoesNotMatch(DirectConsoleUse(), "public static Task<int> Main(string[] args) => InvokeAsync(args, Console.Out, Console.Error);");

        // And the in-process run sees what the command writes.
        var (code, stdout, stderr) = await InProcessCli.RunAsync("setup-sql", "--login", "lfm_monitor");
        Assert.True(code == 0, stderr);
        Assert.Contains("lfm_monitor", stdout, StringComparison.Ordinal);
    }

    // Writing or reading through Console, or asking it about redirection; passing Console.Out/Error along (Main) is not.
    [GeneratedRegex(@"\bConsole\.(?:(?:Out|Error|In)\.|Write|Read|Is(?:Error|Output|Input)Redirected)")]
    private static partial Regex DirectConsoleUse();
}
