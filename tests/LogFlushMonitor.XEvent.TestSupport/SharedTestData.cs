namespace LogFlushMonitor.XEvent.TestSupport;

/// <summary>Finds the shared/ folder that sits beside the repository (…/main and …/shared, or on CI &lt;clone&gt;/../shared).</summary>
public static class SharedTestData
{
    private static readonly Lazy<string> Root = new(FindShared);

    /// <summary>The shared/ folder.</summary>
    public static string SharedDirectory => Root.Value;

    /// <summary>The real server-written file (149 events).</summary>
    public static string RealXelFile => Path.Combine(SharedDirectory, "testdata", "xel", "TestXel_0.xel");

    /// <summary>Environment variable that overrides the search with an explicit shared/ path.</summary>
    public const string OverrideVariable = "LOGFLUSHMONITOR_SHARED";

    private static string FindShared()
    {
        if (Environment.GetEnvironmentVariable(OverrideVariable) is { Length: > 0 } explicitPath)
        {
            return File.Exists(Path.Combine(explicitPath, "XEL-FORMAT.md"))
                ? explicitPath
                : throw new DirectoryNotFoundException($"{OverrideVariable}={explicitPath} does not hold XEL-FORMAT.md");
        }

        // From the binaries (tests, benchmarks), then from the working directory (tools run elsewhere).
        foreach (var start in new[] { AppContext.BaseDirectory, Environment.CurrentDirectory })
        {
            for (var dir = new DirectoryInfo(start); dir is not null; dir = dir.Parent)
            {
                var candidate = Path.Combine(dir.FullName, "shared");
                if (File.Exists(Path.Combine(candidate, "XEL-FORMAT.md")))
                {
                    return candidate;
                }
            }
        }

        throw new DirectoryNotFoundException(
            $"Could not find the shared/ folder (with XEL-FORMAT.md and testdata/xel) walking up from {AppContext.BaseDirectory} or {Environment.CurrentDirectory}. " +
            $"Check out the repository with shared/ beside it (e.g. /work/main and /work/shared), or set {OverrideVariable}.");
    }
}
