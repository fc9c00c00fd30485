namespace LogFlushMonitor.Tests.Deploy;

/// <summary>
/// The Dockerfile restores from the project files alone (a cached layer the code does not invalidate), which
/// works only while every project sits in src/&lt;Name&gt;/&lt;Name&gt;.csproj; and the image checks its own health.
/// </summary>
public class DockerfileTests
{
    private static readonly string[] Lines = File.ReadAllLines(DeployFiles.Path("Dockerfile"));

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
}
