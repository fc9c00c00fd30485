using System.Text.RegularExpressions;
using System.Xml.Linq;
using LogFlushMonitor.Hosting;
using LogFlushMonitor.SqlServer;
using LogFlushMonitor.SqlServer.Fleet;
using Microsoft.Extensions.Configuration;

namespace LogFlushMonitor.Tests.Deploy;

/// <summary>
/// The release scripts (build/) and what they keep consistent: one version in the build, the chart, Compose and the
/// Kustomize base; the image's tags; the example settings every archive carries; the scripts' own errors. The builds
/// themselves run in .ci/run (build/release.sh, then .ci/release-smoke.sh on its output).
/// </summary>
public partial class ReleaseTests
{
    private const string Image = "ghcr.io/logflushmonitor/logflushmonitor";

    private static string RepositoryVersion() =>
        XDocument.Load(DeployFiles.Path("Directory.Build.props")).Descendants("VersionPrefix").Single().Value;

    private static async Task<(int Code, string StdOut, string StdErr)> BashAsync(string script, params string[] args)
    {
        var bash = Tool.Require("bash", "bash");
        return await Tool.RunAsync(bash, [DeployFiles.Path("build", script), .. args]);
    }

    [SkippableFact]
    public async Task One_version_in_the_build_the_chart_compose_and_the_kustomize_base()
    {
        var version = RepositoryVersion();
        Assert.Matches(@"^\d+\.\d+\.\d+$", version);

        var chart = DeployFiles.ReadYaml(File.ReadAllText(DeployFiles.Path("deploy", "helm", "logflushmonitor", "Chart.yaml")));
        Assert.Equal(version, DeployFiles.Text(chart, "appVersion"));

        var compose = File.ReadAllText(DeployFiles.Path("docker-compose.yml"));
        var composeTags = PublishedImageTag().Matches(compose).Select(m => m.Groups[1].Value).ToList();
        Assert.Equal(3, composeTags.Count); // workload, logflushmonitor, logflushmonitor-simulated
        Assert.All(composeTags, t => Assert.Equal(version, t));

        var statefulSet = File.ReadAllText(DeployFiles.Path("deploy", "kubernetes", "statefulset.yaml"));
        Assert.Equal(version, Assert.Single(PublishedImageTag().Matches(statefulSet)).Groups[1].Value);

        // The release workflow compares the tag with what release.sh reads.
        var (code, stdout, stderr) = await BashAsync("release.sh", "--repo-version");
        Assert.True(code == 0, stderr);
        Assert.Equal(version, stdout.Trim());
    }

    [SkippableFact]
    public async Task Set_version_changes_every_place_the_version_is_written()
    {
        // On a copy of the files it edits: the same script, run where it lives in the copy.
        var root = Directory.CreateTempSubdirectory("lfm-set-version-");
        try
        {
            string[] rules = ["deploy/prometheus/alerts.yml", "deploy/prometheus/alerts.test.yml", "deploy/helm/logflushmonitor/files/alerts.yml", "deploy/kubernetes/prometheusrule.yaml"];
            foreach (var file in (string[])["Directory.Build.props", "docker-compose.yml", "build/set-version.sh", "deploy/helm/logflushmonitor/Chart.yaml", "deploy/kubernetes/statefulset.yaml", .. rules])
            {
                var target = Path.Combine(root.FullName, file);
                Directory.CreateDirectory(Path.GetDirectoryName(target)!);
                File.Copy(DeployFiles.Path(file), target);
            }

            var bash = Tool.Require("bash", "bash");
            var (code, _, stderr) = await Tool.RunAsync(bash, [Path.Combine(root.FullName, "build", "set-version.sh"), "7.8.9"], workingDirectory: root.FullName);
            Assert.True(code == 0, stderr);
            Assert.Contains("<VersionPrefix>7.8.9</VersionPrefix>", File.ReadAllText(Path.Combine(root.FullName, "Directory.Build.props")), StringComparison.Ordinal);
            Assert.Contains("appVersion: \"7.8.9\"", File.ReadAllText(Path.Combine(root.FullName, "deploy/helm/logflushmonitor/Chart.yaml")), StringComparison.Ordinal);
            Assert.All(PublishedImageTag().Matches(File.ReadAllText(Path.Combine(root.FullName, "docker-compose.yml"))), m => Assert.Equal("7.8.9", m.Groups[1].Value));
            Assert.Equal("7.8.9", PublishedImageTag().Match(File.ReadAllText(Path.Combine(root.FullName, "deploy/kubernetes/statefulset.yaml"))).Groups[1].Value);
            // The alerts' default runbook links: this version's docs, in the rules, their tests and both Kubernetes copies.
            foreach (var file in rules)
            {
                var links = RunbookDocsVersion().Matches(File.ReadAllText(Path.Combine(root.FullName, file))).Select(m => m.Groups[1].Value).ToList();
                Assert.NotEmpty(links);
                Assert.All(links, v => Assert.Equal("7.8.9", v));
            }

            (code, _, stderr) = await Tool.RunAsync(bash, [Path.Combine(root.FullName, "build", "set-version.sh"), "7.9.0-rc.1"], workingDirectory: root.FullName);
            Assert.Equal(2, code);
            Assert.Contains("a pre-release is only a tag", stderr, StringComparison.Ordinal);
        }
        finally
        {
            root.Delete(recursive: true);
        }
    }

