using System.Text;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Recording;

namespace LogFlushMonitor.Simulation.Tests.Ndjson;

/// <summary>Lines that used to stop a replay (and with it the service): each is skipped, named and counted; the rest goes on.</summary>
public class HostileLineTests
{
    private const string Good1 = """{"type":"flush","t":"2026-11-22T12:00:00Z","instance":"sql1","db_id":5,"db":"shop","write_size":512}""";
    private const string Good2 = """{"type":"flush","t":"2026-11-22T12:00:01Z","instance":"sql1","db_id":5,"db":"shop","write_size":1024}""";

    private static async Task<(LogFlushAggregator Aggregator, NdjsonReplaySummary Summary, List<NdjsonReplayError> Errors)> ReplayAsync(Stream stream, NdjsonReplayOptions? options = null)
    {
        var aggregator = new LogFlushAggregator();
        var errors = new List<NdjsonReplayError>();
        var summary = await NdjsonReplay.ReplayAsync(stream, "hostile.ndjson", new RecordingSink(aggregator), (options ?? new NdjsonReplayOptions()) with { OnError = errors.Add });
        return (aggregator, summary, errors);
    }

    private static Task<(LogFlushAggregator Aggregator, NdjsonReplaySummary Summary, List<NdjsonReplayError> Errors)> ReplayAsync(byte[] bytes, NdjsonReplayOptions? options = null) =>
        ReplayAsync(new MemoryStream(bytes), options);

    private static void AssertOnlyTheGoodLinesArrived(LogFlushAggregator aggregator, long malformed)
    {
        var db = Assert.Single(aggregator.Snapshot());
        Assert.Equal(("shop", 2L, 1536L), (db.Database, db.WriteSizes.Count, db.WriteSizes.TotalBytes));
        Assert.Equal(malformed, aggregator.SnapshotInstances().Sum(i => i.LostMalformed));
    }

    [Theory]
    [InlineData(2_000_000)]
    [InlineData(-1)]
    [InlineData(32768)]
    public async Task A_database_id_sql_server_cannot_assign_is_a_malformed_line_named_by_file_and_line(int badId)
    {
        var bad = $$"""{"type":"flush","t":"2026-11-22T12:00:00Z","instance":"sql1","db_id":{{badId}},"write_size":512}""";
        var (aggregator, summary, errors) = await ReplayAsync(Encoding.UTF8.GetBytes(string.Join('\n', Good1, bad, Good2)));

        Assert.Equal(new NdjsonReplaySummary(3, 2, 1), summary);
        var error = Assert.Single(errors);
        Assert.Equal(("hostile.ndjson", 2L), (error.Source, error.Line));
        Assert.Contains($"'db_id': {badId}", error.Message, StringComparison.Ordinal);
        AssertOnlyTheGoodLinesArrived(aggregator, 1);
    }

    [Fact]
    public async Task A_line_with_invalid_utf8_is_skipped_and_counted()
    {
        var bytes = new List<byte>();
        bytes.AddRange(Encoding.UTF8.GetBytes(Good1 + "\n"));
        bytes.AddRange(Encoding.UTF8.GetBytes("{\"type\":\"flush\",\"t\":\"2026-11-22T12:00:00Z\",\"instance\":\"sql"));
        bytes.AddRange([0xC3, 0x28, 0xFF]); // an invalid two-byte sequence and a byte UTF-8 never uses
        bytes.AddRange(Encoding.UTF8.GetBytes("\",\"db_id\":5,\"write_size\":512}\n" + Good2));

        var (aggregator, summary, errors) = await ReplayAsync([.. bytes]);

        Assert.Equal(new NdjsonReplaySummary(3, 2, 1), summary);
        Assert.Equal(2, Assert.Single(errors).Line);
        Assert.Contains("UTF-8", errors[0].Message, StringComparison.Ordinal);
        AssertOnlyTheGoodLinesArrived(aggregator, 1);
    }

