using System.Text.RegularExpressions;
using LogFlushMonitor.Simulation;

namespace LogFlushMonitor.Tests.Deploy;

/// <summary>
/// Issue 35 items 4, 6 and 7: what the README tells a DBA stays true. Its alert list is the rules' list; its example
/// settings are the file every archive carries; its first query keeps same-named databases of different instances
/// apart; the commands that differ by install (the image's port, the tool's source) live in docs/install.md alone; the
/// scenarios it names exist; the articles it starts from are named with their addresses; and the first screen shows a
/// picture, a page and a summary before Install.
/// </summary>
public partial class ReadmeTests
{
    private static readonly string Readme = File.ReadAllText(DeployFiles.Path("README.md"));

    [Fact]
    public void Every_scenario_has_its_row_in_docs_simulate_md_and_every_row_is_a_scenario()
    {
        // The page a DBA reads to pick a scenario: one row per name the simulator takes, none for a name it does not.
        var page = File.ReadAllText(DeployFiles.Path("docs", "simulate.md"));
        var rows = Regex.Matches(page, @"^\| `(?<name>[a-z-]+)`", RegexOptions.Multiline).Select(m => m.Groups["name"].Value).ToList();
        Assert.Equal(SimulationScenarios.Names.Order(StringComparer.Ordinal), rows.Order(StringComparer.Ordinal));
        Assert.Contains("(docs/simulate.md)", Readme, StringComparison.Ordinal);
    }

    [Fact]
    public void The_alert_list_is_the_alerts_of_alerts_yml_in_their_order()
    {
        var section = Regex.Match(Readme, "<!-- alerts -->\\n(?<list>.*?)<!-- /alerts -->", RegexOptions.Singleline);
        Assert.True(section.Success, "README.md has no <!-- alerts --> list");
        var listed = Regex.Matches(section.Groups["list"].Value, @"^\| `(?<name>\w+)` \|", RegexOptions.Multiline).Select(m => m.Groups["name"].Value);
        var rules = File.ReadAllLines(DeployFiles.Path("deploy", "prometheus", "alerts.yml"))
            .Select(l => l.Trim())
            .Where(l => l.StartsWith("- alert: ", StringComparison.Ordinal))
            .Select(l => l["- alert: ".Length..]);
        Assert.Equal(rules, listed);
    }

    [Fact]
    public void The_example_settings_are_the_file_every_archive_carries()
    {
        var block = Regex.Match(Readme, @"\n(?<indent> *)```jsonc\n(?<json>.*?)\n\k<indent>```\n", RegexOptions.Singleline);
        Assert.True(block.Success, "README.md has no jsonc block");
        var indent = block.Groups["indent"].Value;
        var json = string.Join("\n", block.Groups["json"].Value.Split('\n').Select(l => l.StartsWith(indent, StringComparison.Ordinal) ? l[indent.Length..] : l));
        Assert.Equal(File.ReadAllText(DeployFiles.Path("deploy", "appsettings.example.json")).TrimEnd('\n'), json);
    }

    [Fact]
    public void Every_query_that_groups_by_database_groups_by_instance_too()
    {
        // The same database name on two instances is two databases: summed together they would hide each other.
        var groupings = Regex.Matches(Readme, @"by \((?<labels>[^)]*)\)").Select(m => m.Groups["labels"].Value).ToList();
        Assert.NotEmpty(groupings);
        Assert.All(groupings.Where(g => g.Contains("sqlserver_database_name", StringComparison.Ordinal)), g => Assert.Contains("sqlserver_instance_name", g, StringComparison.Ordinal));
    }

    [Fact]
    public void Commands_that_differ_by_install_are_written_once_in_the_install_page()
    {
        // The README used `docker run -p 9464:9464` and a tool install without --add-source while docs/install.md said
        // otherwise: now the README links the install page's sections and repeats neither.
        Assert.DoesNotContain("docker run", Readme, StringComparison.Ordinal);
        Assert.DoesNotContain("dotnet tool install", Readme, StringComparison.Ordinal);
        foreach (var section in new[] { "#linux", "#windows", "#container-image", "#net-tool" })
        {
            Assert.Contains($"(docs/install.md{section})", Readme, StringComparison.Ordinal);
        }

        // The defaults beside the executable are left alone (the archive's SHA256SUMS covers them): yours go in the
        // working directory, as docs/install.md says.
        Assert.Contains("leave it", Readme, StringComparison.Ordinal);
        Assert.Contains("(the defaults, read beside the\nexecutable: leave it)", File.ReadAllText(DeployFiles.Path("docs", "install.md")), StringComparison.Ordinal);
        Assert.DoesNotContain("beside the executable, the working directory", Readme, StringComparison.Ordinal);
    }

    [Fact]
    public void Every_scenario_the_README_runs_exists()
    {
        var named = Regex.Matches(Readme, @"--simulate (?<s>[a-z-]+)").Select(m => m.Groups["s"].Value).Distinct().ToList();
        Assert.Contains("writelog-spike-long", named);
        Assert.All(named, s => Assert.Contains(s, SimulationScenarios.Names));
        // The list of scenarios is the simulator's.
        var list = Regex.Match(Readme, @"Scenarios: (?<list>(?:`[a-z-]+`,?\s*)+)\.");
        Assert.Equal(SimulationScenarios.Names, Regex.Matches(list.Groups["list"].Value, "`([a-z-]+)`").Select(m => m.Groups[1].Value));
    }

    [Fact]
    public void The_articles_it_starts_from_are_named_with_their_addresses()
    {
        var section = Regex.Match(Readme, @"^## Where it comes from\n(?<text>.*?)(?=^## )", RegexOptions.Singleline | RegexOptions.Multiline);
        Assert.True(section.Success, "README.md has no section \"## Where it comes from\"");
        var links = Regex.Matches(section.Groups["text"].Value, @"\]\((?<url>https://[^)]+)\)").Select(m => m.Groups["url"].Value).ToList();
        Assert.Equal(5, links.Count);
        Assert.Contains("the [articles](#where-it-comes-from)", Readme, StringComparison.Ordinal);
        Assert.DoesNotContain("the articles the project starts from", Readme, StringComparison.OrdinalIgnoreCase);
    }

    [Fact]
    public void The_first_screen_shows_a_picture_a_page_and_a_summary_then_Install_and_the_internals_live_in_the_architecture_page()
    {
        var install = Readme.IndexOf("\n## Install\n", StringComparison.Ordinal);
        var first = Readme[..install];
        Assert.Contains("![", first, StringComparison.Ordinal);
        Assert.Contains("SqlServerWritelogSpike  severity=critical", first, StringComparison.Ordinal);
        Assert.Contains("runbook_url: ", first, StringComparison.Ordinal);
        Assert.Contains("SummaryService: sql1/payments:", first, StringComparison.Ordinal);
        Assert.DoesNotContain("\n## ", first, StringComparison.Ordinal);
        // The diagram of the internals is for developers: docs/architecture.md has it.
        Assert.DoesNotContain("bounded channel", Readme, StringComparison.Ordinal);
        Assert.Contains("bounded channel (drops counted)", File.ReadAllText(DeployFiles.Path("docs", "architecture.md")), StringComparison.Ordinal);
    }
}
