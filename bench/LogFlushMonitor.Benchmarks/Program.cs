using BenchmarkDotNet.Running;

namespace LogFlushMonitor.Benchmarks;

/// <summary>Runs the benchmarks chosen on the command line (BenchmarkSwitcher).</summary>
public static class BenchmarkProgram
{
    public static void Main(string[] args) => BenchmarkSwitcher.FromAssembly(typeof(BenchmarkProgram).Assembly).Run(args);
}
