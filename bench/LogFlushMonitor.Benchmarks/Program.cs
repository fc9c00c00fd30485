using System.Globalization;
using BenchmarkDotNet.Running;
using LogFlushMonitor.Benchmarks.Core;
using LogFlushMonitor.Benchmarks.Fleet;
using LogFlushMonitor.Benchmarks.XEvent;

namespace LogFlushMonitor.Benchmarks;

/// <summary>
/// Runs the benchmarks chosen on the command line (BenchmarkSwitcher), or one of the modes: <c>memory</c> (the
/// in-process memory probe), <c>make-fleet</c> (writes a fleet NDJSON file), <c>scrape-rss</c> (the real
/// service's resident set over many scrapes), <c>make-xel</c> (writes big log-flush .xel files), <c>db-memory</c> (bytes per watched database by component), <c>soak</c> (the real service's memory
/// at the simulator's highest rate, minute by minute).
/// </summary>
public static class BenchmarkProgram
{
    public static async Task<int> Main(string[] args)
    {
        switch (args)
        {
            case ["memory", ..]:
                await MemoryProbe.RunAsync(args[1..]);
                return 0;
            case ["make-fleet", .. var rest]:
                return MakeFleet(rest);
            case ["scrape-rss", .. var rest]:
                return await ServiceScrapeMemory.RunAsync(rest);
            case ["db-memory", .. var rest]:
                return DatabaseMemoryProbe.Run(rest);
            case ["make-xel", .. var rest]:
                return XelFileGenerator.Run(rest);
            case ["soak", .. var rest]:
                return await Soak.SoakRun.RunAsync(rest);
            default:
                BenchmarkSwitcher.FromAssembly(typeof(BenchmarkProgram).Assembly).Run(args);
                return 0;
        }
    }

    private static int MakeFleet(string[] args)
    {
        int instances = 10, databases = 100;
        string? output = null;
        for (var i = 0; i + 1 < args.Length; i += 2)
        {
            switch (args[i])
            {
                case "--instances": instances = int.Parse(args[i + 1], CultureInfo.InvariantCulture); break;
                case "--databases": databases = int.Parse(args[i + 1], CultureInfo.InvariantCulture); break;
                case "--out": output = args[i + 1]; break;
                default: output = null; i = args.Length; break;
            }
        }

        if (output is null || args.Length % 2 != 0)
        {
            Console.Error.WriteLine("make-fleet --out <fleet.ndjson> [--instances 10] [--databases 100]");
            return 2;
        }

        if (databases > FleetFileGenerator.MaxDatabasesPerInstance)
        {
            Console.Error.WriteLine($"--databases {databases}: one SQL Server instance holds at most 32,767 databases, and this fleet gives ids from 5, so at most {FleetFileGenerator.MaxDatabasesPerInstance:N0} per instance; give more --instances instead.");
            return 2;
        }

        var lines = FleetFileGenerator.Write(Path.GetFullPath(output), instances, databases);
        Console.WriteLine($"Wrote {lines:N0} lines ({new FileInfo(output).Length:N0} bytes) for {instances} instances x {databases} databases to {Path.GetFullPath(output)}.");
        Console.WriteLine($"Replay it with: logflushmonitor run --replay {Path.GetFullPath(output)} --speed 0");
        return 0;
    }
}
