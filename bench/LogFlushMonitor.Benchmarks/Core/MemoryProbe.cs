using System.Diagnostics;

namespace LogFlushMonitor.Benchmarks.Core;

/// <summary>
/// Memory of the metric stack in this process for a 10 x 100 fleet (<see cref="Fleet"/>): populates it, scrapes
/// 1,000 times through the handler (no HTTP) and prints the managed heap after a full collection, the GC's
/// committed memory and the working set at 10, 100, 500 and 1,000 scrapes.
/// Run: dotnet run -c Release --project bench/LogFlushMonitor.Benchmarks -- memory [--no-scope-labels] [--steps]
/// </summary>
public static class MemoryProbe
{
    private static readonly int[] Checkpoints = [10, 100, 500, 1000];

    public static async Task RunAsync(string[] args)
    {
        var before = Process.GetCurrentProcess().WorkingSet64;
        if (args.Contains("--steps"))
        {
            Console.WriteLine($"start heap {Heap():0.0} MB");
            using (var empty = Fleet.Create(0, 0))
            {
                Console.WriteLine($"provider, no data: heap {Heap():0.0} MB");
                Console.WriteLine($"provider, no data, scraped ({await ScrapeAsync(empty):N0} B): heap {Heap():0.0} MB");
            }

            using var f = Fleet.Create(10, 100);
            Console.WriteLine($"populated: heap {Heap():0.0} MB");
            Console.WriteLine($"scraped once ({await ScrapeAsync(f):N0} B): heap {Heap():0.0} MB");
            return;
        }

        var scopeLabels = !args.Contains("--no-scope-labels");
        using var fleet = Fleet.Create(10, 100, scopeLabels);
        Console.WriteLine($"fleet 10 x 100 (scope labels {scopeLabels}) populated: heap {Heap():0.0} MB, working set {WorkingSet():0.0} MB (process start {before / 1048576.0:0.0} MB)");
        Console.WriteLine("| scrapes | bytes per scrape | ms per scrape | managed heap after full GC, MB | GC heap size, MB | GC committed, MB | working set, MB | allocated per scrape, KB |");
        Console.WriteLine("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
        var watch = Stopwatch.StartNew();
        var allocated = GC.GetTotalAllocatedBytes(precise: true);
        var done = 0;
        long bytes = 0;
        foreach (var checkpoint in Checkpoints)
        {
            for (; done < checkpoint; done++)
            {
                bytes = await ScrapeAsync(fleet);
            }

            var perScrape = watch.Elapsed.TotalMilliseconds / checkpoint;
            var allocatedPerScrape = (GC.GetTotalAllocatedBytes(precise: true) - allocated) / 1024.0 / checkpoint;
            var info = GC.GetGCMemoryInfo(GCKind.Any);
            var row = $"| {checkpoint:N0} | {bytes:N0} | {perScrape:0.0} | {Heap():0.0} | {info.HeapSizeBytes / 1048576.0:0.0} | {info.TotalCommittedBytes / 1048576.0:0.0} | {WorkingSet():0.0} | {allocatedPerScrape:0.0} |";
            Console.WriteLine(row);
        }
    }

    /// <summary>One scrape as the HTTP endpoint does it, without HTTP; returns the text's length.</summary>
    private static Task<long> ScrapeAsync(Fleet fleet) => fleet.Handler.ScrapeToAsync(Stream.Null);

    private static double WorkingSet()
    {
        using var process = Process.GetCurrentProcess();
        return process.WorkingSet64 / 1048576.0;
    }

    private static double Heap()
    {
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        return GC.GetTotalMemory(true) / 1048576.0;
    }
}
