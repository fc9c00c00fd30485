using System.Text.RegularExpressions;

namespace LogFlushMonitor.Tests.Deploy;

/// <summary>
/// Issue 24 item 6: the README described dashboard rows the dashboard did not have (and missed panels it had). Issue 35
/// item 5 grouped the panels in rows under a first row that answers "is anything wrong now, and where?": docs/dashboard.md
/// names each row and its panels, in the dashboard's order, and the README names the rows.
/// </summary>
public partial class DashboardDocumentationTests
{
    [Fact]
    public void The_dashboard_page_lists_exactly_the_rows_and_panels_in_their_order()
    {
        var rows = DashboardFile.Rows(DashboardFile.Root());
        var page = File.ReadAllText(DeployFiles.Path("docs", "dashboard.md"));
        var section = Regex.Match(page, "<!-- dashboard rows -->\\n(?<list>.*?)<!-- /dashboard rows -->", RegexOptions.Singleline);
        Assert.True(section.Success, "docs/dashboard.md has no <!-- dashboard rows --> list");

        // Each "### row" heading, then the panels named in bold in the text under it (a name may wrap onto the next line).
        var documented = new List<(string Row, List<string> Panels)>();
        foreach (var part in section.Groups["list"].Value.Split("### ", StringSplitOptions.RemoveEmptyEntries))
        {
            var newline = part.IndexOf('\n', StringComparison.Ordinal);
            var names = BoldRegex().Matches(part[newline..]).Select(m => Regex.Replace(m.Groups[1].Value, @"\s+", " ")).ToList();
            documented.Add((part[..newline].Trim(), names));
        }

        Assert.Equal(rows.Select(r => r.Title), documented.Select(d => d.Row));
        foreach (var (row, (_, panels)) in rows.Zip(documented))
        {
            Assert.Equal(row.Panels.Select(DashboardFile.Title), panels);
        }
    }

    [Fact]
    public void The_README_names_every_row_and_links_the_dashboard_page()
    {
        var readme = File.ReadAllText(DeployFiles.Path("README.md"));
        Assert.Contains("(docs/dashboard.md)", readme, StringComparison.Ordinal);
        foreach (var (title, _, _) in DashboardFile.Rows(DashboardFile.Root()))
        {
            // The row's name, before the colon of its question ("Now: is anything wrong, and where?").
            var name = title.Split(':')[0];
            Assert.True(readme.Contains(name, StringComparison.Ordinal), $"the README does not name the dashboard row '{name}'");
        }
    }

    [GeneratedRegex(@"\*\*(.+?)\*\*", RegexOptions.Singleline)]
    private static partial Regex BoldRegex();
}
