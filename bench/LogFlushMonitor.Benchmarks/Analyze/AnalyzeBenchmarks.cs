// Latest results (2026-11-22 14:05 UTC, after 613d08f "XE mapper: read database_name once per database id" and
// d62c7f5 "TryGetInt64 fast path"; AMD EPYC, 2 cores shared with other sessions' builds, load average 7-16, so
// error bars are wide; files in the page cache; BenchmarkDotNet 0.14.0, --inProcess, 3 warm-ups, 10 iterations):
//
// | Method               | Mean       | StdDev    | Ratio | Allocated |
// |--------------------- |-----------:|----------:|------:|----------:|
// | Floor_LogFlushFile   |  33.8 ms   |  10.3 ms  | 1.00  |       0 B |
// | Analyze_LogFlushFile | 267.9 ms   |  14.1 ms  | 8.63  |  739.9 KB |
// | Floor_RealFile       |  32.3 us   |   4.7 us  | 0.001 |     216 B |
// | Analyze_RealFile     | 153.0 us   |  27.5 us  | 0.005 |  149.5 KB |
//
// Generated file: 209,762,304 bytes, 2,030,850 events. Analyze: 747 MB/s (132 ns/event) against a floor of
// ~5.9 GB/s => about 12 % of the floor's MB/s (goal 25 %: NOT met). Before those two commits: 557.9 ms
// (8-13 % with the floor at 44-75 ms under heavier load). TestXel_0.xel: ~21 % of the floor (149 events,
// fixed costs: expanding, opening, rendering). Allocation per run is fixed (report, Spectre rendering), not per
// event: AnalyzeInProcessTests checks that 4x the events allocate no more.
// Where the time goes (Stopwatch, same file, rough under load): framing alone (XelReader, handler reading the
// ticks) 65-110 ms; XEventSampleMapper with a null sink ~214 ms; mapper + LogFlushAggregator ~312 ms; full
// analyze ~360 ms. Framing, the mapper's field/action reads and the aggregator's per-event work (a lock, a
// Math.Log per duration in LatencyDistribution) are each a large share; the analyze layer (AnalyzeSink,
// progress stream) adds little. 25 % (about 66 ns/event here) needs work in XEvent and Core, not in Analyze.
//
// Peak working set of the real executable (not BenchmarkDotNet), measured with
//   /usr/bin/time -v dotnet src/LogFlushMonitor/bin/Release/net10.0/logflushmonitor.dll analyze <file> --progress never
// on files made by the same generator as below (XelWriter, 256 KB buffers, 3 databases, flush start + complete +
// WRITELOG waits, ~103 bytes per event), files in the page cache:
//   1,075,247,104 bytes (1.0 GB), 10,409,705 events: max RSS 48,684 KB (goal < 100 MB: met); 2.21 s wall,
//     report "read in 2.06 s (497.2 MB/s)"; with --format json --progress always: max RSS 45,024 KB.
//   2,427,392 bytes, 23,430 events: max RSS 48,140 KB.  TestXel_0.xel: max RSS 46,100 KB.
//   Re-run at 14:08 UTC after the mapper changes: max RSS 48,736-48,848 KB; 1.49-1.65 s user + 0.2 s sys CPU for
//     the 1 GB file (~690 MB/s of CPU time; wall time 2.2-12 s depending on the other sessions' load).
//   => flat: the working set is the runtime's, not the input's.
//
// report (2026-11-23 14:00 UTC, load average 5-8, --inProcess, 2 warm-ups, 8 iterations; the same file):
//
// | Method               | Mean      | StdDev    | Ratio | Allocated |
// |--------------------- |----------:|----------:|------:|----------:|
// | Floor_LogFlushFile   |  16.90 ms |  0.498 ms |  1.00 |     318 B |
// | Analyze_LogFlushFile | 181.64 ms | 16.953 ms | 10.75 | 867.6 KB  |
// | Report_LogFlushFile  | 194.05 ms |  5.484 ms | 11.49 | 943.0 KB  |
//
// The report's time series (a null check per event in AnalyzeSink, then a bucket index and three adds) costs about
// 6 ns per event, inside the noise; its allocation is fixed (24 KB of buckets per database, the HTML page).
//
// 2026-11-23: analyze now decodes on every core by default (Analyze_LogFlushFile) and on the calling thread with
// --threads 1 (Analyze_LogFlushFile_OneThread); these two have not been re-run in BenchmarkDotNet yet (the machine was
// at load 13-47). Whole-process figures of both, JIT and NativeAOT, against cat and cksum: bench/README.md, "analyze
// throughput" (bench/analyze/throughput.sh).
//
// 2026-11-25 17:20-17:30 UTC, load average 17-23 (so only indicative), --inProcess, 2 warm-ups, 8 iterations, before
// (main 16616e3) and after flush pairing (issue 19: a hash insert and remove per flush), two rounds each:
// Analyze_LogFlushFile 702 / 485 ms before, 649 / 665 ms after; Analyze_LogFlushFile_OneThread 377 / 392 ms before,
// 534 / 481 ms after; Floor 102-157 ms. Allocated per run: 1.72 -> 3.06 MB (parallel), 0.99 -> 1.65 MB (one thread),
// the pair tables, fixed per run. Whole-process CPU medians: bench/README.md, "analyze with flush pairing".
//
// Run: dotnet run -c Release --project bench/LogFlushMonitor.Benchmarks -- --filter '*AnalyzeBenchmarks*'
// (when other projects are mid-edit, add --inProcess so BenchmarkDotNet does not rebuild them).

