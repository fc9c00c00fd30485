using System.Buffers.Binary;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Recording;
using LogFlushMonitor.XEvent;

namespace LogFlushMonitor.Analysis;

/// <summary>
/// An NDJSON recording (what <c>simulate --out</c> writes) as an input of <c>analyze</c> and the HTML report: read with
/// the recording's reader (<see cref="NdjsonReplay"/>), its flush and wait events go to the same
/// <see cref="AnalyzeSink"/> as a .xel file's, and each polled signal's rows to that signal's view (<see cref="SignalViews"/>).
/// A malformed line makes the file's status corrupt (with the first bad line), the other lines still count.
/// </summary>
internal static class NdjsonInput
{
    /// <summary>
    /// True when <paramref name="path"/> holds an NDJSON recording, decided by its first bytes: the .xel file magic
    /// (<see cref="XelConstants.FileMagic"/>) makes it a .xel file whatever its name; a first non-blank character '{'
    /// makes it a recording whatever its name. Only a file that shows neither (empty, or other bytes) is judged by its
    /// extension (.ndjson, .jsonl), so a recording saved under another name is read as one, a .xel file renamed .ndjson
    /// is read as .xel, and anything else is read as .xel and reported by the .xel reader as not a .xel file.
    /// </summary>
    public static bool IsNdjson(string path)
    {
        try
        {
            using var file = File.OpenRead(path);
            Span<byte> head = stackalloc byte[64];
            var read = file.ReadAtLeast(head, head.Length, throwOnEndOfStream: false);
            var text = head[..read];
            if (text.Length >= 4 && BinaryPrimitives.ReadUInt32LittleEndian(text) == XelConstants.FileMagic)
            {
                return false;
            }

            if (text.StartsWith("\uFEFF"u8))
            {
                text = text[3..];
            }

            var first = text.TrimStart(" \t\r\n"u8);
            if (!first.IsEmpty && first[0] == (byte)'{')
            {
                return true;
            }
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            // Reading it as .xel reports the problem.
        }

        var extension = Path.GetExtension(path);
        return extension.Equals(".ndjson", StringComparison.OrdinalIgnoreCase) || extension.Equals(".jsonl", StringComparison.OrdinalIgnoreCase);
    }

    /// <summary>Reads one recording into <paramref name="sink"/>.</summary>
    public static FileReport Read(string path, long bytes, AnalyzeSink sink, SignalViews views, ProgressReporter progress, CancellationToken cancellationToken)
    {
        sink.BeginFile();
        var adapter = new Adapter(sink, views);
        var lines = new FileTally();
        NdjsonReplayError? firstError = null;
        var status = FileStatus.Ok;
        string? error = null;
        long? errorOffset = null;
        try
        {
            using var file = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete, 1 << 16, FileOptions.SequentialScan);
            var options = new NdjsonReplayOptions
            {
                OnError = e =>
                {
                    firstError ??= e;
                    var offset = e.Offset ?? 0;
                    lines.AddMalformed(offset, lines.KeepsMalformedAt(offset) ? $"line {e.Line}: {e.Message}" : null);
                },
            };

            // As fast as possible: the replay never waits, so this blocks only on reading the file.
            var summary = NdjsonReplay.ReplayAsync(new ProgressStream(file, progress), path, adapter, options, cancellationToken).GetAwaiter().GetResult();
            if (firstError is { } f && summary.Samples == 0)
            {
                // Not one line reads as a sample: this is no recording.
                (status, error, errorOffset) = (FileStatus.Corrupt, $"{summary.Errors:N0} malformed line(s) and no valid one, the first at line {f.Line}: {f.Message}", f.Offset);
            }
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or InvalidDataException)
        {
            (status, error) = (FileStatus.Unreadable, e.Message);
        }

        lines.AddMalformedCount(sink.Malformed);

        if (status == FileStatus.Ok && lines.Malformed > 0)
        {
            // Lines that could not be read are skipped events: the file is damaged, counted and named, as a .xel file's.
            status = FileStatus.Damaged;
        }

        return new FileReport
        {
            Path = path,
            Bytes = bytes,
            Status = status,
            Error = error,
            ErrorOffset = errorOffset,
            Events = adapter.Samples,
            FlushStarts = sink.FlushStarts,
            FlushCompletes = sink.FlushCompletes,
            WriteLogWaits = sink.WriteLogWaits,
            EventsLost = sink.Lost,
            MalformedEvents = lines.Malformed,
            Malformed = lines.MalformedEvents,
            OtherEvents = adapter.Polled.Where(kv => kv.Value > 0).ToDictionary(kv => $"polled {kv.Key} rows", kv => kv.Value, StringComparer.Ordinal),
            OtherWaits = new Dictionary<string, long>(sink.OtherWaits, StringComparer.Ordinal),
        };
    }

    /// <summary>Events to the analysis; malformed lines are the file's problem, not lost events; polled rows to their signal's view.</summary>
    private sealed class Adapter(AnalyzeSink sink, SignalViews views) : IPacedSampleSink
    {
        public long Samples { get; private set; }

        /// <summary>Rows read of each signal, by its name.</summary>
        public Dictionary<string, long> Polled { get; } = new(StringComparer.Ordinal);

        public void OnLogFlush(in LogFlushEvent flush)
        {
            Samples++;
            sink.OnLogFlush(flush);
        }

        public void OnWait(in WaitEvent wait)
        {
            Samples++;
            sink.OnWait(wait);
        }

        public void OnSourceLoss(string instance, LossKind kind, long count)
        {
            if (kind != LossKind.Malformed)
            {
                sink.OnSourceLoss(instance, kind, count);
            }
        }

        /// <summary>
        /// A signal's line (a row, or the end of a poll): to the signal's view, its rows counted. The replay's pairing of
        /// starts and completes (the outstanding flushes, never recorded) is no line of the file: the analysis pairs them itself.
        /// </summary>
        public void OnBatch(Core.Signals.SignalBatch batch)
        {
            if (batch.Signal.Recording is null)
            {
                return;
            }

            Samples += batch.Count;
            Polled[batch.Signal.Name] = Polled.GetValueOrDefault(batch.Signal.Name) + batch.Count;
            views.Observe(batch);
        }

        // Read as fast as the file allows: the analysis never falls behind.
        public ValueTask WaitForRoomAsync(CancellationToken cancellationToken) => ValueTask.CompletedTask;
    }
}
