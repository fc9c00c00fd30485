using System.Diagnostics;
using LogFlushMonitor.Analysis.Commands;

namespace LogFlushMonitor.Tests.Cli;

/// <summary>
/// `--version` of both programs names the program, its version and the commit it was built from
/// ("logflushmonitor 1.2.3 (commit abc1234)"), from the informational version the SDK writes (Version+SourceRevisionId).
/// </summary>
public class VersionTests
{
    private const string Commit = "0123456789abcdef0123456789abcdef01234567";

    [Theory]
    [InlineData("1.2.3+" + Commit, "logflushmonitor 1.2.3 (commit 0123456)")]
    [InlineData("1.3.0-rc.1+" + Commit, "logflushmonitor 1.3.0-rc.1 (commit 0123456)")]
    [InlineData("1.0.0-dev+abc1234", "logflushmonitor 1.0.0-dev (commit abc1234)")]
    // A Version with build metadata of its own: the SDK appends the commit after a '.'.
    [InlineData("1.2.3+build.5." + Commit, "logflushmonitor 1.2.3+build.5 (commit 0123456)")]
    // No commit (a build outside a git checkout, without SourceRevisionId): said, not guessed.
    [InlineData("1.2.3", "logflushmonitor 1.2.3 (commit unknown)")]
    [InlineData("1.2.3+local", "logflushmonitor 1.2.3+local (commit unknown)")]
    [InlineData("1.2.3+abc12", "logflushmonitor 1.2.3+abc12 (commit unknown)")]
    [InlineData(null, "logflushmonitor unknown (commit unknown)")]
    public void The_version_line_names_the_version_and_the_short_commit(string? informationalVersion, string expected) =>
        Assert.Equal(expected, ProgramVersion.Describe("logflushmonitor", informationalVersion));

    [Fact]
    public async Task Logflushmonitor_version_prints_its_name_version_and_the_commit_it_was_built_from()
    {
        var (code, stdout, stderr) = await InProcessCli.RunAsync("--version");
        Assert.True(code == 0, stderr);
        var line = Assert.Single(stdout.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries));
        Assert.Matches(@"^logflushmonitor \d+\.\d+\.\d+(-[0-9A-Za-z.-]+)? \(commit [0-9a-f]{7}\)$", line);
        // A build outside release.sh is marked as such, and carries a commit of this checkout (Source Link reads HEAD
        // at build time; HEAD may have moved since, so the test asks git whether the commit exists, not whether it is HEAD).
        Assert.Contains("-dev (commit ", line, StringComparison.Ordinal);
        var commit = line[^8..^1];
        Assert.NotEqual(false, await IsCommitOfThisCheckoutAsync(commit));
    }

    [Fact]
    public async Task Both_programs_print_the_same_version_and_commit()
    {
        var (code, service, _) = await InProcessCli.RunAsync("--version");
        var (analyzeCode, analyzer, _) = await InProcessCli.RunAnalyzeToolAsync("--version");
        Assert.Equal(0, code);
        Assert.Equal(0, analyzeCode);
        Assert.StartsWith("logflushmonitor ", service, StringComparison.Ordinal);
        Assert.StartsWith("logflushmonitor-analyze ", analyzer, StringComparison.Ordinal);
        Assert.Equal(service["logflushmonitor ".Length..], analyzer["logflushmonitor-analyze ".Length..]);
    }

    /// <summary>Whether git knows the commit in the checkout the tests run from; null without git or a checkout.</summary>
    private static async Task<bool?> IsCommitOfThisCheckoutAsync(string commit)
    {
        try
        {
            using var git = Process.Start(new ProcessStartInfo("git", ["-C", AppContext.BaseDirectory, "rev-parse", "--verify", "--quiet", commit + "^{commit}"])
            {
                RedirectStandardOutput = true,
                RedirectStandardError = true,
            })!;
            await git.StandardOutput.ReadToEndAsync();
            await git.WaitForExitAsync();
            if (git.ExitCode == 0)
            {
                return true;
            }

            // Not a checkout at all (an exported tree): nothing to compare with.
            using var inside = Process.Start(new ProcessStartInfo("git", ["-C", AppContext.BaseDirectory, "rev-parse", "--git-dir"])
            {
                RedirectStandardOutput = true,
                RedirectStandardError = true,
            })!;
            await inside.StandardOutput.ReadToEndAsync();
            await inside.WaitForExitAsync();
            return inside.ExitCode == 0 ? false : null;
        }
        catch (System.ComponentModel.Win32Exception)
        {
            return null;
        }
    }
}
