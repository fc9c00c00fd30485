using System.Diagnostics;

namespace LogFlushMonitor.Benchmarks.Core;

/// <summary>
/// Memory of the metric stack in this process for a 10 x 100 fleet (<see cref="Fleet"/>): populates it, scrapes
/// 1,000 times through the handler (no HTTP) and prints the managed heap after a full collection, the GC's
/// committed memory and the working set at 10, 100, 500 and 1,000 scrapes.
/// Run: dotnet run -c Release --project bench/LogFlushMonitor.Benchmarks -- memory [--no-scope-labels] [--steps] [--large]
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
                Console.WriteLine($"provider, no data: heap {Heap():0.0} MB (large object heap {LargeObjectHeap():0.0} MB)");
                Console.WriteLine($"provider, no data, scraped ({await ScrapeAsync(empty):N0} B): heap {Heap():0.0} MB");
            }

            using var f = Fleet.Create(10, 100);
            Console.WriteLine($"populated: heap {Heap():0.0} MB (large object heap {LargeObjectHeap():0.0} MB)");
            Console.WriteLine($"scraped once ({await ScrapeAsync(f):N0} B): heap {Heap():0.0} MB (large object heap {LargeObjectHeap():0.0} MB)");
            return;
        }

        if (args.Contains("--large"))
        {
            await LargeAsync();
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

    /// <summary>
    /// What 100 scrapes of the 10 x 100 fleet allocate on the large object heap, by type (sampled: one AllocationTick
    /// per about 100 KB), after 10 warm-up scrapes.
    /// </summary>
    private static async Task LargeAsync()
    {
        using var fleet = Fleet.Create(10, 100);
        for (var i = 0; i < 10; i++)
        {
            await ScrapeAsync(fleet);
        }

        using var listener = new LargeAllocationListener();
        var allocated = GC.GetTotalAllocatedBytes(precise: true);
        for (var i = 0; i < 100; i++)
        {
            await ScrapeAsync(fleet);
        }

        var (large, small) = listener.Snapshot();
        Console.WriteLine($"100 scrapes: {(GC.GetTotalAllocatedBytes(precise: true) - allocated) / 100 / 1024.0:0.0} KB allocated per scrape; {small} small-object ticks; large-object ticks by type:");
        foreach (var (type, (ticks, bytes)) in large.OrderByDescending(kv => kv.Value.Ticks))
        {
            Console.WriteLine($"  {ticks,6} ticks, last objects {bytes / 1024.0,10:0.0} KB in all  {type}");
        }

        if (large.Count == 0)
        {
            Console.WriteLine("  none");
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

    /// <summary>The large object heap after the last collection, MB.</summary>
    private static double LargeObjectHeap()
    {
        _ = Heap();
        return GC.GetGCMemoryInfo(GCKind.FullBlocking).GenerationInfo[3].SizeAfterBytes / 1048576.0;
    }
}