using BenchmarkDotNet.Attributes;
using LogFlushMonitor.Benchmarks.Shared;
using LogFlushMonitor.Analysis;
using LogFlushMonitor.Commands;
using LogFlushMonitor.XEvent.TestSupport;


namespace LogFlushMonitor.Benchmarks.Analyze;

/// <summary>
/// <c>analyze</c> end to end in-process (expand, read, map, aggregate, render the text report to a null
/// writer) against the floor: reading the same bytes sequentially with a trivial checksum, in the same run.
/// Goal: analyze at least 25 % of the floor's MB/s on the generated log-flush file (at least 200 MB).
/// </summary>
[MemoryDiagnoser]
public class AnalyzeBenchmarks
{
    private const long TargetBytes = 200L * 1024 * 1024;

    private string _directory = null!;
    private string _logFlushFile = null!;
    private string _realFile = null!;

    [GlobalSetup]
    public void Setup()
    {
        _directory = Path.Combine(Path.GetTempPath(), "analyze-bench-" + Environment.ProcessId);
        Directory.CreateDirectory(_directory);
        _logFlushFile = Path.Combine(_directory, "logflush_0_133900000000000000.xel");
        _realFile = TestData.RealXelFile;
        var (bytes, events) = Generate(_logFlushFile, TargetBytes);
        Console.WriteLine($"// generated {bytes:N0} bytes, {events:N0} events; real file {new FileInfo(_realFile).Length:N0} bytes");
    }

    [GlobalCleanup]
    public void Cleanup() => Directory.Delete(_directory, recursive: true);

    [Benchmark(Baseline = true)]
    public ulong Floor_LogFlushFile() => SequentialReadFloor.Read(_logFlushFile);

    /// <summary>Every core (the default: one decoding worker per core, tallies merged at the end).</summary>
    [Benchmark]
    public int Analyze_LogFlushFile() => Analyze(_logFlushFile);

    /// <summary><c>--threads 1</c>: the sequential reader on the calling thread.</summary>
    [Benchmark]
    public int Analyze_LogFlushFile_OneThread() => Analyze(_logFlushFile, threads: 1);

    /// <summary><c>report</c>: the same reading plus the per-database time series and the HTML page.</summary>
    [Benchmark]
    public int Report_LogFlushFile() => Commands.ReportCommand.Run(
        new AnalyzeSettings { Inputs = [_logFlushFile], Progress = ProgressMode.Never }, new FileInfo(Path.Combine(_directory, "report.html")), TextWriter.Null, TextWriter.Null, CancellationToken.None);

    [Benchmark]
    public ulong Floor_RealFile() => SequentialReadFloor.Read(_realFile);

    [Benchmark]
    public int Analyze_RealFile() => Analyze(_realFile);

    /// <summary>
    /// Writes a log-flush file of at least <paramref name="targetBytes"/>: three databases (two committing row
    /// by row, one loading in large blocks), a log_flush_complete per flush, a WRITELOG wait for every third,
    /// and a few event_sequence gaps. Also used to make the 1 GB file for the working-set measurement.
    /// </summary>
    public static (long Bytes, long Events) Generate(string path, long targetBytes)
    {
        var start = new DateTime(2026, 11, 22, 8, 0, 0, DateTimeKind.Utc);
        var rng = new Random(1);
        string[] names = ["sales", "stock", "reporting"];
        using var fs = new FileStream(path, FileMode.Create, FileAccess.Write, FileShare.Read, 1 << 20);
        using var w = new XelWriter(fs, start, new XelWriterOptions { BufferSize = 256 * 1024 });
        var t = start;
        ulong seq = 0, block = 1;
        while (fs.Length < targetBytes)
        {
            for (var i = 0; i < 10_000; i++)
            {
                t = t.AddTicks(rng.Next(1, 2000));
                var db = (uint)rng.Next(5, 8);
                var name = names[db - 5];
                var size = db == 7 ? (rng.Next(4) == 0 ? 61440u : (uint)rng.Next(1, 120) * 512) : (rng.Next(50) == 0 ? 1024u : 512u);
                w.LogFlushStart(t, db, name, size, block, ++seq);
                w.LogFlushComplete(t.AddTicks(300), db, name, block++, (ulong)rng.Next(50, 3000), ++seq);
                if (rng.Next(3) == 0)
                {
                    w.WaitCompleted(t.AddTicks(350), XelWriter.WriteLogKey, (ulong)rng.Next(0, 25), db, ++seq, 0, name);
                }

                if (rng.Next(5000) == 0)
                {
                    seq += 2;
                }
            }
        }

        w.Flush();
        return (fs.Length, w.EventCount);
    }

    private static int Analyze(string path, int? threads = null)
    {
        var settings = new AnalyzeSettings { Inputs = [path], Progress = ProgressMode.Never, Threads = threads ?? Environment.ProcessorCount };
        return AnalyzeRunner.Run(settings, ExitCodes.Of, TextWriter.Null, TextWriter.Null, CancellationToken.None);
    }

}
