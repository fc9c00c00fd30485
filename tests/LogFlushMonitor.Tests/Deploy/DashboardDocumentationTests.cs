using System.Text.Json;
using System.Text.RegularExpressions;

namespace LogFlushMonitor.Tests.Deploy;

/// <summary>
/// Issue 24 item 6: the README described dashboard rows the dashboard did not have (and missed panels it had). The
/// README's list of panels is now checked against the dashboard file, in order.
/// </summary>
public class DashboardDocumentationTests
{
    [Fact]
    public void The_README_lists_exactly_the_dashboards_panels_in_their_order()
    {
        using var dashboard = JsonDocument.Parse(File.ReadAllText(DeployFiles.Path("deploy", "grafana", "logflushmonitor.json")));
        var panels = dashboard.RootElement.GetProperty("panels").EnumerateArray().Select(p => p.GetProperty("title").GetString() ?? "").ToList();

        var readme = File.ReadAllText(DeployFiles.Path("README.md"));
        var section = Regex.Match(readme, "<!-- dashboard panels -->\\n(?<list>.*?)<!-- /dashboard panels -->", RegexOptions.Singleline);
        Assert.True(section.Success, "README.md has no <!-- dashboard panels --> list");
        var listed = section.Groups["list"].Value.Split('\n', StringSplitOptions.RemoveEmptyEntries).Select(l => l.TrimStart('-', ' ').TrimEnd()).ToList();

        Assert.Equal(panels, listed);
    }
}