    [SkippableFact]
    public async Task A_release_is_tagged_version_major_minor_and_latest_and_a_pre_release_only_with_its_version()
    {
        var (code, stdout, stderr) = await BashAsync("image-tags.sh", "1.2.3", Image);
        Assert.True(code == 0, stderr);
        Assert.Equal([$"{Image}:1.2.3", $"{Image}:1.2", $"{Image}:latest"], Lines(stdout));

        (code, stdout, stderr) = await BashAsync("image-tags.sh", "1.3.0-rc.1", Image);
        Assert.True(code == 0, stderr);
        Assert.Equal([$"{Image}:1.3.0-rc.1"], Lines(stdout));

        (code, _, stderr) = await BashAsync("image-tags.sh", "1.2", Image);
        Assert.Equal(2, code);
        Assert.Contains("'1.2' is not a version", stderr, StringComparison.Ordinal);
        (code, _, stderr) = await BashAsync("image-tags.sh", "1.2.3", "ghcr.io/LogFlushMonitor/logflushmonitor");
        Assert.Equal(2, code);
        Assert.Contains("is not an image name (lower case", stderr, StringComparison.Ordinal);
    }

    [SkippableTheory]
    [InlineData("1.2", "'1.2' is not a version like 1.2.3")]
    [InlineData("1.2.3+build.1", "no '+' build metadata")]
    [InlineData("v1.2.3", "'v1.2.3' is not a version")]
    public async Task Release_refuses_a_version_that_is_not_one_before_building_anything(string version, string expected)
    {
        var (code, _, stderr) = await BashAsync("release.sh", version, "--out", Path.Combine(Path.GetTempPath(), "lfm-release-not-built"));
        Assert.Equal(2, code);
        Assert.Contains(expected, stderr, StringComparison.Ordinal);
        Assert.False(Directory.Exists(Path.Combine(Path.GetTempPath(), "lfm-release-not-built")));
    }

    [SkippableFact]
    public async Task Release_refuses_an_unknown_part_naming_the_known_ones()
    {
        var (code, _, stderr) = await BashAsync("release.sh", "1.2.3", "--only", "linux-x64,osx-arm64");
        Assert.Equal(2, code);
        Assert.Contains("unknown part 'osx-arm64' in --only (linux-x64, linux-arm64, win-x64, tool)", stderr, StringComparison.Ordinal);
    }

