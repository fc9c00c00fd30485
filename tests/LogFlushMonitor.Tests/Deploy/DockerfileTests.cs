namespace LogFlushMonitor.Tests.Deploy;

/// <summary>
/// The Dockerfile restores from the project files alone (a cached layer the code does not invalidate), which
/// works only while every project sits in src/&lt;Name&gt;/&lt;Name&gt;.csproj; and the image checks its own health.
/// Dockerfile.release builds the published image from the release binaries and ends in the same runtime stage.
/// No Docker engine runs here: the files are read, not built (the release workflow builds and runs the image).
/// </summary>
public class DockerfileTests
{
    private static readonly string[] Lines = File.ReadAllLines(DeployFiles.Path("Dockerfile"));
    private static readonly string[] ReleaseLines = File.ReadAllLines(DeployFiles.Path("Dockerfile.release"));

    /// <summary>The lines of the last stage, from its FROM on, with continuation lines joined.</summary>
    private static List<string> FinalStage(string[] lines)
    {
        var from = Array.FindLastIndex(lines, l => l.StartsWith("FROM ", StringComparison.Ordinal));
        var joined = new List<string>();
        var current = "";
        foreach (var line in lines[from..])
        {
            if (line.TrimStart().StartsWith('#') || line.Trim().Length == 0)
            {
                continue;
            }

            current += line.TrimEnd().TrimEnd('\\').Trim() + " ";
            if (!line.TrimEnd().EndsWith('\\'))
            {
                joined.Add(current.Trim());
                current = "";
            }
        }

        return joined;
    }

    /// <summary>The runtime part of the last stage: ENV, EXPOSE, HEALTHCHECK, USER, ENTRYPOINT, CMD.</summary>
    private static List<string> Runtime(string[] lines) =>
        [.. FinalStage(lines).Where(l => l.Split(' ')[0] is "ENV" or "EXPOSE" or "HEALTHCHECK" or "USER" or "ENTRYPOINT" or "CMD")];

    private static Dictionary<string, string> Labels(string[] lines)
    {
        var labels = new Dictionary<string, string>(StringComparer.Ordinal);
        foreach (var line in FinalStage(lines).Where(l => l.StartsWith("LABEL ", StringComparison.Ordinal)))
        {
            foreach (System.Text.RegularExpressions.Match m in System.Text.RegularExpressions.Regex.Matches(line, @"([a-z.]+)=""([^""]*)"""))
            {
                labels[m.Groups[1].Value] = m.Groups[2].Value;
            }
        }

        return labels;
    }

    private static int IndexOf(Func<string, bool> match) => Array.FindIndex(Lines, l => match(l));

    [Fact]
    public void Restore_runs_before_the_sources_are_copied()
    {
        var restore = IndexOf(l => l.Contains("dotnet restore", StringComparison.Ordinal));
        var copyAll = IndexOf(l => l.Trim() == "COPY . .");
        var copyProjects = IndexOf(l => l.Contains("COPY src/*/*.csproj", StringComparison.Ordinal));
        Assert.True(copyProjects >= 0 && restore > copyProjects && copyAll > restore, "expected COPY of the project files, dotnet restore, then COPY . .");
        Assert.Contains(Lines, l => l.Contains("dotnet publish", StringComparison.Ordinal) && l.Contains("--no-restore", StringComparison.Ordinal));
        // The restore layer sees the files that decide package versions.
        Assert.Contains(Lines, l => l.StartsWith("COPY global.json Directory.Build.props Directory.Packages.props", StringComparison.Ordinal));
    }

    [Fact]
    public void Every_project_the_image_builds_follows_the_layout_the_restore_layer_relies_on()
    {
        var projects = Directory.EnumerateFiles(DeployFiles.Path("src"), "*.csproj", SearchOption.AllDirectories).ToList();
        Assert.NotEmpty(projects);
        Assert.All(projects, p => Assert.Equal(Path.GetFileNameWithoutExtension(p), Path.GetFileName(Path.GetDirectoryName(p))));
        Assert.All(projects, p => Assert.Equal(DeployFiles.Path("src"), Path.GetDirectoryName(Path.GetDirectoryName(p))));
    }

    [Fact]
    public void Image_runs_the_native_build_on_the_runtime_deps_base()
    {
        var stages = Lines.Where(l => l.StartsWith("FROM ", StringComparison.Ordinal)).ToList();
        Assert.Equal(2, stages.Count);
        // The final stage has no .NET runtime: only the native executable's dependencies.
        Assert.StartsWith("FROM mcr.microsoft.com/dotnet/runtime-deps:10.0", stages[^1], StringComparison.Ordinal);
        var publish = Assert.Single(Lines, l => l.Contains("dotnet publish", StringComparison.Ordinal));
        Assert.Contains("-p:PublishAot=true", publish, StringComparison.Ordinal);
        Assert.Contains("-r linux-x64", publish, StringComparison.Ordinal);
        // The restore layer restores for the same runtime and PublishAot, or --no-restore would find no native compiler.
        var restore = Assert.Single(Lines, l => l.Contains("dotnet restore", StringComparison.Ordinal));
        Assert.Contains("-r linux-x64 -p:PublishAot=true", restore, StringComparison.Ordinal);
        // NativeAOT links with clang against zlib.
        Assert.Contains(Lines, l => l.Contains("clang", StringComparison.Ordinal) && l.Contains("zlib1g-dev", StringComparison.Ordinal));
    }

