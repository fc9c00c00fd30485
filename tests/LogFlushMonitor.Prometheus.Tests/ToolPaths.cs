namespace LogFlushMonitor.Prometheus.Tests;

/// <summary>The Debian prometheus package's promtool; CI installs it, tests skip without it (the server: Testing's RealPrometheus).</summary>
internal static class ToolPaths
{
    public static string Promtool => Environment.GetEnvironmentVariable("PROMTOOL") ?? "/usr/bin/promtool";
}
