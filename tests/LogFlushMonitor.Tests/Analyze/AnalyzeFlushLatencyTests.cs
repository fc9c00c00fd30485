using LogFlushMonitor.Analysis;
using LogFlushMonitor.Commands;
using LogFlushMonitor.Core.XEvents;
using LogFlushMonitor.XEvent.TestSupport;

namespace LogFlushMonitor.Tests.Analyze;

/// <summary>analyze measures flush latency from the start/complete pair, the way the service does, on one thread or many.</summary>
public sealed class AnalyzeFlushLatencyTests : IDisposable
{
    private readonly AnalyzeTestFiles _files = new();

    public void Dispose() => _files.Dispose();

    private AnalyzeReport Analyze(string path, int threads) =>
        AnalyzeRunner.Analyze(new AnalyzeSettings { Inputs = [path], Progress = ProgressMode.Never, Threads = threads }, [[path]], null, CancellationToken.None);

    [Theory]
    [InlineData(1)]
    [InlineData(3)]
    public void Issue_reproduction_2000_flushes_2_ms_apart_with_a_duration_field_of_2_and_no_unit_report_p50_2_ms(int threads)
    {
        // Small buffers: many pairs straddle two buffers, which different workers decode.
        var path = _files.Write("two-ms.xel", w =>
        {
            for (var i = 0; i < 2000; i++)
            {
                var t = AnalyzeTestFiles.Start.AddMilliseconds(5 * i);
                w.LogFlushStart(t, 9, "orders", 512, (ulong)i, (ulong)(2 * i) + 1);
                w.LogFlushComplete(t.AddMilliseconds(2), 9, "orders", (ulong)i, duration: 2, (ulong)(2 * i) + 2);
            }
        }, bufferSize: 2048, new XelWriterOptions { FlushDurationDescription = XelWriter.NoUnitDescription });

        var report = Analyze(path, threads);

        var db = Assert.Single(report.Databases);
        var latency = db.FlushDuration!;
        Assert.Equal(2000, latency.Count);
        Assert.InRange(latency.P50Ms!.Value, 1.8, 2.2); // not 0.002
        Assert.InRange(latency.MaxMs, 1.99, 2.01);
        Assert.Equal(2000, report.FlushPairing!.Paired);
        Assert.Equal(0, report.FlushPairing.Unpaired);
        Assert.Equal(0, report.FlushPairing.UnmatchedStarts);
    }

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    public void A_duration_field_of_0_at_millisecond_resolution_gives_way_to_the_150_microseconds_of_the_pair(int threads)
    {
        var path = _files.Write("fast.xel", w =>
        {
            for (var i = 0; i < 500; i++)
            {
                var t = AnalyzeTestFiles.Start.AddMilliseconds(i);
                w.LogFlushStart(t, 9, "orders", 512, (ulong)i);
                w.LogFlushComplete(t.AddTicks(1500), 9, "orders", (ulong)i, duration: 0);
            }
        }, bufferSize: 1024);

        var latency = Assert.Single(Analyze(path, threads).Databases).FlushDuration!;

        Assert.Equal(500, latency.Count);
        Assert.InRange(latency.P50Ms!.Value, 0.14, 0.16);
        Assert.InRange(latency.MeanMs, 0.1499, 0.1501);
    }

    [Theory]
    [InlineData(1)]
    [InlineData(3)]
    public void Completes_without_a_start_are_read_in_the_unit_the_pairs_settle_whatever_the_threads(int threads)
    {
        // A field that counts microseconds (each pair: 400 ticks = 40 µs, field 40) and whose description names no unit:
        // the 300 pairs settle microseconds, so the 50 completes whose start is missing are 0.7 ms, not 0.7 s.
        var path = _files.Write("micro.xel", w =>
        {
            for (var i = 0; i < 300; i++)
            {
                var t = AnalyzeTestFiles.Start.AddMilliseconds(i);
                w.LogFlushStart(t, 9, "orders", 512, (ulong)i);
                w.LogFlushComplete(t.AddTicks(400), 9, "orders", (ulong)i, duration: 40);
            }

            for (var i = 0; i < 50; i++)
            {
                w.LogFlushComplete(AnalyzeTestFiles.Start.AddSeconds(1).AddMilliseconds(i), 9, "orders", (ulong)(100_000 + i), duration: 700);
            }
        }, bufferSize: 1024, new XelWriterOptions { FlushDurationDescription = XelWriter.NoUnitDescription });

        var report = Analyze(path, threads);

        var latency = Assert.Single(report.Databases).FlushDuration!;
        Assert.Equal(350, latency.Count);
        Assert.InRange(latency.MaxMs, 0.69, 0.71);
        var pairing = report.FlushPairing!;
        Assert.Equal((300L, 50L), (pairing.Paired, pairing.Unpaired));
        Assert.Equal(DurationUnit.Microseconds, pairing.FallbackUnit);
        Assert.Contains("microseconds", pairing.UnitReason, StringComparison.Ordinal);
    }

