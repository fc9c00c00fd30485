using System.Diagnostics;

namespace LogFlushMonitor.Benchmarks.Core;

/// <summary>
/// Process memory of the metric stack for a fleet: populates 10 x 100 databases, scrapes 20 times, and
/// prints the working set and managed heap. Run: dotnet run -c Release --project bench/LogFlushMonitor.Benchmarks -- memory
/// </summary>
public static class MemoryProbe
{
    public static async Task RunAsync()
    {
        var before = Process.GetCurrentProcess().WorkingSet64;
        if (Environment.GetCommandLineArgs().Contains("--steps"))
        {
            Console.WriteLine($"start heap {Heap():0.0} MB");
            using (var empty = Fleet.Create(0, 0))
            {
                Console.WriteLine($"provider, no data: heap {Heap():0.0} MB");
                using var l0 = await empty.Handler.ScrapeAsync();
                Console.WriteLine($"provider, no data, scraped: heap {Heap():0.0} MB");
            }

            using var f = Fleet.Create(10, 100);
            Console.WriteLine($"populated: heap {Heap():0.0} MB");
            using (var l1 = await f.Handler.ScrapeAsync())
            {
                Console.WriteLine($"scraped once ({l1.Content.Length:N0} B): heap {Heap():0.0} MB");
            }

            return;
        }

        var scopeLabels = !Environment.GetCommandLineArgs().Contains("--no-scope-labels");
        using var fleet = Fleet.Create(10, 100, scopeLabels);
        var bytes = 0;
        var watch = Stopwatch.StartNew();
        for (var i = 0; i < 20; i++)
        {
            using var lease = await fleet.Handler.ScrapeAsync();
            bytes = lease.Content.Length;
        }

        var perScrape = watch.Elapsed.TotalMilliseconds / 20;
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        var process = Process.GetCurrentProcess();
        process.Refresh();
        Console.WriteLine($"fleet 10 x 100 (scope labels {scopeLabels}): scrape {bytes:N0} bytes, {perScrape:0.0} ms per scrape (20 scrapes, first included)");
        Console.WriteLine($"working set {process.WorkingSet64 / 1048576.0:0.0} MB (process start {before / 1048576.0:0.0} MB), peak {process.PeakWorkingSet64 / 1048576.0:0.0} MB, managed heap {GC.GetTotalMemory(false) / 1048576.0:0.0} MB");
    }

    private static double Heap()
    {
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        return GC.GetTotalMemory(true) / 1048576.0;
    }
}
