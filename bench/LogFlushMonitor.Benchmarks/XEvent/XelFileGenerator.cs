using System.Diagnostics;
using System.Globalization;
using LogFlushMonitor.XEvent.TestSupport;

namespace LogFlushMonitor.Benchmarks.XEvent;

/// <summary>
/// <c>make-xel</c>: writes big log-flush .xel files with the test writer, for the figures issue 11 asks for
/// (<c>analyze</c> on 200 MB and 1 GB files, rollover sets for the parallel reader).
/// <code>
/// dotnet run -c Release --project bench/LogFlushMonitor.Benchmarks -- make-xel --size 200MB --out /tmp/x.xel
/// dotnet run -c Release --project bench/LogFlushMonitor.Benchmarks -- make-xel --size 1GB --files 8 --out /tmp/set/logflush.xel
/// </code>
/// With <c>--files N</c> the size is the whole set's, and the files are a rollover set named like the server
/// names them (<c>logflush_0_&lt;ticks&gt;.xel</c> beside <c>--out</c>), each with its own header and metadata, the
/// event_sequence numbering continuing from file to file. Content: three databases (two committing row by
/// row in 512-byte flushes, one loading in blocks up to 60 KB), a log_flush_complete per flush, a WRITELOG
/// wait for every third, database_id/database_name/event_sequence actions, and one event_sequence gap of two
/// in about every 5,000 events; 256 KB buffers. Deterministic for a given size and file count (seed 1).
/// </summary>
public static class XelFileGenerator
{
    /// <summary>Parses the arguments after <c>make-xel</c>, writes the files, prints what it wrote; returns the exit code.</summary>
    public static int Run(string[] args)
    {
        long size = 200L * 1024 * 1024;
        var files = 1;
        string? output = null;
        for (var i = 0; i < args.Length; i++)
        {
            switch (args[i])
            {
                case "--size" when i + 1 < args.Length && TryParseSize(args[i + 1], out var s):
                    size = s;
                    i++;
                    break;
                case "--files" when i + 1 < args.Length && int.TryParse(args[i + 1], NumberStyles.None, CultureInfo.InvariantCulture, out var n) && n > 0:
                    files = n;
                    i++;
                    break;
                case "--out" when i + 1 < args.Length:
                    output = args[++i];
                    break;
                default:
                    Console.Error.WriteLine($"make-xel: unexpected or invalid '{args[i]}'{(i + 1 < args.Length ? $" '{args[i + 1]}'" : "")}. Usage: make-xel --size 200MB|1GB|<bytes> [--files N] --out <path.xel>");
                    return 2;
            }
        }

        if (output is null)
        {
            Console.Error.WriteLine("make-xel: --out <path.xel> is required");
            return 2;
        }

        var sw = Stopwatch.StartNew();
        var paths = Write(output, size, files);
        foreach (var (path, bytes, events) in paths)
        {
            Console.WriteLine(FormattableString.Invariant($"{path}\t{bytes:N0} bytes\t{events:N0} events"));
        }

        Console.Error.WriteLine(FormattableString.Invariant($"make-xel: {paths.Count} file(s), {paths.Sum(p => p.Bytes):N0} bytes, {paths.Sum(p => p.Events):N0} events in {sw.Elapsed.TotalSeconds:F1} s"));
        return 0;
    }

    /// <summary>Writes the file or rollover set; returns (path, bytes, events) per file.</summary>
    public static List<(string Path, long Bytes, long Events)> Write(string output, long totalBytes, int files)
    {
        var directory = Path.GetDirectoryName(Path.GetFullPath(output))!;
        Directory.CreateDirectory(directory);
        var start = new DateTime(2026, 11, 22, 8, 0, 0, DateTimeKind.Utc);
        var rng = new Random(1);
        string[] names = ["sales", "stock", "reporting"];
        var result = new List<(string, long, long)>();
        var t = start;
        ulong seq = 0, block = 1;
        for (var f = 0; f < files; f++)
        {
            var path = files == 1
                ? output
                : Path.Combine(directory, FormattableString.Invariant($"{Path.GetFileNameWithoutExtension(output)}_0_{t.ToFileTimeUtc()}.xel"));
            var target = totalBytes / files;
            using var fs = new FileStream(path, FileMode.Create, FileAccess.Write, FileShare.Read, 1 << 20);
            using var w = new XelWriter(fs, t, new XelWriterOptions { BufferSize = 256 * 1024 });
            while (fs.Length < target)
            {
                // Batches of 1,000 flushes (about 240 KB): a file ends within one batch of its target size.
                for (var i = 0; i < 1_000; i++)
                {
                    t = t.AddTicks(rng.Next(1, 2000));
                    var db = (uint)rng.Next(5, 8);
                    var name = names[db - 5];
                    var writeSize = db == 7 ? (rng.Next(4) == 0 ? 61440u : (uint)rng.Next(1, 120) * 512) : (rng.Next(50) == 0 ? 1024u : 512u);
                    w.LogFlushStart(t, db, name, writeSize, block, ++seq);
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
            result.Add((path, fs.Length, w.EventCount));
            t = t.AddSeconds(1);
        }

        return result;
    }

    private static bool TryParseSize(string text, out long bytes)
    {
        var units = new (string Suffix, long Factor)[] { ("GB", 1L << 30), ("MB", 1L << 20), ("KB", 1L << 10), ("", 1) };
        foreach (var (suffix, factor) in units)
        {
            if (text.EndsWith(suffix, StringComparison.OrdinalIgnoreCase)
                && double.TryParse(text.AsSpan(0, text.Length - suffix.Length), NumberStyles.Float, CultureInfo.InvariantCulture, out var v) && v > 0)
            {
                bytes = (long)(v * factor);
                return true;
            }
        }

        bytes = 0;
        return false;
    }
}