    [Fact]
    public void The_note_on_stderr_says_how_unpaired_completes_were_measured()
    {
        var path = _files.Write("lost-starts.xel", w => w.LogFlushComplete(AnalyzeTestFiles.Start, 9, "orders", 1, duration: 3));
        var stderr = new StringWriter();

        AnalyzeRunner.Run(new AnalyzeSettings { Inputs = [path], Progress = ProgressMode.Never }, ExitCodes.Of, TextWriter.Null, stderr, CancellationToken.None);

        Assert.Contains("1 completes had no start and were measured by their duration field", stderr.ToString(), StringComparison.Ordinal);
        Assert.Contains("milliseconds, as the file's field description says", stderr.ToString(), StringComparison.Ordinal);
    }
}

/// <summary>Damage the data itself reveals is reported as damage, not as events or losses.</summary>
public sealed class AnalyzeDamageTests : IDisposable
{
    private readonly AnalyzeTestFiles _files = new();

    public void Dispose() => _files.Dispose();

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    public void A_buffer_written_twice_and_a_flipped_event_sequence_bit_make_the_file_damaged_with_offsets_not_ok(int threads)
    {
        var path = _files.Write("twice.xel", w =>
        {
            for (var i = 0; i < 900; i++)
            {
                w.LogFlushStart(AnalyzeTestFiles.Start.AddMilliseconds(i), 9, "orders", 512, (ulong)i, (ulong)i + 1);
            }
        }, bufferSize: 4096);
        var bytes = File.ReadAllBytes(path);
        // The second event buffer (after the 512-byte file header and the metadata buffer), written twice in a row.
        var second = 512 + (int)BitConverter.ToUInt32(bytes, 512 + 0x10);
        second += (int)BitConverter.ToUInt32(bytes, second + 0x10);
        var length = (int)BitConverter.ToUInt32(bytes, second + 0x10);
        var end = second + length;
        // event_sequence 700 (RID of package0.event_sequence, length 8, value): one flipped bit, 2^50.
        ReadOnlySpan<byte> pattern = [0x00, 0x24, 0x00, 0x10, 8, 0, 0, 0, 0xBC, 0x02, 0, 0, 0, 0, 0, 0];
        var at = bytes.AsSpan().IndexOf(pattern);
        Assert.True(at > end);
        bytes[at + 8 + 6] ^= 0x04;
        File.WriteAllBytes(path, [.. bytes[..end], .. bytes[second..end], .. bytes[end..]]);

        var report = AnalyzeRunner.Analyze(new AnalyzeSettings { Inputs = [path], Progress = ProgressMode.Never, Threads = threads }, [[path]], null, CancellationToken.None);

        var file = Assert.Single(report.Files);
        Assert.Equal(FileStatus.Damaged, file.Status);
        Assert.Equal(900, file.Events);
        Assert.Equal(900, report.Databases.Single().Flushes);
        Assert.Equal(1, file.EventsLost); // number 700 itself, not 1,125,899,906,842,624
        Assert.Equal(2, file.Damage.Count);
        Assert.Equal(end, file.Damage[0].Offset);
        var record = file.Damage[1].Offset; // the record whose number was damaged, moved by the inserted copy
        Assert.InRange(at + length - record, 1, 200);
        Assert.Contains("written twice", file.Damage[0].Problem, StringComparison.Ordinal);
        Assert.Contains("damaged value", file.Damage[1].Problem, StringComparison.Ordinal);
        Assert.Equal(AnalyzeOutcome.CorruptInput, report.Outcome);
    }
}
