using System.Globalization;
using System.Text;
using LogFlushMonitor.Recording;

namespace LogFlushMonitor.Simulation.Tests.Ndjson;

/// <summary>
/// The clock rule for a recording's times (issue 31 item 2, as for .xel files): a line more than a day from the lines
/// around it is a named malformed line, wherever it is (first, middle, last); a new part of the recording days later is
/// not. The flushes' write sizes number the lines, so the tests see which arrived, in which order.
/// </summary>
public class RecordingClockTests
{
    private static readonly DateTime Start = new(2026, 11, 22, 12, 0, 0, DateTimeKind.Utc);

    private static string Flush(DateTime t, uint n) =>
        $$"""{"type":"flush","t":"{{t.ToString("O", CultureInfo.InvariantCulture)}}","instance":"sql1","db_id":5,"db":"shop","write_size":{{n}}}""";

    private static async Task<(List<uint> Delivered, List<NdjsonReplayError> Errors)> ReplayAsync(params string[] lines)
    {
        var sink = new RecordingSink();
        var errors = new List<NdjsonReplayError>();
        await NdjsonReplay.ReplayAsync(new MemoryStream(Encoding.UTF8.GetBytes(string.Join('\n', lines))), "clock.ndjson", sink, new NdjsonReplayOptions { OnError = errors.Add });
        return ([.. sink.FlushStarts.Select(f => f.WriteSize)], errors);
    }

    [Fact]
    public async Task A_time_decades_away_in_the_middle_is_a_named_malformed_line_and_the_rest_arrive_in_order()
    {
        var (delivered, errors) = await ReplayAsync(Flush(Start, 1), Flush(Start.AddSeconds(1), 2), Flush(new DateTime(2090, 1, 1, 0, 0, 0, DateTimeKind.Utc), 3), Flush(Start.AddSeconds(2), 4));

        Assert.Equal([1u, 2, 4], delivered);
        var error = Assert.Single(errors);
        Assert.Equal(3, error.Line);
        Assert.Contains("2090-01-01", error.Message, StringComparison.Ordinal);
        Assert.Contains("more than a day from the times of the lines around it", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_damaged_first_line_is_judged_by_the_lines_after_it()
    {
        var (delivered, errors) = await ReplayAsync(Flush(new DateTime(2001, 3, 4, 0, 0, 0, DateTimeKind.Utc), 1), Flush(Start, 2), Flush(Start.AddSeconds(1), 3), Flush(Start.AddSeconds(2), 4));

        Assert.Equal([2u, 3, 4], delivered);
        Assert.Equal(1, Assert.Single(errors).Line);
    }

    [Fact]
    public async Task Damaged_last_lines_are_malformed_too()
    {
        var (delivered, errors) = await ReplayAsync(Flush(Start, 1), Flush(Start.AddSeconds(1), 2), Flush(Start.AddSeconds(2), 3), Flush(Start.AddYears(40), 4), Flush(Start.AddYears(-20), 5));

        Assert.Equal([1u, 2, 3], delivered);
        Assert.Equal([4L, 5], errors.Select(e => e.Line));
    }

    [Fact]
    public async Task A_new_part_recorded_days_later_into_the_same_file_is_read_whole()
    {
        // The service recorded, stopped for three days, and recorded again into the same file: three lines that agree
        // with each other are a new part, not damage.
        var later = Start.AddDays(3);
        var (delivered, errors) = await ReplayAsync(Flush(Start, 1), Flush(Start.AddSeconds(1), 2), Flush(Start.AddSeconds(2), 3),
            Flush(later, 4), Flush(later.AddSeconds(1), 5), Flush(later.AddSeconds(2), 6), Flush(later.AddSeconds(3), 7));

        Assert.Empty(errors);
        Assert.Equal([1u, 2, 3, 4, 5, 6, 7], delivered);
    }

    [Fact]
    public async Task Times_within_a_day_of_each_other_are_never_judged()
    {
        // Out of order by hours (a clock step, files merged by hand): within the day the rule allows.
        var (delivered, errors) = await ReplayAsync(Flush(Start, 1), Flush(Start.AddHours(20), 2), Flush(Start.AddHours(-3), 3), Flush(Start.AddHours(23), 4), Flush(Start.AddMinutes(1), 5));

        Assert.Empty(errors);
        Assert.Equal([1u, 2, 3, 4, 5], delivered);
    }

    [Fact]
    public async Task Two_lines_cannot_be_judged_and_are_read_as_they_are()
    {
        var (delivered, errors) = await ReplayAsync(Flush(Start, 1), Flush(Start.AddYears(30), 2));

        Assert.Empty(errors);
        Assert.Equal([1u, 2], delivered);
    }

    [Fact]
    public async Task A_paced_replay_does_not_wait_for_a_damaged_time_decades_ahead()
    {
        // Before the rule, speed 1 waited until 2090 for line 3: the replay never finished.
        var sink = new RecordingSink();
        using var cancel = new CancellationTokenSource(TimeSpan.FromSeconds(30));
        var lines = string.Join('\n', Flush(Start, 1), Flush(Start.AddMilliseconds(10), 2), Flush(new DateTime(2090, 1, 1, 0, 0, 0, DateTimeKind.Utc), 3), Flush(Start.AddMilliseconds(20), 4));

        var summary = await NdjsonReplay.ReplayAsync(new MemoryStream(Encoding.UTF8.GetBytes(lines)), "clock.ndjson", sink, new NdjsonReplayOptions { Speed = 1 }, cancel.Token);

        Assert.Equal(new NdjsonReplaySummary(4, 3, 1), summary);
    }
}
