using LogFlushMonitor.XEvent.Binary;
using LogFlushMonitor.XEvent.Metadata;
using LogFlushMonitor.XEvent.TestSupport;

namespace LogFlushMonitor.XEvent.Tests;

/// <summary>These tests prove the format: they read a file written by a real SQL Server.</summary>
public class RealFileTests
{
    private static string RealFile => TestData.RealXelFile;

    [Fact]
    public void Real_file_holds_149_events_first_rpc_completed_last_sql_batch_completed()
    {
        using var reader = XelReader.Open(RealFile);
        var names = new List<string>();
        while (reader.Read())
        {
            names.Add(reader.Current.Name);
        }

        Assert.Equal(149, names.Count);
        Assert.Equal("rpc_completed", names[0]);
        Assert.Equal("sql_batch_completed", names[^1]);
        Assert.Equal(149, reader.EventCount);
    }

    [Fact]
    public void Real_file_counts_by_event_name_match_its_readme_and_attention_never_occurs()
    {
        using var reader = XelReader.Open(RealFile);
        var counts = reader.ReadData().GroupBy(e => e.FullName).ToDictionary(g => g.Key, g => g.Count());

        Assert.Equal(
            new Dictionary<string, int>
            {
                ["sqlserver.existing_connection"] = 120,
                ["sqlserver.rpc_completed"] = 11,
                ["sqlserver.sql_batch_starting"] = 5,
                ["sqlserver.sql_batch_completed"] = 5,
                ["sqlserver.login"] = 4,
                ["sqlserver.logout"] = 4,
            },
            counts);
        Assert.True(reader.Metadata.TryGetEvent("sqlserver.attention", out _), "attention is declared in the metadata");
    }

    [Fact]
    public void Real_file_metadata_declares_packages_by_index_with_a_10_MHz_clock()
    {
        using var reader = XelReader.Open(RealFile);
        Assert.True(reader.Read());
        var packages = reader.Metadata.Packages;
        Assert.Equal("package0", packages[0].Name);
        Assert.Equal("sqlserver", packages[2].Name);
        Assert.All(packages.Values, p => Assert.Equal(10_000_000UL, p.TickFrequency));
        Assert.True(reader.Metadata.TryGetMap("sqlserver.rpc_return_result", out var map));
        Assert.Equal("OK", map.Entries[0]);
        Assert.True(reader.Metadata.TryGetEvent("rpc_completed", out var rpc));
        Assert.Equal(XEventBaseType.UInt64, rpc.Fields[rpc.IndexOf("duration")].Type.BaseType);
        Assert.Same(map, rpc.Fields[rpc.IndexOf("result")].Type.Map);
    }

    [Fact]
    public void Real_file_timestamps_lie_after_the_session_start_and_within_one_day()
    {
        using var reader = XelReader.Open(RealFile);
        var stamps = new List<DateTime>();
        DateTime start = default;
        while (reader.Read())
        {
            var record = reader.Current;
            start = record.Definition!.Package.StartTimeUtc;
            stamps.Add(record.TimestampUtc);
        }

        Assert.Equal(DateTimeKind.Utc, stamps[0].Kind);
        Assert.All(stamps, t => Assert.InRange(t, start, start.AddDays(1)));
        // The whole capture spans seconds to minutes, not hours.
        Assert.InRange(stamps.Max() - stamps.Min(), TimeSpan.Zero, TimeSpan.FromHours(1));
        // Mostly ordered (inversions are possible but rare).
        var inversions = stamps.Zip(stamps.Skip(1)).Count(p => p.Second < p.First);
        Assert.InRange(inversions, 0, 3);
    }

    [Fact]
    public void Real_file_event_sequence_is_on_every_event_and_has_no_gaps()
    {
        using var reader = XelReader.Open(RealFile);
        var seqs = new List<ulong>();
        ActionHandle sequence = default;
        while (reader.Read())
        {
            if (!sequence.IsValid)
            {
                sequence = reader.Metadata.GetActionHandle("package0.event_sequence");
            }

            Assert.True(reader.Current.TryGetUInt64(sequence, out var s));
            Assert.True(reader.Current.TryGetInt64(sequence, out var signed));
            Assert.Equal((long)s, signed);
            seqs.Add(s);
        }

        // No gaps and no repeats (buffer order may invert two neighbours, as the format notes say).
        Assert.Equal(149, seqs.Count);
        Assert.Equal(149, seqs.Distinct().Count());
        Assert.Equal(148UL, seqs.Max() - seqs.Min());
        Assert.InRange(seqs.Zip(seqs.Skip(1)).Count(p => p.Second < p.First), 0, 3);
    }