    [Fact]
    public void The_example_settings_every_archive_carries_pass_the_service_s_own_checks()
    {
        // appsettings.example.json as the service reads it (comments allowed): no error, no warning (every key is one
        // the service reads), and valid options for two instances.
        var configuration = new ConfigurationBuilder().AddJsonFile(DeployFiles.Path("deploy", "appsettings.example.json")).Build();
        var result = ConfigurationCheck.Inspect(configuration);
        Assert.Empty(result.Errors);
        Assert.Empty(result.Warnings);
        var options = configuration.GetSection(SqlServerOptionsValidator.Section).Get<SqlServerSourceOptions>()!;
        Assert.Empty(SqlServerOptionsValidator.Validate(options));
        Assert.Equal(["sql1", "sql2"], options.Instances.Select(i => i.Name));
        // Connection strings are never in the file: a variable or a file names where each one is.
        Assert.All(options.Instances, i => Assert.True(string.IsNullOrEmpty(i.ConnectionString), i.Name));
    }

    [SkippableFact]
    public async Task Release_notes_list_each_download_with_what_it_needs_the_image_tags_and_the_checksums()
    {
        var dir = Directory.CreateTempSubdirectory("lfm-notes-");
        try
        {
            await File.WriteAllTextAsync(Path.Combine(dir.FullName, "logflushmonitor-1.2.3-win-x64.zip"), "zip");
            await File.WriteAllTextAsync(Path.Combine(dir.FullName, "LogFlushMonitor.1.2.3.nupkg"), "nupkg");
            var sums = "aaaa  logflushmonitor-1.2.3-win-x64.zip\nbbbb  LogFlushMonitor.1.2.3.nupkg\n";
            await File.WriteAllTextAsync(Path.Combine(dir.FullName, "SHA256SUMS"), sums);

            var (code, notes, stderr) = await BashAsync("release-notes.sh", "1.2.3", Image, dir.FullName);

            Assert.True(code == 0, stderr);
            Assert.Contains("| `logflushmonitor-1.2.3-win-x64.zip` | Windows x64, self-contained: no .NET needed |", notes, StringComparison.Ordinal);
            Assert.Contains("| `LogFlushMonitor.1.2.3.nupkg` | .NET tool: needs the .NET 10 runtime", notes, StringComparison.Ordinal);
            Assert.Contains($"docker pull {Image}:1.2.3\ndocker pull {Image}:1.2\ndocker pull {Image}:latest", notes, StringComparison.Ordinal);
            Assert.Contains(sums.TrimEnd(), notes, StringComparison.Ordinal);
        }
        finally
        {
            dir.Delete(recursive: true);
        }
    }

    [SkippableFact]
    public async Task The_explained_package_warnings_are_recognised_whatever_the_NuGet_folder_is_called()
    {
        // Publish log lines as the SDK prints them, from a package folder that is not ~/.nuget/packages (NUGET_PACKAGES
        // or a CI cache), on Linux and Windows, and an ILC summary line that names only the assembly.
        string[] explained =
        [
            "/srv/ci-cache/nuget/microsoft.data.sqlclient/7.1.0/runtimes/unix/lib/net9.0/Microsoft.Data.SqlClient.dll : warning IL2104: Assembly 'Microsoft.Data.SqlClient' produced trim warnings. For more information see https://aka.ms/il2104 [/src/src/LogFlushMonitor/LogFlushMonitor.csproj]",
            @"D:\cache\NuGet\dapper\2.1.86\lib\net8.0\Dapper.dll : warning IL3053: Assembly 'Dapper' produced AOT analysis warnings. [D:\src\src\LogFlushMonitor\LogFlushMonitor.csproj]",
            "ILC : warning IL2104: Assembly 'System.Configuration.ConfigurationManager' produced trim warnings.",
        ];
        const string Unexplained = "/srv/ci-cache/nuget/dapper.aot/1.0.48/lib/net8.0/Dapper.AOT.dll : warning IL2104: Assembly 'Dapper.AOT' produced trim warnings. [/src/x.csproj]";
        var dir = Directory.CreateTempSubdirectory("lfm-aot-warnings-");
        try
        {
            var ok = Path.Combine(dir.FullName, "ok.log");
            await File.WriteAllLinesAsync(ok, ["  Restored.", .. explained]);
            var bad = Path.Combine(dir.FullName, "bad.log");
            await File.WriteAllLinesAsync(bad, [.. explained, Unexplained]);

            var (code, stdout, stderr) = await BashAsync("release.sh", "--check-aot-warnings", ok);
            Assert.True(code == 0, stdout + stderr);
            Assert.Contains("package warnings explained in docs/aot.md: 3", stdout, StringComparison.Ordinal);

            (code, stdout, stderr) = await BashAsync("release.sh", "--check-aot-warnings", bad);
            Assert.Equal(1, code);
            Assert.Contains("Dapper.AOT", stdout, StringComparison.Ordinal);
            Assert.DoesNotContain("Microsoft.Data.SqlClient", stdout, StringComparison.Ordinal);
            Assert.Contains("docs/aot.md does not explain", stderr, StringComparison.Ordinal);
        }
        finally
        {
            dir.Delete(recursive: true);
        }
    }

