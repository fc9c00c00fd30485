// Run: dotnet run -c Release --project bench/LogFlushMonitor.Benchmarks -- --filter '*EventQueueMemoryBenchmarks*'
// What it shows: the bytes the pipeline's channel allocates to hold a burst of queued events (its queue keeps the array
// it grew to). EventSample was 128 bytes, then 72 (bench/README.md, "EventSample is 72 bytes instead of 128"), and is 80 since a
// wait carries its client application (issue 22 item 3): a full queue of 65,536 events holds about 5.2 MB, not 8.4 MB. This replaces a unit test that pinned the struct's
// size (Unsafe.SizeOf): a size is a memory claim, measured here, not asserted in a test.

using System.Threading.Channels;
using BenchmarkDotNet.Attributes;
using LogFlushMonitor.Core.Samples;

namespace LogFlushMonitor.Benchmarks.Core;

/// <summary>
/// A burst of <see cref="Burst"/> log_flush_start events written into a bounded channel shaped like the pipeline's
/// (one reader, many writers) and read out again: Allocated is what the queue grew to hold them.
/// </summary>
[MemoryDiagnoser]
public class EventQueueMemoryBenchmarks
{
    private EventSample _sample;

    /// <summary>Events queued at once: the pipeline's default capacity, and a smaller burst.</summary>
    [Params(4_096, 65_536)]
    public int Burst { get; set; }

    [GlobalSetup]
    public void Setup() =>
        _sample = EventSample.Of(new LogFlushEvent("sql1", 5, "sales", 4096, 1, DateTime.UnixEpoch, null, 1));

    [Benchmark]
    public int QueueBurst()
    {
        var channel = Channel.CreateBounded<EventSample>(new BoundedChannelOptions(Burst)
        {
            SingleReader = true,
            SingleWriter = false,
            FullMode = BoundedChannelFullMode.Wait,
            AllowSynchronousContinuations = false,
        });
        for (var i = 0; i < Burst; i++)
        {
            channel.Writer.TryWrite(_sample);
        }

        var read = 0;
        while (channel.Reader.TryRead(out _))
        {
            read++;
        }

        return read;
    }
}
