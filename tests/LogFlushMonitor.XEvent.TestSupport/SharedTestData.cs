namespace LogFlushMonitor.XEvent.TestSupport;

/// <summary>Finds the shared/ folder that sits beside the repository (…/main and …/shared, or on CI &lt;clone&gt;/../shared).</summary>
public static class SharedTestData
{
    private static readonly Lazy<string> Root = new(FindShared);

    /// <summary>The shared/ folder.</summary>
    public static string SharedDirectory => Root.Value;

    /// <summary>The real server-written file (149 events).</summary>
    public static string RealXelFile => Path.Combine(SharedDirectory, "testdata", "xel", "TestXel_0.xel");

    private static string FindShared()
    {
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            var candidate = Path.Combine(dir.FullName, "shared");
            if (File.Exists(Path.Combine(candidate, "XEL-FORMAT.md")))
            {
                return candidate;
            }
        }

        throw new DirectoryNotFoundException(
            $"Could not find the shared/ folder (with XEL-FORMAT.md and testdata/xel) walking up from {AppContext.BaseDirectory}. " +
            "Check out the repository with shared/ beside it (e.g. /work/main and /work/shared).");
    }
}