    [SkippableFact]
    public async Task Build_and_ci_scripts_pass_shellcheck()
    {
        var shellcheck = Tool.Require("shellcheck", "shellcheck");
        var scripts = Directory.EnumerateFiles(DeployFiles.Path("build"), "*.sh")
            .Concat(Directory.EnumerateFiles(DeployFiles.Path(".ci"), "*.sh"))
            .Append(DeployFiles.Path(".ci", "run"))
            .Order()
            .ToList();
        Assert.Contains(DeployFiles.Path("build", "release.sh"), scripts);
        Assert.Contains(DeployFiles.Path(".ci", "release-smoke.sh"), scripts);
        var (code, stdout, stderr) = await Tool.RunAsync(shellcheck, scripts);
        Assert.True(code == 0, stdout + stderr);
    }

    [SkippableFact]
    public async Task The_chart_and_the_kustomize_base_default_to_the_published_image_of_this_version()
    {
        var version = RepositoryVersion();
        var helm = Tool.RequireHelm();
        var (code, stdout, stderr) = await Tool.RunAsync(helm, ["template", "logflushmonitor", DeployFiles.Path("deploy", "helm", "logflushmonitor")]);
        Assert.True(code == 0, stderr);
        var fromHelm = DeployFiles.ReadYamlDocuments(stdout).Where(d => d is not null).Select(d => DeployFiles.Map(d, "object")).ToList();
        Assert.Equal($"{Image}:{version}", DeployFiles.Text(KubeObjects.Container(KubeObjects.Single(fromHelm, "StatefulSet")), "image"));

        var kubectl = Tool.Require("kubectl", "kubectl");
        (code, stdout, stderr) = await Tool.RunAsync(kubectl, ["kustomize", DeployFiles.Path("deploy", "kubernetes")]);
        Assert.True(code == 0, stderr);
        var fromKustomize = DeployFiles.ReadYamlDocuments(stdout).Select(d => DeployFiles.Map(d, "object")).ToList();
        Assert.Equal($"{Image}:{version}", DeployFiles.Text(KubeObjects.Container(KubeObjects.Single(fromKustomize, "StatefulSet")), "image"));
    }