    [Fact]
    public void Real_file_existing_connection_lists_each_session_once_from_one_collecting_session()
    {
        // existing_connection fires once per open connection when the session starts: the field is the
        // connection listed, the action the session that started the event session.
        using var reader = XelReader.Open(RealFile);
        var listed = new List<long>();
        var collectors = new HashSet<ulong>();
        foreach (var e in reader.ReadData().Where(e => e.Name == "existing_connection"))
        {
            listed.Add(Assert.IsType<long>(e.Fields["session_id"]));
            collectors.Add(Assert.IsType<ulong>(e.Actions["sqlserver.session_id"]));
        }

        Assert.Equal(120, listed.Count);
        Assert.Equal(120, listed.Distinct().Count());
        Assert.All(listed, id => Assert.InRange(id, 1, short.MaxValue));
        Assert.Single(collectors);
    }

    [Fact]
    public void Real_file_values_decode_to_plausible_text_and_map_values()
    {
        using var reader = XelReader.Open(RealFile);
        var all = reader.ReadData().ToList();
        foreach (var rpc in all.Where(e => e.Name == "rpc_completed"))
        {
            var result = Assert.IsType<XEventMapValue>(rpc.Fields["result"]);
            Assert.Contains(result.Text, new[] { "OK", "Error", "Abort", "Skipped" });
            var statement = Assert.IsType<string>(rpc.Fields["statement"]);
            Assert.False(string.IsNullOrWhiteSpace(statement));
            Assert.DoesNotContain(statement, c => char.IsControl(c) && !char.IsWhiteSpace(c));
        }

        // Every completed batch repeats the text its start carried, on the same session.
        var starts = all.Where(e => e.Name == "sql_batch_starting").ToList();
        var completes = all.Where(e => e.Name == "sql_batch_completed").ToList();
        Assert.Equal(
            starts.Select(e => (e.GetString("batch_text"), e.GetUInt64("sqlserver.session_id"))).OrderBy(x => x.Item1).ThenBy(x => x.Item2),
            completes.Select(e => (e.GetString("batch_text"), e.GetUInt64("sqlserver.session_id"))).OrderBy(x => x.Item1).ThenBy(x => x.Item2));
        Assert.All(completes, c => Assert.IsType<ulong>(c.Fields["duration"]));
    }

    [Fact]
    public void Real_file_push_and_pull_give_the_same_events()
    {
        using var pull = XelReader.Open(RealFile);
        var pulled = new List<(string, ulong)>();
        while (pull.Read())
        {
            pulled.Add((pull.Current.Name, pull.Current.Ticks));
        }

        var handler = new CollectingHandler();
        using var push = XelReader.Open(RealFile);
        push.ReadAll(ref handler);

        Assert.Equal(pulled, handler.Events);
        Assert.Equal(1, handler.MetadataChanges);
    }

    [Fact]
    public void Real_file_through_the_buffer_decoder_as_live_stream_rows()
    {
        // The live stream sends the same buffers as rows, a header row first.
        var rows = XelTestFiles.SplitIntoRows(File.ReadAllBytes(RealFile));
        var decoder = new XEventBufferDecoder("rows");
        var handler = new CollectingHandler();
        foreach (var row in rows)
        {
            decoder.Decode(row, ref handler);
        }

        Assert.Equal(149, handler.Events.Count);
        Assert.Equal("rpc_completed", handler.Events[0].Name);
    }

    [Fact]
    public void Real_file_decoding_every_field_allocates_nothing_per_event()
    {
        var rows = XelTestFiles.SplitIntoRows(File.ReadAllBytes(RealFile));
        var decoder = new XEventBufferDecoder();
        var handler = new EveryFieldHandler();
        decoder.Decode(rows[0], ref handler);
        decoder.Decode(rows[1], ref handler); // metadata: allocates names once
        decoder.Decode(rows[2], ref handler); // warm-up of the event path

        var before = GC.GetAllocatedBytesForCurrentThread();
        decoder.Decode(rows[2], ref handler);
        var allocated = GC.GetAllocatedBytesForCurrentThread() - before;

        Assert.Equal(0, allocated);
        Assert.True(handler.Values > 149 * 5, $"read {handler.Values} values");
    }

