namespace LogFlushMonitor.Prometheus.Tests;

/// <summary>The Debian prometheus package's binaries; CI installs them, tests skip without them.</summary>
internal static class ToolPaths
{
    public static string Promtool => Environment.GetEnvironmentVariable("PROMTOOL") ?? "/usr/bin/promtool";

    public static string Prometheus => Environment.GetEnvironmentVariable("PROMETHEUS") ?? "/usr/bin/prometheus";
}
