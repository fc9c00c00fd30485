using System.Runtime.InteropServices;

namespace LogFlushMonitor.Hosting;

/// <summary>What <see cref="MallocTuning.Apply"/> did.</summary>
internal enum MallocTuningResult
{
    /// <summary>glibc now maps every allocation of <see cref="MallocTuning.MmapThreshold"/> bytes or more, and unmaps it on free.</summary>
    Applied,

    /// <summary>The operator set <c>MALLOC_MMAP_THRESHOLD_</c>: glibc follows it and the service leaves it alone.</summary>
    SetByEnvironment,

    /// <summary>Not Linux with glibc (Windows, macOS, musl): nothing to do.</summary>
    NotApplicable,
}

/// <summary>
/// Keeps the native heap of a long-running service from holding memory it no longer uses (issue 11: resident memory
/// at 10 instances x 100 databases). glibc serves an allocation of 128 KB or more with its own mapping, but after the
/// first such block is freed it raises that threshold to the block's size (up to 32 MB), so later blocks of that size
/// come from the per-thread heaps ("arenas") instead, and stay resident there after they are freed. Each gzip /metrics
/// response allocates zlib's state (several hundred KB) on whichever thread-pool thread serves it: measured with the
/// native build, six arenas held 2.1 MB each, 12.5 MB in all, after 500 scrapes. Fixing the threshold at 128 KB
/// (glibc's own default, without the dynamic raise) returns those blocks to the system on free
/// (bench/README.md): 81.5 → 67.8 MB after 1,000 scrapes, and 19.3 → 16.7 ms per scrape. It costs a mapping per large block, about one per scrape.
/// </summary>
internal static partial class MallocTuning
{
    /// <summary>The fixed threshold: glibc's default starting value.</summary>
    public const int MmapThreshold = 128 * 1024;

    /// <summary>The variable glibc reads at start; when it is set, the operator's value stands.</summary>
    public const string EnvironmentVariable = "MALLOC_MMAP_THRESHOLD_";

    // mallopt's parameter number for the mmap threshold (malloc.h).
    private const int MmapThresholdParameter = -3;

    /// <summary>Fixes glibc's mmap threshold unless <paramref name="environment"/> has <see cref="EnvironmentVariable"/>.</summary>
    public static MallocTuningResult Apply(Func<string, string?> environment)
    {
        if (!OperatingSystem.IsLinux())
        {
            return MallocTuningResult.NotApplicable;
        }

        if (!string.IsNullOrEmpty(environment(EnvironmentVariable)))
        {
            return MallocTuningResult.SetByEnvironment;
        }

        try
        {
            // glibc returns 1; musl's mallopt is a stub that returns 0.
            return MallOpt(MmapThresholdParameter, MmapThreshold) == 1 ? MallocTuningResult.Applied : MallocTuningResult.NotApplicable;
        }
        catch (Exception e) when (e is DllNotFoundException or EntryPointNotFoundException)
        {
            return MallocTuningResult.NotApplicable;
        }
    }

    /// <summary>One line for the log at start.</summary>
    public static string Describe(MallocTuningResult result) => result switch
    {
        MallocTuningResult.Applied => $"glibc malloc: blocks of {MmapThreshold / 1024} KB and more are mapped on their own and returned to the system when freed (set {EnvironmentVariable} to choose another threshold)",
        MallocTuningResult.SetByEnvironment => $"glibc malloc: {EnvironmentVariable} is set; its threshold is kept",
        _ => "native allocator left as it is (not glibc)",
    };

    [LibraryImport("libc", EntryPoint = "mallopt")]
    private static partial int MallOpt(int parameter, int value);
}
