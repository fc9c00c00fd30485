using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.XEvents;
using LogFlushMonitor.XEvent.Binary;
using LogFlushMonitor.XEvent.TestSupport;

namespace LogFlushMonitor.Core.Tests.XEvents;

/// <summary>
/// Files here come from the test-only writer: they prove the mapping and the aggregation path. Only the real
/// file in tests/testdata proves the format itself (XEvent.Tests).
/// </summary>
public class XEventSampleMapperTests
{
    private static readonly DateTime T0 = new(2026, 11, 22, 12, 0, 0, DateTimeKind.Utc);

    private static MemoryStream Write(Action<XelWriter> write)
    {
        var ms = new MemoryStream();
        using (var w = new XelWriter(ms, T0))
        {
            write(w);
        }

        ms.Position = 0;
        return ms;
    }

    private static (LogFlushAggregator Aggregator, XEventSampleMapper Mapper) Read(Stream stream)
    {
        var agg = new LogFlushAggregator();
        var mapper = new XEventSampleMapper("sql1", agg);
        using var reader = new XelReader(stream, "writer.xel");
        reader.ReadAll(ref mapper);
        return (agg, mapper);
    }

    [Fact]
    public void Writer_file_log_flush_starts_become_exact_write_size_distributions_per_database()
    {
        var stream = Write(w =>
        {
            ulong seq = 1;
            for (var i = 0; i < 980; i++)
            {
                w.LogFlushStart(T0.AddMilliseconds(i), 5, "shop", 512, (ulong)i, seq++);
            }

            for (var i = 0; i < 20; i++)
            {
                w.LogFlushStart(T0.AddMilliseconds(i), 5, "shop", 4096, (ulong)(1000 + i), seq++);
            }

            for (var i = 0; i < 30; i++)
            {
                w.LogFlushStart(T0.AddSeconds(i), 6, "crm", 61440, (ulong)i, seq++);
            }
        });

        var (agg, mapper) = Read(stream);

        Assert.Equal(1030, mapper.FlushStarts);
        Assert.Equal(0, mapper.SequenceLost);
        var snap = agg.Snapshot().ToDictionary(d => d.Database);
        Assert.Equal(1000, snap["shop"].WriteSizes.Count);
        Assert.Equal(980, snap["shop"].WriteSizes.CountAtMost(512));
        Assert.Equal(20, snap["shop"].WriteSizes[8]);
        Assert.Equal(5, snap["shop"].DatabaseId);
        Assert.Equal(30, snap["crm"].WriteSizes[120]);
        Assert.Equal(T0.AddSeconds(29), snap["crm"].LastEventUtc);
    }

    [Fact]
    public void Writer_file_unpaired_completes_and_writelog_waits_carry_durations_in_milliseconds()
    {
        var stream = Write(w =>
        {
            w.LogFlushComplete(T0, 5, "shop", 1, duration: 250, sequence: 1); // no start: the field, in milliseconds
            w.WaitCompleted(T0, XelWriter.WriteLogKey, duration: 12, databaseId: 5, sequence: 2, databaseName: "shop"); // milliseconds
            w.WaitInfo(T0, XelWriter.WriteLogKey, opcode: 0, duration: 0, databaseId: 5, sequence: 3);
            w.WaitInfo(T0, XelWriter.WriteLogKey, opcode: 1, duration: 30, databaseId: 5, sequence: 4);
        });

        var (agg, mapper) = Read(stream);

        Assert.Equal(1, mapper.FlushCompletes);
        Assert.Equal(2, mapper.Waits); // the wait_info begin is not a completed wait
        var db = Assert.Single(agg.Snapshot());
        Assert.Equal(0.250, db.FlushDurations.MaxSeconds, 9);
        var w = Assert.Single(db.Waits);
        Assert.Equal("WRITELOG", w.WaitType);
        Assert.Equal(2, w.Count);
        Assert.Equal(0.030, w.MaxSeconds, 9);
    }

    [Fact]
    public void Writer_file_event_sequence_gaps_are_counted_as_lost()
    {
        var stream = Write(w =>
        {
            foreach (var seq in new ulong[] { 1, 2, 5, 6, 10 })
            {
                w.LogFlushStart(T0, 5, "shop", 512, seq, seq);
            }
        });

        var (agg, mapper) = Read(stream);

        Assert.Equal(2 + 3, mapper.SequenceLost);
        Assert.Equal(5, agg.SnapshotInstances().Single().LostSequenceGap);
    }

    [Fact]
    public void A_flipped_bit_in_event_sequence_is_one_malformed_record_not_two_to_the_fiftieth_lost_events()
    {
        var stream = Write(w =>
        {
            for (ulong seq = 1; seq <= 100; seq++)
            {
                w.LogFlushStart(T0.AddMilliseconds(seq), 5, "shop", 512, seq, seq == 50 ? seq | (1UL << 50) : seq);
            }
        });

        var (agg, mapper) = Read(stream);

        Assert.Equal(1, mapper.DamagedSequences);
        Assert.Equal(1, mapper.SequenceLost); // number 50 itself is missing
        var instance = agg.SnapshotInstances().Single();
        Assert.Equal(1, instance.LostSequenceGap);
        Assert.Equal(1, instance.LostMalformed);
        Assert.Equal(100, mapper.FlushStarts); // the event itself counts
    }

    [Fact]
    public void An_event_sequence_number_seen_again_is_malformed_and_does_not_hide_a_real_loss()
    {
        var stream = Write(w =>
        {
            ulong[] numbers = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 5, 6, 13];
            foreach (var seq in numbers)
            {
                w.LogFlushStart(T0.AddMilliseconds(seq), 5, "shop", 512, seq, seq);
            }
        });

        var (agg, mapper) = Read(stream);

        Assert.Equal(2, mapper.DamagedSequences);
        Assert.Equal(2, mapper.SequenceLost); // 11 and 12: the repeats of 5 and 6 do not fill them
        Assert.Equal(2, agg.SnapshotInstances().Single().LostMalformed);
    }

    [Fact]
    public void Live_stream_buffers_from_the_writer_map_like_a_file()
    {
        var rows = XelWriter.WriteLiveStreamBuffers(T0, w =>
        {
            for (var i = 0; i < 200; i++)
            {
                w.LogFlushStart(T0.AddMilliseconds(i), 7, null, 1024, (ulong)i, (ulong)i + 1);
            }
        }).ToList();

        var agg = new LogFlushAggregator();
        var mapper = new XEventSampleMapper("sql1", agg);
        var decoder = new XEventBufferDecoder("live");
        foreach (var (type, data) in rows)
        {
            decoder.DecodeRow(type, data, ref mapper);
        }

        var db = Assert.Single(agg.Snapshot());
        Assert.Equal("id:7", db.Database);
        Assert.Equal(200, db.WriteSizes.CountAtMost(1024) - db.WriteSizes.CountAtMost(512));
    }

    [Fact]
    public void Real_file_without_log_flush_events_maps_nothing_and_names_what_it_holds()
    {
        var agg = new LogFlushAggregator();
        var mapper = new XEventSampleMapper("sql1", agg);
        using (var reader = XelReader.Open(TestData.RealXelFile))
        {
            reader.ReadAll(ref mapper);
        }

        Assert.Equal(0, mapper.FlushStarts + mapper.FlushCompletes + mapper.Waits);
        Assert.Empty(agg.Snapshot());
        Assert.Equal(149, mapper.OtherEvents.Values.Sum());
        Assert.Contains("sqlserver.rpc_completed", mapper.OtherEvents.Keys);
    }
}
