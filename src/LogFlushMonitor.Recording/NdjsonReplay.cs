using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.XEvents;

namespace LogFlushMonitor.Recording;

/// <summary>How <see cref="NdjsonReplay"/> delivers a recording.</summary>
public sealed record NdjsonReplayOptions
{
    /// <summary>
    /// Playback speed relative to the recorded times: 1 = as recorded, 10 = ten times faster. 0 or
    /// <see cref="double.PositiveInfinity"/> (the default) delivers as fast as possible.
    /// </summary>
    public double Speed { get; init; } = double.PositiveInfinity;

    /// <summary>Shift every time by (now - first sample time), so the recording looks live.</summary>
    public bool RebaseToNow { get; init; }

    /// <summary>Clock for pacing and rebasing.</summary>
    public TimeProvider Time { get; init; } = TimeProvider.System;

    /// <summary>Called for each malformed line (after it is counted as a loss); the replay goes on.</summary>
    public Action<NdjsonReplayError>? OnError { get; init; }

    /// <summary>
    /// Called while a paced replay runs more than <see cref="NdjsonReplay.LagMargin"/> behind its speed (the reader or
    /// the pipeline cannot keep up), at most once per <see cref="NdjsonReplay.LagReportInterval"/>.
    /// </summary>
    public Action<NdjsonReplayLag>? OnBehind { get; init; }
}

/// <summary>How far a paced replay is behind its schedule.</summary>
/// <param name="Behind">Wall time by which the current sample is late.</param>
/// <param name="ActualSpeed">Recorded time replayed per wall second so far (the requested speed when on time).</param>
public sealed record NdjsonReplayLag(TimeSpan Behind, double ActualSpeed);

/// <summary>A line that could not be replayed.</summary>
/// <param name="Source">The file path, or the name given for a stream.</param>
/// <param name="Line">1-based line number.</param>
/// <param name="Message">What is wrong.</param>
public sealed record NdjsonReplayError(string Source, long Line, string Message)
{
    /// <summary>Byte offset of the line's first byte in the source (null when not known).</summary>
    public long? Offset { get; init; }

    /// <summary><c>source:line: message</c>.</summary>
    public override string ToString() => $"{Source}:{Line}: {Message}";
}

/// <summary>What a replay read.</summary>
/// <param name="Lines">Lines read (blank ones included).</param>
/// <param name="Samples">Samples delivered.</param>
/// <param name="Errors">Malformed lines skipped.</param>
public sealed record NdjsonReplaySummary(long Lines, long Samples, long Errors);

/// <summary>
/// Replays an NDJSON recording (<see cref="NdjsonSampleWriter"/> describes the format) into an
/// <see cref="IPacedSampleSink"/>, as fast as possible or paced by the recorded times (and by room in the sink). A malformed line is
/// reported with its source and 1-based line number, counted through
/// <c>sink.OnSourceLoss(instance or "replay", LossKind.Malformed, 1)</c>, and skipped.
/// </summary>
public static class NdjsonReplay
{
    /// <summary>The instance a malformed line is counted against when it names none.</summary>
    public const string UnknownInstance = "replay";

    // Pacing waits only when more than this ahead: finer waits cost more than they are worth.
    private static readonly TimeSpan PaceSlack = TimeSpan.FromMilliseconds(5);

    // Waits longer than this are taken in steps (Task.Delay takes at most about 49 days).
    private static readonly TimeSpan MaxDelayStep = TimeSpan.FromDays(1);

    /// <summary>
    /// The longest line read (1 MiB; the format's lines are under 1 KB). A longer line is skipped as malformed
    /// without being held in memory.
    /// </summary>
    public const int MaxLineBytes = 1 << 20;

    /// <summary>How late a paced replay may run before <see cref="NdjsonReplayOptions.OnBehind"/> hears of it.</summary>
    public static readonly TimeSpan LagMargin = TimeSpan.FromSeconds(1);

    /// <summary>The shortest time between two <see cref="NdjsonReplayOptions.OnBehind"/> reports.</summary>
    public static readonly TimeSpan LagReportInterval = TimeSpan.FromSeconds(30);

