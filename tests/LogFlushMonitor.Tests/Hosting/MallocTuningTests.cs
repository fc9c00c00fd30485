using LogFlushMonitor.Hosting;
using LogFlushMonitor.Tests.Deploy;

namespace LogFlushMonitor.Tests.Hosting;

/// <summary>
/// The service fixes glibc's mmap threshold at start (<see cref="MallocTuning"/>), so large native blocks (zlib's state
/// for each gzip scrape) go back to the system when freed instead of staying in a thread's arena.
/// </summary>
public sealed class MallocTuningTests
{
    /// <summary>
    /// In a process of its own (tests/LogFlushMonitor.MallocProbe): inside the test host, glibc may serve the block from
    /// a free chunk or a heap's top that other tests left behind (it maps only what no heap can serve), and once any
    /// host has applied the tuning the untuned case cannot be seen at all. Both cases run, so the test fails when the
    /// tuning does nothing as well as when it breaks.
    /// </summary>
    [SkippableFact]
    public async Task After_apply_a_large_block_is_a_mapping_of_its_own_even_once_glibc_has_raised_its_threshold()
    {
        Skip.IfNot(OperatingSystem.IsLinux(), "glibc's mallopt and /proc/self/maps are Linux only");
        Skip.If(File.Exists("/etc/alpine-release"), "musl has no mallopt: the tuning does not apply");

        var (code, tuned) = await ProbeAsync("tuned");
        Assert.True(code == 0, tuned);
        Assert.StartsWith("mapped ", tuned, StringComparison.Ordinal);

        // Without it, glibc's raised threshold puts the same block in a heap: what the tuning is for.
        (code, var untuned) = await ProbeAsync("untuned");
        Assert.True(code == 0, untuned);
        Assert.StartsWith("arena ", untuned, StringComparison.Ordinal);
    }

    private static async Task<(int Code, string Output)> ProbeAsync(string mode)
    {
        // glibc reads its tunables from the environment at start: the probe must see its defaults.
        var tunables = Environment.GetEnvironmentVariables().Keys.Cast<string>()
            .Where(k => k.StartsWith("MALLOC_", StringComparison.Ordinal) || k == "GLIBC_TUNABLES")
            .ToDictionary(k => k, _ => (string?)null);
        var (code, stdout, stderr) = await Tool.RunAsync("dotnet", [Path.Combine(AppContext.BaseDirectory, "LogFlushMonitor.MallocProbe.dll"), mode], environment: tunables);
        return (code, stdout.Trim() + stderr.Trim());
    }

    [Fact]
    public void The_operators_threshold_stands()
    {
        var expected = OperatingSystem.IsLinux() ? MallocTuningResult.SetByEnvironment : MallocTuningResult.NotApplicable;
        Assert.Equal(expected, MallocTuning.Apply(name => name == MallocTuning.EnvironmentVariable ? "65536" : null));
        Assert.Contains(MallocTuning.EnvironmentVariable, MallocTuning.Describe(MallocTuningResult.SetByEnvironment), StringComparison.Ordinal);
    }
}