    [Fact]
    public void The_licence_is_MIT_and_the_tool_package_and_both_images_say_so()
    {
        var licence = File.ReadAllText(DeployFiles.Path("LICENSE"));
        Assert.StartsWith("MIT License\n\nCopyright (c) ", licence, StringComparison.Ordinal);
        Assert.Contains(" LogFlushMonitor contributors\n", licence, StringComparison.Ordinal);
        Assert.Contains("Permission is hereby granted, free of charge, to any person obtaining a copy", licence, StringComparison.Ordinal);

        // The .NET tool: the SPDX expression nuget.org shows, and the file in the package.
        var project = XDocument.Load(DeployFiles.Path("src", "LogFlushMonitor", "LogFlushMonitor.csproj"));
        Assert.Equal("MIT", project.Descendants("PackageLicenseExpression").Single().Value);
        // At the package's root: a PackagePath without an extension would be a folder (LICENSE/LICENSE).
        Assert.Contains(project.Descendants("None"), n => (string?)n.Attribute("Include") == @"..\..\LICENSE" && (string?)n.Attribute("Pack") == "true" && (string?)n.Attribute("PackagePath") == "/");

        // The images: the label and the file.
        var release = File.ReadAllLines(DeployFiles.Path("Dockerfile.release"));
        Assert.Contains("ARG LICENSES=MIT", release);
        Assert.Contains("COPY --chmod=0644 LICENSE /app/LICENSE", release);
        Assert.Contains("COPY docs /app/docs", release);
        var source = File.ReadAllText(DeployFiles.Path("Dockerfile"));
        Assert.Contains("org.opencontainers.image.licenses=\"MIT\"", source, StringComparison.Ordinal);
        Assert.Contains("COPY --from=build --chmod=0644 /src/LICENSE /app/LICENSE", source, StringComparison.Ordinal);
        Assert.Contains("COPY --from=build /src/docs /app/docs", source, StringComparison.Ordinal);
        // build/release.sh puts both beside the binaries in the image's context.
        var script = File.ReadAllText(DeployFiles.Path("build", "release.sh"));
        Assert.Contains("install -m 0644 LICENSE \"$out/image/LICENSE\"", script, StringComparison.Ordinal);
        Assert.Contains("cp -R docs \"$out/image/docs\"", script, StringComparison.Ordinal);

        // The README says it, with the file.
        Assert.Contains("[MIT](LICENSE)", File.ReadAllText(DeployFiles.Path("README.md")), StringComparison.Ordinal);
    }

    [SkippableFact]
    public async Task Every_link_of_the_README_and_the_docs_an_archive_carries_resolves_inside_the_archive()
    {
        // What every archive carries beside the programs, laid out by the same function build/release.sh packs with.
        var dir = Directory.CreateTempSubdirectory("lfm-common-files-");
        try
        {
            var (code, _, stderr) = await BashAsync("release.sh", "--common-files", dir.FullName);
            Assert.True(code == 0, stderr);
            foreach (var file in new[] { "README.md", "LICENSE", "CONTRIBUTING.md", "SECURITY.md", "appsettings.example.json", "docs/alerts.md", "docs/install.md", "docs/images/report.png", "deploy/prometheus/alerts.yml" })
            {
                Assert.True(File.Exists(Path.Combine(dir.FullName, file)), $"the archive would not carry {file}");
            }

            // The README links docs/ (issue 35 item 2: 18 pages it linked were not in the archive), and each of its
            // links, those of the pages it links and theirs, lands on a file of the archive and a heading of it.
            Assert.True(MarkdownLinks.Of(Path.Combine(dir.FullName, "README.md")).Count(l => l.StartsWith("docs/", StringComparison.Ordinal)) >= 10);
            var broken = MarkdownLinks.Broken(dir.FullName, path => !path.StartsWith("deploy/", StringComparison.Ordinal));
            Assert.True(broken.Count == 0, "links that do not resolve inside the archive:\n" + string.Join("\n", broken));
        }
        finally
        {
            dir.Delete(recursive: true);
        }
    }

    [Fact]
    public void Every_link_of_the_repository_s_markdown_resolves_with_its_anchor()
    {
        // The repository's own pages: README, docs/, CONTRIBUTING, SECURITY, bench/, deploy/ and tests/ readmes.
        var broken = MarkdownLinks.Broken(DeployFiles.Root, path =>
            !path.Contains("/bin/", StringComparison.Ordinal) && !path.Contains("/obj/", StringComparison.Ordinal)
            && !path.StartsWith("artifacts/", StringComparison.Ordinal) && !path.StartsWith("TestResults/", StringComparison.Ordinal));
        Assert.True(broken.Count == 0, "links that do not resolve:\n" + string.Join("\n", broken));
    }

    private static List<string> Lines(string text) => [.. text.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)];

    [GeneratedRegex(@"ghcr\.io/logflushmonitor/logflushmonitor:(\d+\.\d+\.\d+)\b")]
    private static partial Regex PublishedImageTag();

    [GeneratedRegex(@"github\.com/logflushmonitor/logflushmonitor/blob/v([^/]+)/docs/alerts\.md")]
    private static partial Regex RunbookDocsVersion();
}
