using BenchmarkDotNet.Running;
using LogFlushMonitor.Benchmarks.Core;
using LogFlushMonitor.Benchmarks.XEvent;

namespace LogFlushMonitor.Benchmarks;

/// <summary>Runs the benchmarks chosen on the command line (BenchmarkSwitcher); <c>memory</c> runs the memory probe, <c>make-xel</c> writes big .xel files.</summary>
public static class BenchmarkProgram
{
    public static async Task Main(string[] args)
    {
        if (args is ["memory", ..])
        {
            await MemoryProbe.RunAsync();
            return;
        }

        if (args is ["make-xel", .. var rest])
        {
            Environment.ExitCode = XelFileGenerator.Run(rest);
            return;
        }

        BenchmarkSwitcher.FromAssembly(typeof(BenchmarkProgram).Assembly).Run(args);
    }
}