    [Theory]
    [InlineData("9999-12-31T23:59:59Z", true, 0)]
    [InlineData("9999-12-31T23:59:59Z", false, 0)]
    [InlineData("0001-01-01T00:00:00Z", true, 0)]
    [InlineData("9999-12-31T00:00:00Z", true, 1)] // paced: would have waited for millennia
    public async Task A_time_no_recording_can_hold_is_skipped_and_counted(string time, bool rebase, double speed)
    {
        var bad = $$"""{"type":"flush","t":"{{time}}","instance":"sql1","db_id":5,"write_size":512}""";
        var clock = new ManualTimeProvider(new DateTimeOffset(2030, 1, 1, 0, 0, 0, TimeSpan.Zero));
        var options = new NdjsonReplayOptions { RebaseToNow = rebase, Speed = speed == 0 ? double.PositiveInfinity : speed, Time = clock };
        var replay = ReplayAsync(Encoding.UTF8.GetBytes(string.Join('\n', Good1, bad, Good2)), options);
        if (speed > 0)
        {
            await Eventually.Until(() => clock.PendingTimers == 1, "the replay waiting for the last good line");
            clock.Advance(TimeSpan.FromSeconds(1 / speed));
        }

        var (aggregator, summary, errors) = await replay.WaitAsync(TimeSpan.FromSeconds(30));

        Assert.Equal(new NdjsonReplaySummary(3, 2, 1), summary);
        Assert.Equal(2, Assert.Single(errors).Line);
        Assert.Contains("'t'", errors[0].Message, StringComparison.Ordinal);
        AssertOnlyTheGoodLinesArrived(aggregator, 1);
    }

    [Fact]
    public async Task A_100_MB_line_is_skipped_without_being_held_in_memory()
    {
        var prefix = Encoding.UTF8.GetBytes(Good1 + "\n{\"type\":\"flush\",\"db\":\"");
        var suffix = Encoding.UTF8.GetBytes("\"}\n" + Good2 + "\n");
        using var stream = new GeneratedStream(prefix, 100L * 1024 * 1024, suffix);

        var (aggregator, summary, errors) = await ReplayAsync(stream);

        Assert.Equal(new NdjsonReplaySummary(3, 2, 1), summary);
        Assert.Equal(2, Assert.Single(errors).Line);
        Assert.Contains("longer than", errors[0].Message, StringComparison.Ordinal);
        AssertOnlyTheGoodLinesArrived(aggregator, 1);
        Assert.True(stream.LargestRead <= NdjsonReplay.MaxLineBytes, $"the replay asked for {stream.LargestRead} bytes at once: it buffers the whole line");
    }

    [Fact]
    public async Task An_overlong_last_line_without_a_newline_is_counted_too()
    {
        var prefix = Encoding.UTF8.GetBytes(Good1 + "\n" + Good2 + "\n");
        using var stream = new GeneratedStream(prefix, NdjsonReplay.MaxLineBytes + 10, []);

        var (aggregator, summary, errors) = await ReplayAsync(stream);

        Assert.Equal(new NdjsonReplaySummary(3, 2, 1), summary);
        Assert.Equal(3, Assert.Single(errors).Line);
        AssertOnlyTheGoodLinesArrived(aggregator, 1);
    }

    /// <summary>A prefix, then <c>fill</c> bytes of 'x' made up as they are read (never stored), then a suffix.</summary>
    private sealed class GeneratedStream(byte[] prefix, long fill, byte[] suffix) : Stream
    {
        private long _position;

        public int LargestRead { get; private set; }

        public override bool CanRead => true;

        public override bool CanSeek => false;

        public override bool CanWrite => false;

        public override long Length => prefix.Length + fill + suffix.Length;

        public override long Position { get => _position; set => throw new NotSupportedException(); }

        public override int Read(byte[] buffer, int offset, int count) => Read(buffer.AsSpan(offset, count));

        public override int Read(Span<byte> buffer)
        {
            LargestRead = Math.Max(LargestRead, buffer.Length);
            var n = 0;
            while (n < buffer.Length && _position < Length)
            {
                var p = _position;
                if (p < prefix.Length)
                {
                    buffer[n] = prefix[p];
                }
                else if (p < prefix.Length + fill)
                {
                    // Fill the rest of this stretch at once: byte by byte would take minutes for 100 MB.
                    var run = (int)Math.Min(buffer.Length - n, prefix.Length + fill - p);
                    buffer.Slice(n, run).Fill((byte)'x');
                    n += run;
                    _position += run;
                    continue;
                }
                else
                {
                    buffer[n] = suffix[p - prefix.Length - fill];
                }

                n++;
                _position++;
            }

            return n;
        }

        public override ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default) => ValueTask.FromResult(Read(buffer.Span));

        public override void Flush()
        {
        }

        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

        public override void SetLength(long value) => throw new NotSupportedException();

        public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();
    }
}
