namespace LogFlushMonitor.XEvent.TestSupport;

/// <summary>
/// Real files kept in the repository under tests/testdata (see its README for origin and licence). The build
/// copies them beside the binaries of every project that references this one, so tests and benchmarks need
/// nothing outside the clone.
/// </summary>
public static class TestData
{
    /// <summary>The real server-written file TestXel_0.xel (149 events, no log-flush events).</summary>
    public static string RealXelFile => Locate(Path.Combine("testdata", "xel", "TestXel_0.xel"));

    private static string Locate(string relative)
    {
        var beside = Path.Combine(AppContext.BaseDirectory, relative);
        if (File.Exists(beside))
        {
            return beside;
        }

        throw new FileNotFoundException(
            $"{relative} is not beside the test binaries in {AppContext.BaseDirectory}. It is copied there from tests/{relative} " +
            "by the build of LogFlushMonitor.XEvent.TestSupport: rebuild the test project.",
            beside);
    }
}
