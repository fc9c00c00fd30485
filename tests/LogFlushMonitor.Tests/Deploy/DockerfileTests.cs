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
    public void Image_has_a_health_check_through_the_executable()
    {
        var healthcheck = Assert.Single(Lines, l => l.StartsWith("HEALTHCHECK", StringComparison.Ordinal));
        var command = Lines[Array.IndexOf(Lines, healthcheck) + 1];
        Assert.Contains("\"/app/logflushmonitor\", \"health\", \"--url\", \"http://127.0.0.1:9464/healthz\"", command, StringComparison.Ordinal);
        Assert.Contains(Lines, l => l.StartsWith("USER $APP_UID", StringComparison.Ordinal));
    }
}
