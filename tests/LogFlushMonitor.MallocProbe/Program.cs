using System.Globalization;
using System.Runtime.InteropServices;
using LogFlushMonitor.Hosting;

// Usage: LogFlushMonitor.MallocProbe tuned|untuned
// Prints "mapped" when a 300 KB block, allocated after a 1 MB block was freed, is a mapping of its own, "arena" when it
// came from a heap; with "tuned", MallocTuning.Apply runs first. Exit 2 on a usage error, 3 when the tuning was not applied.
if (args is not ["tuned"] and not ["untuned"])
{
    Console.Error.WriteLine("usage: LogFlushMonitor.MallocProbe tuned|untuned");
    return 2;
}

if (args[0] == "tuned" && MallocTuning.Apply(Environment.GetEnvironmentVariable) is var result && result != MallocTuningResult.Applied)
{
    Console.WriteLine($"not applied: {result}");
    return 3;
}

// Freeing a 1 MB mapped block makes glibc raise its threshold to 1 MB, unless the tuning fixed it: then a 300 KB
// block comes from a heap.
Marshal.FreeHGlobal(Marshal.AllocHGlobal(1 << 20));
var block = Marshal.AllocHGlobal(300 * 1024);
try
{
    // A mapped chunk starts its mapping; the pointer follows the chunk's two-word header.
    var chunk = (ulong)block - 16;
    var mapped = chunk % 4096 == 0 && File.ReadLines("/proc/self/maps")
        .Select(line => line[..line.IndexOf(' ', StringComparison.Ordinal)].Split('-'))
        .Any(r => ulong.Parse(r[0], NumberStyles.HexNumber, CultureInfo.InvariantCulture) == chunk
            && ulong.Parse(r[1], NumberStyles.HexNumber, CultureInfo.InvariantCulture) - chunk >= 300 * 1024);
    Console.WriteLine(FormattableString.Invariant($"{(mapped ? "mapped" : "arena")} 0x{(ulong)block:x}"));
    return 0;
}
finally
{
    Marshal.FreeHGlobal(block);
}