    [Fact]
    public void Image_has_a_health_check_through_the_executable()
    {
        var healthcheck = Assert.Single(Lines, l => l.StartsWith("HEALTHCHECK", StringComparison.Ordinal));
        var command = Lines[Array.IndexOf(Lines, healthcheck) + 1];
        Assert.Contains("\"/app/logflushmonitor\", \"health\", \"--url\", \"http://127.0.0.1:9464/healthz\"", command, StringComparison.Ordinal);
        Assert.Contains(Lines, l => l.StartsWith("USER $APP_UID", StringComparison.Ordinal));
    }

    [Fact]
    public void The_release_image_is_the_release_binary_on_the_runtime_deps_base_built_without_running_anything()
    {
        var stages = ReleaseLines.Where(l => l.StartsWith("FROM ", StringComparison.Ordinal)).ToList();
        Assert.Equal(["FROM mcr.microsoft.com/dotnet/runtime-deps:10.0"], stages);
        // No RUN: the arm64 image builds on an x64 runner without emulation, and nothing is compiled in the image.
        Assert.DoesNotContain(ReleaseLines, l => l.StartsWith("RUN ", StringComparison.Ordinal));
        Assert.DoesNotContain(ReleaseLines, l => l.Contains("dotnet ", StringComparison.Ordinal) && !l.TrimStart().StartsWith('#'));
        // The binary build/release.sh lays out per architecture, named as Docker's TARGETARCH names it.
        Assert.Contains("ARG TARGETARCH", ReleaseLines);
        Assert.Contains("COPY --chmod=0755 linux-${TARGETARCH}/logflushmonitor /app/logflushmonitor", ReleaseLines);
        Assert.Contains("COPY --chmod=0644 linux-${TARGETARCH}/appsettings.json /app/appsettings.json", ReleaseLines);
        var release = File.ReadAllText(DeployFiles.Path("build", "release.sh"));
        Assert.Contains("[ \"$arch\" = x64 ] && arch=amd64", release, StringComparison.Ordinal);
        Assert.Contains("$out/image/linux-$arch", release, StringComparison.Ordinal);
        // COPY --chmod needs the BuildKit front end the first line asks for.
        Assert.Equal("# syntax=docker/dockerfile:1", ReleaseLines[0]);
    }

    [Fact]
    public void Both_images_end_in_the_same_runtime_stage_non_root_with_the_health_check()
    {
        var runtime = Runtime(Lines);
        Assert.Equal(runtime, Runtime(ReleaseLines));
        Assert.Contains("USER $APP_UID", runtime);
        Assert.Contains("HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 CMD [\"/app/logflushmonitor\", \"health\", \"--url\", \"http://127.0.0.1:9464/healthz\"]", runtime);
        Assert.Contains("ENTRYPOINT [\"/app/logflushmonitor\"]", runtime);
        // USER comes after everything that writes into the image, and the process is never root.
        Assert.True(FinalStage(ReleaseLines).FindIndex(l => l.StartsWith("USER ", StringComparison.Ordinal)) > FinalStage(ReleaseLines).FindLastIndex(l => l.StartsWith("COPY ", StringComparison.Ordinal)));
    }

    [Fact]
    public void The_release_image_carries_the_open_container_labels_from_the_build_arguments()
    {
        var labels = Labels(ReleaseLines);
        Assert.Equal(
            ["created", "description", "documentation", "licenses", "revision", "source", "title", "url", "version"],
            labels.Keys.Select(k => k["org.opencontainers.image.".Length..]).Order());
        Assert.Equal("${VERSION}", labels["org.opencontainers.image.version"]);
        Assert.Equal("${REVISION}", labels["org.opencontainers.image.revision"]);
        Assert.Equal("${CREATED}", labels["org.opencontainers.image.created"]);
        Assert.Equal("${SOURCE}", labels["org.opencontainers.image.source"]);
        Assert.Equal("${LICENSES}", labels["org.opencontainers.image.licenses"]);
        foreach (var arg in new[] { "VERSION", "REVISION", "CREATED", "SOURCE", "LICENSES" })
        {
            Assert.Contains(ReleaseLines, l => l.StartsWith($"ARG {arg}", StringComparison.Ordinal));
        }

        // The release workflow passes each of them.
        var workflow = File.ReadAllText(DeployFiles.Path(".github", "workflows", "release.yml"));
        foreach (var arg in new[] { "VERSION=", "REVISION=", "CREATED=", "SOURCE=" })
        {
            Assert.Contains(arg, workflow, StringComparison.Ordinal);
        }

        // The image built from source says what it is too.
        Assert.Contains("org.opencontainers.image.source", Labels(Lines).Keys);
        Assert.Contains("org.opencontainers.image.revision", Labels(Lines).Keys);
    }
}
