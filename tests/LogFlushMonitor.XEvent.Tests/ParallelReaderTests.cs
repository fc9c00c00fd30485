using System.Buffers.Binary;
using LogFlushMonitor.XEvent.Binary;
using LogFlushMonitor.XEvent.Metadata;
using LogFlushMonitor.XEvent.TestSupport;

namespace LogFlushMonitor.XEvent.Tests;

/// <summary>The parallel reader gives exactly what the sequential one gives, file by file and event by event.</summary>
public sealed class ParallelReaderTests : IDisposable
{
    private static readonly XelReaderOptions Options = new() { Damage = XelDamageHandling.SkipAndReport, TrackEventSequence = true };
    private readonly string _dir = XelTestFiles.TempDirectory();

    public void Dispose() => Directory.Delete(_dir, recursive: true);

    private string Put(string name, byte[] bytes)
    {
        var path = Path.Combine(_dir, name);
        File.WriteAllBytes(path, bytes);
        return path;
    }

    /// <summary>A rollover set with every situation the reconciliation must get right.</summary>
    private List<string> WriteSet()
    {
        var files = new List<string>
        {
            // Numbering with gaps, continued across files.
            Put("s_0_1.xel", GeneratedSets.Write(3000, 1, seed: 1, gapEvery: 200)),
            // Re-sent and split metadata (several snapshots), a repeated package.
            Put("s_0_2.xel", GeneratedSets.Write(3000, 3300, seed: 2, new XelWriterOptions
            {
                BufferSize = 4096, ResendMetadataEveryBuffers = 3, SplitMetadataBuffers = true, RepeatSqlServerPackage = true,
            }, gapEvery: 500)),
            // A new session mid-file: the numbering restarts (the per-buffer summary cannot be applied).
            Put("s_0_3.xel", GeneratedSets.Write(3000, 90_000, seed: 3, restartAt: 1234)),
        };

        // A zeroed buffer, a bad record and a swallowed buffer in one file.
        var damaged = GeneratedSets.Write(3000, 1, seed: 4, gapEvery: 300);
        var buffers = GeneratedSets.Buffers(damaged).Where(b => b.Type == 0).ToList();
        damaged.AsSpan(buffers[4].Offset, 512).Clear();
        var records = GeneratedSets.RecordOffsets(damaged, buffers[9]);
        BinaryPrimitives.WriteUInt32LittleEndian(damaged.AsSpan(records[3] + 20), 900_000);
        BinaryPrimitives.WriteUInt32LittleEndian(damaged.AsSpan(buffers[14].Offset + 0x10), (uint)(buffers[14].Length + buffers[15].Length));
        files.Add(Put("s_0_4.xel", damaged));

        var cut = GeneratedSets.Write(1500, 10_000, seed: 5);
        files.Add(Put("s_0_5.xel", cut[..(cut.Length - 700)]));
        files.Add(Put("s_0_6.xel", GeneratedSets.Write(700, 20_000, seed: 6).Concat(new byte[4096]).ToArray()));
        files.Add(Put("s_0_7.xel", "not an xel file"u8.ToArray()));
        files.Add(Put("s_0_8.xel", GeneratedSets.Write(0, 1, seed: 7)));
        return files;
    }

    private static (List<string> Files, long Count, ulong Sum, Dictionary<int, (long, ulong)> PerFile) Sequential(IReadOnlyList<string> paths, XelReaderOptions options)
    {
        using var reader = XelReader.Open(paths, options);
        var handler = new Fingerprint();
        reader.ReadAll(ref handler);
        return (Outcomes.Describe(reader.Files), handler.Count, handler.Sum, handler.PerFile.ToDictionary(kv => kv.Key, kv => kv.Value));
    }

