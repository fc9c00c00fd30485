using BenchmarkDotNet.Running;
using LogFlushMonitor.Benchmarks.Core;

namespace LogFlushMonitor.Benchmarks;

/// <summary>Runs the benchmarks chosen on the command line (BenchmarkSwitcher); <c>memory</c> runs the memory probe.</summary>
public static class BenchmarkProgram
{
    public static async Task Main(string[] args)
    {
        if (args is ["memory", ..])
        {
            await MemoryProbe.RunAsync();
            return;
        }

        BenchmarkSwitcher.FromAssembly(typeof(BenchmarkProgram).Assembly).Run(args);
    }
}
