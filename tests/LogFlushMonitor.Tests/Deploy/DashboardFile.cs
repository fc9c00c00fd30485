using System.Text.Json;

namespace LogFlushMonitor.Tests.Deploy;

/// <summary>
/// deploy/grafana/logflushmonitor.json as Grafana lays it out: rows, each with its panels (an expanded row's panels
/// follow it in the top-level list; a collapsed row holds its own), in order.
/// </summary>
internal static class DashboardFile
{
    public static JsonElement Root() => JsonDocument.Parse(File.ReadAllText(DeployFiles.Path("deploy", "grafana", "logflushmonitor.json"))).RootElement;

    /// <summary>Each row: its title, whether it starts collapsed, and its panels in order.</summary>
    public static List<(string Title, bool Collapsed, List<JsonElement> Panels)> Rows(JsonElement root)
    {
        var rows = new List<(string Title, bool Collapsed, List<JsonElement> Panels)>();
        foreach (var panel in root.GetProperty("panels").EnumerateArray())
        {
            if (panel.GetProperty("type").GetString() == "row")
            {
                var collapsed = panel.TryGetProperty("collapsed", out var c) && c.GetBoolean();
                rows.Add((panel.GetProperty("title").GetString()!, collapsed, collapsed ? [.. panel.GetProperty("panels").EnumerateArray()] : []));
            }
            else
            {
                Assert.True(rows.Count > 0, $"panel '{panel.GetProperty("title").GetString()}' comes before the first row");
                rows[^1].Panels.Add(panel);
            }
        }

        return rows;
    }

    /// <summary>Every panel that shows data (rows left out), in order.</summary>
    public static List<JsonElement> Panels(JsonElement root) => [.. Rows(root).SelectMany(r => r.Panels)];

    public static string Title(JsonElement panel) => panel.GetProperty("title").GetString()!;

    public static string Expr(JsonElement panel) => panel.GetProperty("targets")[0].GetProperty("expr").GetString()!;
}
