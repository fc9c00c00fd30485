using System.Text.RegularExpressions;

namespace LogFlushMonitor.Tests.Deploy;

/// <summary>
/// docs/architecture.md's project table against the repository: a project added under src/ without a row, or a row
/// left behind by a project that moved or went, fails here; so does a test folder the table names that is not there.
/// </summary>
public sealed partial class ArchitectureDocTests
{
    private static readonly string Doc = File.ReadAllText(DeployFiles.Path("docs", "architecture.md"));

    [Fact]
    public void Every_src_project_has_a_row_and_every_row_names_a_project()
    {
        var onDisk = Directory.GetDirectories(DeployFiles.Path("src"))
            .Where(d => File.Exists(Path.Combine(d, Path.GetFileName(d) + ".csproj")))
            .Select(d => Path.GetFileName(d))
            .Order(StringComparer.Ordinal)
            .ToList();
        var rows = ProjectRow().Matches(Doc).Select(m => m.Groups[1].Value).ToList();

        Assert.True(onDisk.Count >= 10, $"found {onDisk.Count} projects under src/");
        Assert.Equal(rows.Count, rows.Distinct(StringComparer.Ordinal).Count());
        Assert.Equal(onDisk, rows.Order(StringComparer.Ordinal).ToList());
    }

    [Fact]
    public void Every_path_the_doc_names_exists()
    {
        var paths = NamedPath().Matches(Doc).Select(m => m.Groups[1].Value.TrimEnd('/')).Distinct(StringComparer.Ordinal).ToList();

        Assert.NotEmpty(paths);
        Assert.All(paths, p => Assert.True(
            Directory.Exists(DeployFiles.Path(p.Split('/'))) || File.Exists(DeployFiles.Path(p.Split('/'))),
            $"docs/architecture.md names `{p}`, which is not in the repository"));
    }

    // A row of the project table: | `src/Name` | ...
    [GeneratedRegex(@"^\| `src/([A-Za-z0-9.]+)` \|", RegexOptions.Multiline)]
    private static partial Regex ProjectRow();

    // Every `src/...` or `tests/...` path in backquotes.
    [GeneratedRegex(@"`((?:src|tests)/[A-Za-z0-9./_-]+)`")]
    private static partial Regex NamedPath();
}