    [Fact]
    public void Real_file_pull_reading_allocates_nothing_after_the_metadata()
    {
        // A per-event allocation shows in every pass (149 events); a pass may also pay a one-off cost that is not the
        // reader's (the shared ArrayPool trimmed by a full GC of another test, or a thread moved to another core's
        // pool partition, makes a rent allocate once). So: up to three passes, and one of them must allocate nothing.
        var passes = new List<long>();
        for (var pass = 0; pass < 3 && !passes.Contains(0); pass++)
        {
            passes.Add(AllocatedWhilePullReading(out var sum));
            Assert.NotEqual(0UL, sum);
        }

        Assert.True(passes.Contains(0), $"Every pass allocated: {string.Join(", ", passes)} bytes");
    }

    private static long AllocatedWhilePullReading(out ulong sum)
    {
        using var reader = XelReader.Open(RealFile);
        Assert.True(reader.Read()); // opens the file, parses metadata, loads the event buffer
        var duration = reader.Metadata.GetFieldHandle("sqlserver.rpc_completed", "duration");
        var session = reader.Metadata.GetActionHandle("sqlserver.session_id");
        sum = 0;
        var before = GC.GetAllocatedBytesForCurrentThread();
        while (reader.Read())
        {
            var r = reader.Current;
            sum += r.Ticks;
            if (r.TryGetUInt64(duration, out var d))
            {
                sum += d;
            }

            if (r.TryGetUInt64(session, out var s))
            {
                sum += s;
            }
        }

        return GC.GetAllocatedBytesForCurrentThread() - before;
    }

    [Fact]
    public void Real_file_with_an_unknown_version_fails_naming_it()
    {
        var bytes = File.ReadAllBytes(RealFile);
        bytes[4] = 11;
        using var reader = new XelReader(new MemoryStream(bytes), "v11.xel");

        var ex = Assert.Throws<XelUnsupportedVersionException>(() => reader.Read());
        Assert.Equal(11, ex.Version);
        Assert.Contains("version 11", ex.Message, StringComparison.Ordinal);
        Assert.Contains("supported: 10", ex.Message, StringComparison.Ordinal);
        Assert.Equal("v11.xel", ex.FileName);

        var buffer = File.ReadAllBytes(RealFile);
        buffer[0x200 + 0x0C] = 12; // the first buffer's log version
        using var reader2 = new XelReader(new MemoryStream(buffer), "b12.xel");
        var ex2 = Assert.Throws<XelUnsupportedVersionException>(() => reader2.Read());
        Assert.Equal(0x200 + 0x0C, ex2.Offset);
    }

    [Fact]
    public void Real_file_truncated_gives_a_typed_error_with_file_name_and_offset()
    {
        var bytes = File.ReadAllBytes(RealFile)[..100_000];
        using var reader = new XelReader(new MemoryStream(bytes), "cut.xel");

        var ex = Assert.Throws<XelFormatException>(() =>
        {
            while (reader.Read())
            {
            }
        });
        Assert.Equal("cut.xel", ex.FileName);
        Assert.Equal(0x5000, ex.Offset); // the event buffer that was cut
        Assert.Contains("cut.xel", ex.Message, StringComparison.Ordinal);
        Assert.Contains("20480", ex.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Real_file_truncated_ends_quietly_when_a_growing_tail_is_allowed()
    {
        var bytes = File.ReadAllBytes(RealFile)[..100_000];
        using var reader = new XelReader(new MemoryStream(bytes), "cut.xel", new XelReaderOptions { AllowTruncatedTail = true });
        var n = 0;
        while (reader.Read())
        {
            n++;
        }

        Assert.Equal(0, n); // the only event buffer was cut
        Assert.NotEmpty(reader.Metadata.Events);
    }

    [Fact]
    public void Real_file_that_is_not_xel_is_rejected_clearly()
    {
        using var reader = new XelReader(new MemoryStream("hello, not a file"u8.ToArray()), "text.xel");
        var ex = Assert.Throws<XelFormatException>(() => reader.Read());
        Assert.Contains("magic", ex.Message, StringComparison.Ordinal);
    }
}