    private static (List<string> Files, long Count, ulong Sum, Dictionary<int, (long, ulong)> PerFile) Parallel(IReadOnlyList<string> paths, int workers, XelReaderOptions options)
    {
        var handlers = Enumerable.Range(0, workers).Select(_ => new Fingerprint()).ToArray();
        var results = XelParallelReader.Read(paths, handlers, options);
        var (count, sum, perFile) = Fingerprint.Merge(handlers);
        return (Outcomes.Describe(results), count, sum, perFile);
    }

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(5)]
    public void Generated_rollover_set_gives_the_same_files_events_damage_and_losses_on_any_number_of_workers(int workers)
    {
        var set = WriteSet();
        var sequential = Sequential(set, Options);
        var parallel = Parallel(set, workers, Options);

        Assert.Equal(sequential.Files, parallel.Files);
        Assert.Equal(sequential.Count, parallel.Count);
        Assert.Equal(sequential.Sum, parallel.Sum);
        Assert.Equal(sequential.PerFile.OrderBy(k => k.Key), parallel.PerFile.OrderBy(k => k.Key));

        // The set really exercises what it claims to.
        Assert.Contains("Damaged", sequential.Files[3], StringComparison.Ordinal);
        Assert.Contains("IncompleteBuffer", sequential.Files[4], StringComparison.Ordinal);
        Assert.Contains("Zeros", sequential.Files[5], StringComparison.Ordinal);
        Assert.Contains("Corrupt", sequential.Files[6], StringComparison.Ordinal);
        Assert.True(sequential.Count > 12_000, $"{sequential.Count} events");
    }

    [Fact]
    public void Event_sequence_losses_are_exact_across_files_and_per_file_when_asked()
    {
        // 1..100, then 106..200 in the next file (5 lost at the boundary), then a new session from 1.
        var a = Put("q_0_1.xel", GeneratedSets.Write(100, 1, seed: 11));
        var b = Put("q_0_2.xel", GeneratedSets.Write(95, 106, seed: 12));
        var c = Put("q_0_3.xel", GeneratedSets.Write(50, 1, seed: 13));
        var across = XelParallelReader.Read([a, b, c], [new Fingerprint(), new Fingerprint()], Options);
        Assert.Equal([0L, 5, 0], across.Select(f => f.EventsLost));
        Assert.Equal([100L, 95, 50], across.Select(f => f.SequencedEvents));

        var perFile = XelParallelReader.Read([a, b, c], [new Fingerprint()], Options with { SequenceAcrossFiles = false });
        Assert.Equal([0L, 0, 0], perFile.Select(f => f.EventsLost));
        Assert.Equal(Outcomes.Describe(perFile), Sequential([a, b, c], Options with { SequenceAcrossFiles = false }).Files);
    }

    [Fact]
    public void Real_file_gives_the_same_149_events_with_every_field_on_one_or_three_workers()
    {
        var real = new[] { TestData.RealXelFile };
        var sequential = Sequential(real, Options);
        Assert.Equal(149, sequential.Count);
        Assert.Equal(0, int.Parse(sequential.Files[0].Split(" | ")[7], System.Globalization.CultureInfo.InvariantCulture)); // no losses

        foreach (var workers in new[] { 1, 3 })
        {
            var parallel = Parallel(real, workers, Options);
            Assert.Equal(sequential.Files, parallel.Files);
            Assert.Equal((sequential.Count, sequential.Sum), (parallel.Count, parallel.Sum));
        }

        // Event by event: the same records at the same offsets, also through the pull API.
        var seen = new Fingerprint { Positions = [] };
        XelParallelReader.Read(real, [seen], Options);
        using var pull = XelReader.Open(real[0]);
        var pulled = new List<(int, long)>();
        while (pull.Read())
        {
            pulled.Add((pull.Current.SourceIndex, pull.Current.Position));
        }

        Assert.Equal(pulled, seen.Positions!.Order());

        // The pull API rebuilds records without the action index the push loop keeps: same values.
        var pulledPrint = new Fingerprint();
        using var again = XelReader.Open(real[0]);
        var generation = -1;
        while (again.Read())
        {
            if (generation != again.MetadataGeneration)
            {
                generation = again.MetadataGeneration;
                pulledPrint.OnMetadataChanged(again.Metadata);
            }

            pulledPrint.OnEvent(again.Current);
        }

        Assert.Equal((sequential.Count, sequential.Sum), (pulledPrint.Count, pulledPrint.Sum));
    }

    [Fact]
    public void Cancellation_stops_a_parallel_read()
    {
        var set = Enumerable.Range(1, 6).Select(i => Put($"c_0_{i}.xel", GeneratedSets.Write(4000, 1, seed: i))).ToList();
        using var cts = new CancellationTokenSource();
        var handlers = new[] { new CancelAfter(cts, 1000), new CancelAfter(cts, 1000) };

        Assert.ThrowsAny<OperationCanceledException>(() => XelParallelReader.Read(set, handlers, Options, cancellationToken: cts.Token));
        Assert.True(handlers.Sum(h => h.Count) < 24_000, "stopped before the end");
    }

    private sealed class CancelAfter(CancellationTokenSource cts, int after) : IXEventHandler
    {
        public int Count { get; private set; }

        public void OnMetadataChanged(XEventMetadata metadata)
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

    [Fact]
    public void Sequence_summaries_applied_per_buffer_equal_observing_one_by_one()
    {
        var rng = new Random(42);
        for (var trial = 0; trial < 2000; trial++)
        {
            var one = new XEventSequenceTracker();
            var summed = new XEventSequenceTracker();
            var next = (long)rng.Next(1, 50_000);
            for (var b = 0; b < rng.Next(1, 8); b++)
            {
                var numbers = new List<long>();
                for (var i = 0; i < rng.Next(0, 6); i++)
                {
                    next += rng.Next(10) switch { 0 => -rng.Next(1, 30_000), 1 => 0, 2 => rng.Next(2, 5), _ => 1 };
                    numbers.Add(rng.Next(15) == 0 ? 0 : next);
                }

                var summary = new SequenceSummary();
                foreach (var n in numbers)
                {
                    one.Observe(n);
                    summary.Add(n);
                }

                if (!summed.TryApply(summary))
                {
                    foreach (var n in numbers)
                    {
                        summed.Observe(n);
                    }
                }
            }

            Assert.Equal((one.Missing, one.Observed), (summed.Missing, summed.Observed));
        }
    }
}
