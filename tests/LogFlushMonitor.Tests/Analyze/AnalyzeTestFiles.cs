using LogFlushMonitor.XEvent.TestSupport;

namespace LogFlushMonitor.Tests.Analyze;

/// <summary>A temporary folder of writer-made .xel files, deleted at the end of the test.</summary>
public sealed class AnalyzeTestFiles : IDisposable
{
    public static readonly DateTime Start = new(2026, 11, 22, 8, 0, 0, DateTimeKind.Utc);

    public AnalyzeTestFiles()
    {
        Directory = Path.Combine(Path.GetTempPath(), "lfm-analyze-" + Guid.NewGuid().ToString("N")[..10]);
        System.IO.Directory.CreateDirectory(Directory);
    }

    public string Directory { get; }

    public string PathOf(string name) => Path.Combine(Directory, name);

    /// <summary>Writes a file with the test writer (small buffers, so even small files have several).</summary>
    public string Write(string name, Action<XelWriter> write, int bufferSize = 8192, XelWriterOptions? options = null)
    {
        var path = PathOf(name);
        System.IO.Directory.CreateDirectory(Path.GetDirectoryName(path)!);
        using var fs = new FileStream(path, FileMode.Create, FileAccess.Write);
        using var w = new XelWriter(fs, Start, (options ?? new XelWriterOptions()) with { BufferSize = bufferSize });
        write(w);
        w.Flush();
        return path;
    }

    /// <summary>Autocommit shape: <paramref name="count"/> flushes, 98 % of 512 B, the rest larger.</summary>
    public static IReadOnlyList<uint> AutocommitSizes(int count) =>
        [.. Enumerable.Range(0, count).Select(i => (i % 100) switch { 0 => 1024u, 1 => 61440u, _ => 512u })];

    public void Dispose()
    {
        try
        {
            System.IO.Directory.Delete(Directory, recursive: true);
        }
        catch (IOException)
        {
        }
    }
}
