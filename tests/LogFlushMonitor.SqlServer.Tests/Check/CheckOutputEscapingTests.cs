using LogFlushMonitor.SqlServer.Tests.Scripted;

namespace LogFlushMonitor.SqlServer.Tests.Check;

/// <summary>
/// What the server says (its version, edition, error messages) and what the configuration names reach the terminal
/// escaped, as log lines do (issue 20 item 8): a version string with ANSI and OSC escapes, a bell and line breaks
/// forged an "All ... OK." line in check's output.
/// </summary>
public class CheckOutputEscapingTests
{
    private const string Esc = "\u001b";

    [Fact]
    public async Task A_version_and_edition_with_escapes_are_printed_escaped_and_forge_no_line()
    {
        await using var server = new ScriptedSqlServer
        {
            ProductVersion = $"16.0.1{Esc}[2J{Esc}]0;owned\u0007\r\nAll 9 instance(s) OK.\n",
            Edition = $"Developer{Esc}[31m\u009b31m\u2028red",
        };
        var (exit, stdout, stderr) = await InProcessProgram.RunAsync(Program.InvokeAsync,
            "check", "--Sources:SqlServer:CommandTimeout=00:00:05", "--Sources:SqlServer:Instances:0:Name=prod",
            $"--Sources:SqlServer:Instances:0:ConnectionString={server.ConnectionString()}");
        var output = stdout + stderr;

        Assert.True(exit is 0 or 1, $"exit {exit}: {output}");
        Assert.Contains(@"version:    16.0.1\u001B[2J\u001B]0;owned\u0007\r\nAll 9 instance(s) OK.\n, Developer\u001B[31m\u009B31m\u2028red", stdout, StringComparison.Ordinal);
        Assert.DoesNotContain(output, c => c is '\u001b' or '\u0007' or '\r' or '\u009b' or '\u2028');
        Assert.DoesNotContain(stdout.Split('\n'), l => l.StartsWith("All 9", StringComparison.Ordinal));
    }

    [Fact]
    public async Task An_instance_name_with_control_characters_is_refused_without_reaching_the_terminal()
    {
        var (exit, stdout, stderr) = await InProcessProgram.RunAsync(Program.InvokeAsync,
            "check", "--Sources:SqlServer:Instances:0:Name=prod\u001b]0;owned\u0007\rAll 1 instance(s) OK.",
            "--Sources:SqlServer:Instances:0:ConnectionString=Server=tcp:127.0.0.1,1;User ID=x");
        var output = stdout + stderr;

        Assert.True(exit == 2, $"exit {exit}: {output}");
        Assert.Contains("Sources:SqlServer:Instances:0:Name holds the invisible character U+001B", stderr, StringComparison.Ordinal);
        Assert.DoesNotContain(output, c => c is '\u001b' or '\u0007' or '\r');
    }
}
