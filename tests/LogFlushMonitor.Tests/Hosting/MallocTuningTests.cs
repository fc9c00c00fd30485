using System.Globalization;
using System.Runtime.InteropServices;
using LogFlushMonitor.Hosting;

namespace LogFlushMonitor.Tests.Hosting;

/// <summary>
/// The service fixes glibc's mmap threshold at start (<see cref="MallocTuning"/>), so large native blocks (zlib's state
/// for each gzip scrape) go back to the system when freed instead of staying in a thread's arena.
/// </summary>
public sealed class MallocTuningTests
{
    [SkippableFact]
    public void After_apply_a_large_block_is_a_mapping_of_its_own_even_once_glibc_has_raised_its_threshold()
    {
        Skip.IfNot(OperatingSystem.IsLinux(), "glibc's mallopt and /proc/self/maps are Linux only");

        // Freeing a 1 MB mapped block makes glibc raise its threshold to 1 MB (its dynamic threshold), so without the
        // tuning the 300 KB block below would come from an arena. (Once the tuning ran in this process, the raise no
        // longer happens and the block is mapped either way: the assertion holds exactly when the tuning is in force.)
        Marshal.FreeHGlobal(Marshal.AllocHGlobal(1 << 20));

        Assert.Equal(MallocTuningResult.Applied, MallocTuning.Apply(_ => null));

        var block = Marshal.AllocHGlobal(300 * 1024);
        try
        {
            // A mapped chunk starts its mapping; the pointer follows the chunk's two-word header.
            var chunk = (ulong)block - 16;
            Assert.True(chunk % 4096 == 0, $"block at 0x{(ulong)block:x} is not at the start of a page + 16: it came from an arena");
            Assert.Contains(Mappings(), m => m.Start == chunk && m.End - m.Start >= 300 * 1024);
        }
        finally
        {
            Marshal.FreeHGlobal(block);
        }
    }

    [Fact]
    public void The_operators_threshold_stands()
    {
        var expected = OperatingSystem.IsLinux() ? MallocTuningResult.SetByEnvironment : MallocTuningResult.NotApplicable;
        Assert.Equal(expected, MallocTuning.Apply(name => name == MallocTuning.EnvironmentVariable ? "65536" : null));
        Assert.Contains(MallocTuning.EnvironmentVariable, MallocTuning.Describe(MallocTuningResult.SetByEnvironment), StringComparison.Ordinal);
    }

    private static List<(ulong Start, ulong End)> Mappings() =>
        File.ReadLines("/proc/self/maps")
            .Select(line => line[..line.IndexOf(' ', StringComparison.Ordinal)].Split('-'))
            .Select(r => (ulong.Parse(r[0], NumberStyles.HexNumber, CultureInfo.InvariantCulture), ulong.Parse(r[1], NumberStyles.HexNumber, CultureInfo.InvariantCulture)))
            .ToList();
}
