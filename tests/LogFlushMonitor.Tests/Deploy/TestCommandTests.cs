using System.Text.RegularExpressions;
using System.Xml.Linq;

namespace LogFlushMonitor.Tests.Deploy;

/// <summary>
/// The README's test command is what CI runs, and its output names each skipped test with its reason: the loggers
/// Directory.Build.props gives every test project (the console at normal verbosity, which prints [SKIP] and the reason;
/// the TRX file .ci/skipped.py reads).
/// </summary>
public sealed partial class TestCommandTests
{
    [Fact]
    public void Ci_runs_the_readme_test_command_with_loggers_that_name_each_skip_and_its_reason()
    {
        var readme = File.ReadAllText(DeployFiles.Path("README.md"));
        var command = ReadmeTestCommand().Match(readme);
        Assert.True(command.Success, "README.md has no code block under \"## Test it\"");
        var ci = File.ReadAllText(DeployFiles.Path(".ci", "run"));
        Assert.Contains($"\n{command.Groups[1].Value} 2>&1 | tee", ci, StringComparison.Ordinal);

        var loggers = XDocument.Load(DeployFiles.Path("Directory.Build.props")).Descendants("VSTestLogger").Single().Value
            .Split(';').Select(l => Uri.UnescapeDataString(l)).ToList();
        Assert.Contains("console;verbosity=normal", loggers);
        Assert.Contains("trx;LogFileName=last-run.trx", loggers);

        // A logger on the command line would replace both (the console would hide the reasons, no TRX file).
        Assert.DoesNotContain("--logger", command.Groups[1].Value, StringComparison.Ordinal);
    }

    [GeneratedRegex(@"## Test it\s+```\s*\n(dotnet test[^\n]*)\n```")]
    private static partial Regex ReadmeTestCommand();
}
