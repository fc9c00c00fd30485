using LogFlushMonitor.XEvent.Binary;
using LogFlushMonitor.XEvent.Metadata;
using LogFlushMonitor.XEvent.TestSupport;

namespace LogFlushMonitor.XEvent.Tests;

public class FileSetTests : IDisposable
{
    private static readonly DateTime Start = new(2026, 11, 22, 9, 0, 0, DateTimeKind.Utc);
    private readonly string _dir = XelTestFiles.TempDirectory();

    public void Dispose()
    {
        Directory.Delete(_dir, recursive: true);
        GC.SuppressFinalize(this);
    }

    private string Write(string name, DateTime start, int events, ulong firstBlock)
    {
        var path = Path.Combine(_dir, name);
        using var fs = File.Create(path);
        using var w = new XelWriter(fs, start, new XelWriterOptions { BufferSize = 1024 });
        for (var i = 0; i < events; i++)
        {
            w.LogFlushStart(start.AddSeconds(i + 1), 5, "db", 512, firstBlock + (ulong)i);
        }

        return path;
    }

    [Fact]
    public void Rollover_files_are_ordered_by_the_ticks_part_not_by_name()
    {
        // "_9_" sorts after "_10_" as text; ticks decide.
        var c = Write("flush_0_133900000000000003.xel", Start.AddHours(2), 2, 300);
        var a = Write("flush_0_99000000000000001.xel", Start, 2, 100);
        var b = Write("flush_0_133900000000000002.xel", Start.AddHours(1), 2, 200);
        Write("other_0_1.xel", Start, 1, 900);

        Assert.Equal([a, b, c], XelFiles.Expand(Path.Combine(_dir, "flush*.xel")));
        Assert.Equal(4, XelFiles.Expand(_dir).Count);
        Assert.Equal([a], XelFiles.Expand(a));
        Assert.Throws<FileNotFoundException>(() => XelFiles.Expand(Path.Combine(_dir, "missing.xel")));
    }

    [Fact]
    public void A_file_set_is_read_in_order_with_each_file_own_metadata_and_clock()
    {
        Write("flush_0_2.xel", Start.AddHours(1), 3, 200);
        Write("flush_0_1.xel", Start, 3, 100);

        using var reader = XelReader.Open(Path.Combine(_dir, "flush_0_*.xel"));
        var seen = new List<(ulong Block, DateTime Time)>();
        var metadataObjects = new HashSet<XEventMetadata>();
        var generations = new HashSet<int>();
        while (reader.Read())
        {
            metadataObjects.Add(reader.Metadata);
            generations.Add(reader.MetadataGeneration);
            var handle = reader.Metadata.GetFieldHandle("log_flush_start", "log_block_id");
            Assert.True(reader.Current.TryGetUInt64(handle, out var block));
            seen.Add((block, reader.Current.TimestampUtc));
        }

        Assert.Equal([100UL, 101, 102, 200, 201, 202], seen.Select(s => s.Block));
        Assert.Equal(Start.AddSeconds(1), seen[0].Time);
        Assert.Equal(Start.AddHours(1).AddSeconds(1), seen[3].Time);
        Assert.Equal(2, metadataObjects.Count);
        Assert.True(generations.Count >= 2);
    }

    [Fact]
    public void The_real_file_and_a_written_file_read_together()
    {
        var written = Write("written_0_1.xel", Start, 4, 1);
        using var reader = XelReader.Open([TestData.RealXelFile, written]);
        var names = reader.ReadData().Select(e => e.Name).ToList();

        Assert.Equal(153, names.Count);
        Assert.Equal(2, reader.SourcesOpened);
        Assert.Equal(new FileInfo(TestData.RealXelFile).Length + new FileInfo(written).Length, reader.TotalBytesRead);
        Assert.Equal("sql_batch_completed", names[148]);
        Assert.All(names.Skip(149), n => Assert.Equal("log_flush_start", n));
    }

    [Fact]
    public void Push_reading_stops_when_cancelled()
    {
        var path = Write("many_0_1.xel", Start, 20_000, 1);
        using var reader = XelReader.Open(path);
        using var cts = new CancellationTokenSource();
        var handler = new CancellingHandler(cts, after: 5000);

        Assert.Throws<OperationCanceledException>(() => reader.ReadAll(ref handler, cts.Token));
        Assert.InRange(handler.Count, 5000, 5000 + 4096);
    }

    [Fact]
    public void A_zeroed_buffer_header_ends_the_file_quietly()
    {
        var path = Write("z_0_1.xel", Start, 2, 1);
        var bytes = File.ReadAllBytes(path).Concat(new byte[512]).ToArray();
        using var reader = new XelReader(new MemoryStream(bytes));
        Assert.Equal(2, reader.ReadData().Count());
    }

    private struct CancellingHandler(CancellationTokenSource cts, int after) : IXEventHandler
    {
        public int Count { get; private set; }

        public readonly void OnMetadataChanged(XEventMetadata metadata)
        {
        }

        public void OnEvent(in XEventRecord record)
        {
            if (++Count == after)
            {
                cts.Cancel();
            }
        }
    }
}