    /// <summary>Replays the file at <paramref name="path"/>.</summary>
    /// <exception cref="OperationCanceledException">When <paramref name="cancellationToken"/> is cancelled.</exception>
    public static async Task<NdjsonReplaySummary> ReplayFileAsync(string path, IPacedSampleSink sink, NdjsonReplayOptions? options = null, CancellationToken cancellationToken = default)
    {
        await using var stream = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite, 1 << 16, FileOptions.Asynchronous | FileOptions.SequentialScan);
        return await ReplayAsync(stream, path, sink, options, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>Replays <paramref name="stream"/>; <paramref name="sourceName"/> names it in errors.</summary>
    /// <exception cref="OperationCanceledException">When <paramref name="cancellationToken"/> is cancelled.</exception>
    public static async Task<NdjsonReplaySummary> ReplayAsync(Stream stream, string sourceName, IPacedSampleSink sink, NdjsonReplayOptions? options = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(stream);
        ArgumentNullException.ThrowIfNull(sink);
        options ??= new NdjsonReplayOptions();
        if (double.IsNaN(options.Speed) || options.Speed < 0)
        {
            throw new ArgumentException($"Speed must be 0, positive or infinity (was {options.Speed}).", nameof(options));
        }

        // Flushes that start and do not complete are paired on the way, as a live stream pairs them (recordings keep
        // every flush event with its log_block_id, not the pairing).
        sink = new OutstandingFlushTracker(sink);
        var paced = options.Speed > 0 && !double.IsPositiveInfinity(options.Speed);
        var time = options.Time;
        var parser = new NdjsonLineParser();
        var buffer = new byte[1 << 16];
        int start = 0, end = 0;
        long bufferBase = 0; // the source offset of buffer[0]
        long lineOffset = 0; // the source offset of the current line's first byte
        long lines = 0, samples = 0, errors = 0;
        var eof = false;
        var overlong = false; // the current line passed MaxLineBytes: its bytes are dropped up to its newline
        var haveFirst = false;
        long firstTicks = 0, shiftTicks = 0;
        var wallStart = default(DateTimeOffset);
        var nextLagReport = DateTimeOffset.MinValue;

        // The clock rule for the lines' times (RecordingClock): suspects wait here, in order, until they are judged.
        var clock = new RecordingClock();
        var held = new List<(NdjsonRecord Record, long Line, long Offset)>();

        void Skip(string? instance, string problem) => SkipAt(instance, problem, lines, lineOffset);

        void SkipAt(string? instance, string problem, long line, long offset)
        {
            errors++;
            sink.OnSourceLoss(instance ?? UnknownInstance, LossKind.Malformed, 1);
            options.OnError?.Invoke(new NdjsonReplayError(sourceName, line, problem) { Offset = offset });
        }

        void SkipFar(NdjsonRecord record, long line, long offset, long around) =>
            SkipAt(record.Instance, $"invalid field 't': {record.Time:O} is more than a day from the times of the lines around it (about {new DateTime(around, DateTimeKind.Utc):O}): a damaged time, not an event of another day", line, offset);

        async Task EmitAsync(NdjsonRecord record)
        {
            if ((record.Present & NdjsonField.T) != 0)
            {
                var recorded = record.Time;
                if (!haveFirst)
                {
                    haveFirst = true;
                    firstTicks = recorded.Ticks;
                    wallStart = time.GetUtcNow();
                    shiftTicks = options.RebaseToNow ? wallStart.UtcDateTime.Ticks - firstTicks : 0;
                }

                if (paced)
                {
                    var now = time.GetUtcNow();
                    var late = now - (wallStart + TimeSpan.FromTicks((long)((recorded.Ticks - firstTicks) / options.Speed)));
                    if (late > LagMargin && now >= nextLagReport && options.OnBehind is { } onBehind)
                    {
                        onBehind(new NdjsonReplayLag(late, (recorded.Ticks - firstTicks) / (double)(now - wallStart).Ticks));
                        nextLagReport = now + LagReportInterval;
                    }

                    await PaceAsync(wallStart, recorded.Ticks - firstTicks, options.Speed, time, cancellationToken).ConfigureAwait(false);
                }
            }

            record.Deliver(sink, shiftTicks);
            samples++;
            await sink.WaitForRoomAsync(cancellationToken).ConfigureAwait(false);
        }

        // Releases the suspects held: timed ones as malformed (isolated damaged times) or, unjudgeable, as they are.
        async Task ReleaseHeldAsync(bool timedAreMalformed)
        {
            var around = clock.Median();
            foreach (var (record, line, offset) in held)
            {
                if (timedAreMalformed && (record.Present & NdjsonField.T) != 0)
                {
                    SkipFar(record, line, offset, around);
                }
                else
                {
                    await EmitAsync(record).ConfigureAwait(false);
                }
            }

            held.Clear();
        }

        // Three suspects held: two that agree start the clock again (a new part of the recording); else the oldest
        // agrees with nothing and is malformed, and the rest wait on.
        async Task JudgeHeldAsync()
        {
            var times = held.Where(h => (h.Record.Present & NdjsonField.T) != 0).Select(h => h.Record.Time.Ticks).ToArray();
            var median = RecordingClock.MedianOf(times);
            if (times.Count(t => RecordingClock.Near(t, median)) >= 2)
            {
                clock.Reset();
                foreach (var (record, line, offset) in held)
                {
                    if ((record.Present & NdjsonField.T) == 0)
                    {
                        await EmitAsync(record).ConfigureAwait(false);
                    }
                    else if (RecordingClock.Near(record.Time.Ticks, median))
                    {
                        clock.Accept(record.Time.Ticks);
                        await EmitAsync(record).ConfigureAwait(false);
                    }
                    else
                    {
                        SkipFar(record, line, offset, median);
                    }
                }

                held.Clear();
                return;
            }

            var first = held.FindIndex(h => (h.Record.Present & NdjsonField.T) != 0);
            for (var i = 0; i < first; i++)
            {
                await EmitAsync(held[i].Record).ConfigureAwait(false);
            }

            SkipFar(held[first].Record, held[first].Line, held[first].Offset, median);
            held.RemoveRange(0, first + 1);
        }

        while (true)
        {
            cancellationToken.ThrowIfCancellationRequested();
            var newline = buffer.AsSpan(start, end - start).IndexOf((byte)'\n');
            int length, consumed;
            if (newline >= 0)
            {
                length = newline;
                consumed = newline + 1;
            }
            else if (eof)
            {
                if (start == end && !overlong)
                {
                    break;
                }

                // The last line has no newline.
                length = consumed = end - start;
            }
            else
            {
                if (start > 0)
                {
                    Buffer.BlockCopy(buffer, start, buffer, 0, end - start);
                    bufferBase += start;
                    end -= start;
                    start = 0;
                }

                if (end == buffer.Length)
                {
                    if (buffer.Length < MaxLineBytes)
                    {
                        Array.Resize(ref buffer, buffer.Length * 2);
                    }
                    else
                    {
                        // A line this long is no sample: drop what is buffered and read on to its end.
                        if (!overlong)
                        {
                            lineOffset = bufferBase;
                        }

                        overlong = true;
                        bufferBase += end;
                        start = end = 0;
                    }
                }

                var read = await stream.ReadAsync(buffer.AsMemory(end), cancellationToken).ConfigureAwait(false);
                eof = read == 0;
                end += read;
                continue;
            }

            lines++;
            var line = Trim(buffer.AsSpan(start, length), lines == 1);
            if (!overlong)
            {
                lineOffset = bufferBase + start;
            }

            start += consumed;
            if (overlong)
            {
                overlong = false;
                Skip(null, $"line longer than {MaxLineBytes} bytes");
                continue;
            }

            if (line.IsEmpty)
            {
                continue;
            }

            var error = parser.Parse(line);
            if (error is not null)
            {
                Skip(parser.Instance, error);
                continue;
            }

            var recorded = parser.Time;
            if (recorded is { } accepted && clock.Accepts(accepted.Ticks))
            {
                // A time the clock accepts; any suspects before it were isolated damaged times.
                if (held.Count > 0)
                {
                    await ReleaseHeldAsync(timedAreMalformed: true).ConfigureAwait(false);
                }

                clock.Accept(accepted.Ticks);
                await EmitAsync(parser.Current).ConfigureAwait(false);
                continue;
            }

            if (recorded is null && held.Count == 0)
            {
                await EmitAsync(parser.Current).ConfigureAwait(false);
                continue;
            }

            held.Add((parser.Current.Copy(), lines, lineOffset));
            if (held.Count(h => (h.Record.Present & NdjsonField.T) != 0) >= RecordingClock.Quorum)
            {
                await JudgeHeldAsync().ConfigureAwait(false);
            }
        }

        // At the end: suspects after settled times are isolated damaged times; a file of fewer than three timed lines
        // cannot be judged and is read as it is.
        await ReleaseHeldAsync(timedAreMalformed: clock.Settled).ConfigureAwait(false);
        return new NdjsonReplaySummary(lines, samples, errors);
    }

    /// <summary>Waits until the recorded offset, scaled by <paramref name="speed"/>, is due on the wall clock.</summary>
    private static async Task PaceAsync(DateTimeOffset wallStart, long recordedTicks, double speed, TimeProvider time, CancellationToken cancellationToken)
    {
        // Recorded times lie within NdjsonSchema's window, so the offset is at most a few centuries: a double holds it.
        var offset = TimeSpan.FromTicks((long)Math.Clamp(recordedTicks / speed, TimeSpan.MinValue.Ticks / 2.0, TimeSpan.MaxValue.Ticks / 2.0));
        var due = offset > DateTimeOffset.MaxValue - wallStart ? DateTimeOffset.MaxValue : wallStart + offset;
        TimeSpan ahead;
        while ((ahead = due - time.GetUtcNow()) > PaceSlack)
        {
            await Task.Delay(ahead < MaxDelayStep ? ahead : MaxDelayStep, time, cancellationToken).ConfigureAwait(false);
        }
    }

    private static ReadOnlySpan<byte> Trim(ReadOnlySpan<byte> line, bool first)
    {
        if (first && line.StartsWith("\uFEFF"u8))
        {
            line = line[3..];
        }

        return line.Trim(" \t\r"u8);
    }
}
