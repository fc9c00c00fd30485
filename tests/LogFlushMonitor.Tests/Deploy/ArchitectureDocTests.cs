using System.Reflection;
using System.Text.Json.Serialization;
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

    [Fact]
    public void The_signal_table_lists_every_registered_signal_with_its_own_type_row_and_recording()
    {
        var rows = SignalRow().Matches(Doc).ToDictionary(m => m.Groups["name"].Value, m => m, StringComparer.Ordinal);
        var registered = LogFlushMonitor.Core.Signals.SignalRegistry.All;

        Assert.Equal(registered.Select(s => s.Name).Order(StringComparer.Ordinal), rows.Keys.Order(StringComparer.Ordinal));
        foreach (var signal in registered)
        {
            var row = rows[signal.Name];
            Assert.Equal(signal.GetType().Name, row.Groups["type"].Value);
            var rowType = signal.GetType().BaseType!.GetGenericArguments().Single();
            var named = row.Groups["row"].Value;
            Assert.True(named == rowType.Name || named == $"{rowType.DeclaringType?.Name}.{rowType.Name}", $"{signal.Name}: the table names row {named}, the signal's row is {rowType.Name}");
            var recorded = row.Groups["line"].Value;
            if (signal.Recording is { } recording)
            {
                Assert.Equal($"`{recording.LineType}`", recorded);
            }
            else
            {
                Assert.StartsWith("(", recorded, StringComparison.Ordinal);
            }
        }
    }

    [Fact]
    public void Every_type_the_ownership_tables_and_the_walkthrough_name_exists()
    {
        // Outside code blocks, a backquoted PascalCase word is a type of ours (members are written Type.Member).
        var prose = CodeBlock().Replace(Doc, "");
        var names = TypeName().Matches(prose).Select(m => m.Groups[1].Value).Distinct(StringComparer.Ordinal).ToList();
        // What a name may be: a type, a member or a namespace of ours (the tests' too), or one of the framework types the
        // walkthrough uses.
        const BindingFlags All = BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Instance | BindingFlags.Static | BindingFlags.DeclaredOnly;
        var ours = new[] { typeof(LogFlushMonitor.Core.Signals.Signal), typeof(LogFlushMonitor.SqlServer.SqlServerInstance), typeof(LogFlushMonitor.Recording.NdjsonSampleWriter), typeof(LogFlushMonitor.Analysis.AnalyzeReport), typeof(LogFlushMonitor.XEvent.XelConstants), typeof(Program), typeof(LogFlushMonitor.Testing.RecordingSink), typeof(ArchitectureDocTests) }
            .SelectMany(t => t.Assembly.GetTypes())
            .ToList();
        var known = ours.Select(t => t.Name.Split('`')[0])
            .Concat(ours.SelectMany(t => t.GetMembers(All)).Select(m => m.Name))
            .Concat(ours.SelectMany(t => (t.Namespace ?? "").Split('.')))
            .Concat(new[] { typeof(JsonPropertyNameAttribute), typeof(JsonRequiredAttribute), typeof(JsonSerializerContext), typeof(Console) }.Select(t => t.Name.Replace("Attribute", "", StringComparison.Ordinal)))
            .ToHashSet(StringComparer.Ordinal);

        Assert.True(names.Count > 40, $"found {names.Count} type names");
        var missing = names.Where(n => !known.Contains(n)).ToList();
        Assert.True(missing.Count == 0, "docs/architecture.md names types or members that do not exist: " + string.Join(", ", missing));
    }

    // A row of the signal table: | `name` | `Type` | `Row` | reads | recorded as |
    [GeneratedRegex(@"^\| `(?<name>[a-z_]+)` \| `(?<type>[A-Za-z]+)` \| `(?<row>[A-Za-z.]+)` \| [^|]+ \| (?<line>[^|]+?) \|$", RegexOptions.Multiline)]
    private static partial Regex SignalRow();

    [GeneratedRegex(@"```.*?```", RegexOptions.Singleline)]
    private static partial Regex CodeBlock();

    // `TypeName`, `TypeName<TRow>`, `TypeName.Member`: the type part, PascalCase with a lower-case letter after the first.
    [GeneratedRegex(@"`([A-Z][a-z][A-Za-z0-9]*)(?:<[A-Za-z]+>)?(?:\.[A-Za-z]+)*`")]
    private static partial Regex TypeName();

    // A row of the project table: | `src/Name` | ...
    [GeneratedRegex(@"^\| `src/([A-Za-z0-9.]+)` \|", RegexOptions.Multiline)]
    private static partial Regex ProjectRow();

    // Every `src/...` or `tests/...` path in backquotes.
    [GeneratedRegex(@"`((?:src|tests)/[A-Za-z0-9./_-]+)`")]
    private static partial Regex NamedPath();
}
