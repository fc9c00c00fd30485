using LogFlushMonitor.Analysis;
using LogFlushMonitor.Commands;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Tests.Analyze;

namespace LogFlushMonitor.Tests.Commands;

/// <summary>
/// Issue 31, item 8: on a full disk <c>simulate --out</c> and <c>report --out</c> leave neither a truncated file at the
/// target path nor a temporary file: each writes to a temporary name beside the target and renames it only when complete.
/// </summary>
public sealed class OutputFileTests : IDisposable
{
    private readonly AnalyzeTestFiles _files = new();

    public void Dispose() => _files.Dispose();

    [Fact]
    public void A_recording_that_fills_the_disk_leaves_no_truncated_file_and_no_temporary_file()
    {
        var target = new FileInfo(_files.PathOf("out/run.ndjson"));

        var e = Assert.Throws<IOException>(() => SimulateCommand.WriteRecording(target, Lines(50_000), path => new FullDisk(path, 64 * 1024)));

        Assert.Contains("No space left on device", e.Message, StringComparison.Ordinal);
        Assert.False(target.Exists, "a truncated recording was left at the target path");
        Assert.Empty(Directory.GetFiles(target.DirectoryName!));
    }

    [Fact]
    public void A_recording_that_fills_the_disk_leaves_the_previous_recording_as_it_was()
    {
        var target = new FileInfo(_files.PathOf("run.ndjson"));
        File.WriteAllText(target.FullName, "previous\n");

        Assert.Throws<IOException>(() => SimulateCommand.WriteRecording(target, Lines(50_000), path => new FullDisk(path, 64 * 1024)));

        Assert.Equal("previous\n", File.ReadAllText(target.FullName));
        Assert.Single(Directory.GetFiles(_files.Directory));
    }

    [Fact]
    public void A_complete_recording_is_renamed_into_place()
    {
        var target = new FileInfo(_files.PathOf("run.ndjson"));

        var (samples, bytes) = SimulateCommand.WriteRecording(target, Lines(100), path => new FileStream(path, FileMode.Create));

        Assert.Equal(100, samples);
        Assert.Equal(bytes, new FileInfo(target.FullName).Length);
        Assert.Equal(100, File.ReadAllLines(target.FullName).Length);
        Assert.Single(Directory.GetFiles(_files.Directory));
    }

    [Fact]
    public void A_report_that_fills_the_disk_exits_1_and_leaves_no_page_and_no_temporary_file()
    {
        var xel = _files.Write("in.xel", w =>
        {
            for (var i = 0; i < 500; i++)
            {
                w.LogFlushStart(AnalyzeTestFiles.Start.AddMilliseconds(i), 5, "sales", 512, (ulong)i + 1);
            }
        });
        var html = new FileInfo(_files.PathOf("report/report.html"));
        var settings = new AnalyzeSettings { Inputs = [xel], Progress = ProgressMode.Never, Threads = 1 };
        var stderr = new StringWriter();

        var code = ReportCommand.Run(settings, html, TextWriter.Null, stderr, CancellationToken.None, path => new FullDisk(path, 8 * 1024));

        Assert.Equal(ExitCodes.Failure, code);
        Assert.Contains($"error: cannot write {html.FullName}: No space left on device", stderr.ToString(), StringComparison.Ordinal);
        Assert.False(File.Exists(html.FullName));
        Assert.Empty(Directory.GetFiles(html.DirectoryName!));
    }

    private static Action<Recording.NdjsonSampleWriter> Lines(int count) => writer =>
    {
        for (var i = 0; i < count; i++)
        {
            writer.OnLogFlush(new LogFlushEvent("sql1", 5, "sales", 512, (ulong)i, AnalyzeTestFiles.Start.AddMilliseconds(i)));
        }
    };

    /// <summary>A file on a disk with <paramref name="room"/> bytes free: writing past them fails as ENOSPC does.</summary>
    private sealed class FullDisk(string path, long room) : FileStream(path, FileMode.Create, FileAccess.Write, FileShare.Read, 4096)
    {
        private long _written;

        public override void Write(byte[] buffer, int offset, int count) => Write(buffer.AsSpan(offset, count));

        public override void Write(ReadOnlySpan<byte> buffer)
        {
            _written += buffer.Length;
            if (_written > room)
            {
                throw new IOException("No space left on device");
            }

            base.Write(buffer);
        }

        public override void WriteByte(byte value) => Write([value]);
    }
}
