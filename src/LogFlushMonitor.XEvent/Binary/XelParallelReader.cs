using System.Buffers;
using System.Collections.Concurrent;
using System.Runtime.ExceptionServices;
using LogFlushMonitor.XEvent.Metadata;
using Microsoft.Win32.SafeHandles;

namespace LogFlushMonitor.XEvent.Binary;

/// <summary>
/// Decodes .xel files on several threads. The calling thread walks each file's buffer headers in order (the
/// index pass: it reads only headers and metadata, finds damage and keeps one metadata snapshot per metadata
/// buffer); workers decode the event buffers in any order, each into its own handler. Afterwards the per-file
/// results are put together in file order, so they equal those of a sequential <see cref="XelReader"/> with
/// <see cref="XelDamageHandling.SkipAndReport"/>: event counts, damage (offsets and problems), tails, file
/// errors, and event_sequence losses (each buffer contributes its count, lowest and highest number; a buffer
/// where the numbering restarts is replayed in order).
/// </summary>
/// <remarks>
/// Handlers see events in no particular order: <see cref="IXEventHandler.OnMetadataChanged"/> is called on a
/// worker's handler before its first event decoded with different metadata (a new file or a re-sent metadata
/// buffer), and <see cref="XEventRecord.SourceIndex"/> names each event's file. Merge the handlers'
/// aggregations after the call returns. Damage is always skipped and reported (the Throw mode cannot be
/// honoured: later buffers may already have been decoded when an earlier one fails).
/// </remarks>
public static class XelParallelReader
{
    /// <summary>
    /// Reads <paramref name="paths"/> in order with one worker per element of <paramref name="handlers"/>
    /// (worker <c>i</c> only ever calls <c>handlers[i]</c>), and returns one result per path.
    /// <paramref name="progress"/>, when given, is called from worker threads with the bytes of each buffer
    /// decoded. Cancellation stops indexing and decoding and raises <see cref="OperationCanceledException"/>.
    /// </summary>
    public static IReadOnlyList<XelFileResult> Read<THandler>(
        IReadOnlyList<string> paths,
        THandler[] handlers,
        XelReaderOptions? options = null,
        Action<long>? progress = null,
        CancellationToken cancellationToken = default)
        where THandler : IXEventHandler
    {
        ArgumentNullException.ThrowIfNull(paths);
        ArgumentNullException.ThrowIfNull(handlers);
        ArgumentOutOfRangeException.ThrowIfZero(handlers.Length);
        options = (options ?? new XelReaderOptions()) with { Damage = XelDamageHandling.SkipAndReport };
        var files = paths.Select((p, i) => new FileState(new XelFileResult(i, p))).ToList();

        using var stop = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        using var queue = new BlockingCollection<BufferJob>(boundedCapacity: handlers.Length * 4);
        var failure = (ExceptionDispatchInfo?)null;
        var workers = new Thread[handlers.Length];
        for (var i = 0; i < workers.Length; i++)
        {
            var index = i;
            workers[i] = new Thread(() =>
            {
                try
                {
                    Work(queue, ref handlers[index], options, progress, stop.Token);
                }
                catch (OperationCanceledException) when (stop.IsCancellationRequested)
                {
                }
                catch (Exception e)
                {
                    Interlocked.CompareExchange(ref failure, ExceptionDispatchInfo.Capture(e), null);
                    stop.Cancel();
                }
            })
            {
                IsBackground = true,
                Name = $"xel-decoder-{i}",
            };
            workers[i].Start();
        }

        try
        {
            foreach (var file in files)
            {
                Index(file, options, queue, stop.Token);
            }
        }
        catch (OperationCanceledException) when (stop.IsCancellationRequested)
        {
        }
        finally
        {
            queue.CompleteAdding();
            foreach (var w in workers)
            {
                w.Join();
            }

            foreach (var file in files)
            {
                file.Close();
            }
        }

        failure?.Throw();
        cancellationToken.ThrowIfCancellationRequested();
        Reconcile(files, options, cancellationToken);
        return [.. files.Select(f => f.Result)];
    }

    /// <summary>The index pass over one file: frames buffers, merges metadata into snapshots, queues event buffers.</summary>
    private static void Index(FileState file, XelReaderOptions options, BlockingCollection<BufferJob> queue, CancellationToken token)
    {
        var result = file.Result;
        var path = result.Path!;
        try
        {
            var kind = XelFiles.KindOf(path);
            if (kind is not (XelEntryKind.Regular or XelEntryKind.Missing))
            {
                throw new IOException(new XelSkippedEntry(path, kind).Reason);
            }

            var handle = File.OpenHandle(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete);
            file.Source = new FileByteSource(handle, RandomAccess.GetLength(handle));
            result.Bytes = file.Source.Length;
            var framer = new XelFramer(file.Source, options, result);
            framer.ReadFileHeader();
            var metadata = new XEventMetadata();
            while (framer.Next(out var frame, token))
            {
                if (frame.Kind == XEventBufferKind.Metadata)
                {
                    // A new snapshot per metadata buffer: buffers queued earlier keep decoding with the old one.
                    var next = metadata.Snapshot();
                    try
                    {
                        MetadataParser.Merge(next, file.Source.Get(frame.Offset, frame.Length), frame.DataStart, frame.DataEnd, frame.Offset, path);
                        metadata = next;
                    }
                    catch (XelFormatException e)
                    {
                        framer.SkipBuffer(frame, e);
                    }

                    continue;
                }

                var job = new BufferJob(file, frame, metadata);
                file.Buffers.Add(job);
                Interlocked.Increment(ref file.Pending);
                queue.Add(job, token);
            }
        }
        catch (Exception e) when (e is XelFormatException or IOException or UnauthorizedAccessException)
        {
            result.Error = e;
        }
        finally
        {
            file.Release();
        }
    }

    /// <summary>A worker: decodes queued buffers into its own handler.</summary>
    private static void Work<THandler>(BlockingCollection<BufferJob> queue, ref THandler handler, XelReaderOptions options, Action<long>? progress, CancellationToken token)
        where THandler : IXEventHandler
    {
        var decoder = new XEventBufferDecoder();
        var buffer = ArrayPool<byte>.Shared.Rent(256 * 1024);
        XEventMetadata? seen = null;
        ActionHandle sequence = default;
        try
        {
            foreach (var job in queue.GetConsumingEnumerable(token))
            {
                try
                {
                    Decode(job, decoder, ref buffer, ref seen, ref sequence, ref handler, options, progress);
                }
                finally
                {
                    job.File.Release();
                }
            }
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }
    }

    private static void Decode<THandler>(
        BufferJob job, XEventBufferDecoder decoder, ref byte[] buffer, ref XEventMetadata? seen, ref ActionHandle sequence, ref THandler handler, XelReaderOptions options, Action<long>? progress)
        where THandler : IXEventHandler
    {
        var frame = job.Frame;
        if (buffer.Length < frame.Length)
        {
            ArrayPool<byte>.Shared.Return(buffer);
            buffer = ArrayPool<byte>.Shared.Rent(frame.Length);
        }

        var span = buffer.AsSpan(0, frame.Length);
        try
        {
            FileByteSource.ReadExactly(job.File.Source!.Handle, span, frame.Offset);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            job.ReadError = e;
            return;
        }

        if (!ReferenceEquals(seen, job.Metadata))
        {
            seen = job.Metadata;
            sequence = options.TrackEventSequence ? job.Metadata.GetActionHandle(EventSequence.ActionName) : default;
            handler.OnMetadataChanged(job.Metadata);
        }

        decoder.Metadata = job.Metadata;
        decoder.SourceName = job.File.Result.Path;
        decoder.SourceIndex = job.File.Result.Index;
        var pos = frame.DataStart;
        decoder.MeasureClock(span, pos, frame.DataEnd);
        var observer = new SummaryObserver { Action = sequence };
        job.Events = decoder.DecodeRecords(span, ref pos, frame.DataEnd, frame.Offset, int.MaxValue, ref handler, ref observer, out job.Failure);
        job.Sequence = observer.Summary;
        progress?.Invoke(frame.Length);
    }

    /// <summary>Puts each file's result together in file order, as the sequential reader would have.</summary>
    private static void Reconcile(List<FileState> files, XelReaderOptions options, CancellationToken token)
    {
        var tracker = new XEventSequenceTracker();
        foreach (var file in files)
        {
            var result = file.Result;
            if (!options.SequenceAcrossFiles)
            {
                tracker.Reset();
            }

            var missingBefore = tracker.Missing;
            var observedBefore = tracker.Observed;
            foreach (var job in file.Buffers)
            {
                if (job.ReadError is not null)
                {
                    // The sequential reader stops at an I/O error: nothing after it counts.
                    result.Error ??= job.ReadError;
                    break;
                }

                result.Events += job.Events;
                if (job.Failure.Problem is { } problem)
                {
                    var start = job.Frame.Offset + job.Failure.RecordStart;
                    result.AddDamage(new XelDamage(start, job.Frame.DataEnd - job.Failure.RecordStart, problem + "; the rest of the buffer's events were skipped", job.Failure.Offset));
                }

                if (options.TrackEventSequence && !tracker.TryApply(job.Sequence))
                {
                    token.ThrowIfCancellationRequested();
                    Replay(job, ref tracker, result);
                }
            }

            result.SortDamage();
            result.EventsLost = Math.Max(0, tracker.Missing - missingBefore);
            result.SequencedEvents = tracker.Observed - observedBefore;
        }
    }

    /// <summary>Observes one buffer's sequence numbers in record order (a numbering restart or a large jump inside it).</summary>
    private static void Replay(BufferJob job, ref XEventSequenceTracker tracker, XelFileResult result)
    {
        var frame = job.Frame;
        var buffer = ArrayPool<byte>.Shared.Rent(frame.Length);
        try
        {
            using (SafeFileHandle handle = File.OpenHandle(job.File.Result.Path!, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete))
            {
                FileByteSource.ReadExactly(handle, buffer.AsSpan(0, frame.Length), frame.Offset);
            }

            var state = new ReplayState { Tracker = tracker };
            var observer = new ReplayObserver(state, job.Metadata.GetActionHandle(EventSequence.ActionName));
            var decoder = new XEventBufferDecoder(job.File.Result.Path) { Metadata = job.Metadata };
            var handler = default(IgnoreEvents);
            var pos = frame.DataStart;
            decoder.DecodeRecords(buffer.AsSpan(0, frame.Length), ref pos, frame.DataEnd, frame.Offset, int.MaxValue, ref handler, ref observer, out _);
            tracker = state.Tracker;
            foreach (var d in state.Damage)
            {
                result.AddDamage(d);
            }
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }
    }

    private sealed class FileState(XelFileResult result)
    {
        // The index pass holds one reference and each queued buffer another; the last to let go closes the file.
        public int Pending = 1;
        private int _closed;

        public XelFileResult Result { get; } = result;

        public FileByteSource? Source { get; set; }

        public List<BufferJob> Buffers { get; } = [];

        public void Release()
        {
            if (Interlocked.Decrement(ref Pending) == 0)
            {
                Close();
            }
        }

        public void Close()
        {
            if (Interlocked.Exchange(ref _closed, 1) == 0)
            {
                Source?.Handle.Dispose();
                Source?.Dispose();
            }
        }
    }

    /// <summary>One event buffer: where it is, with which metadata, and (after decoding) what it gave.</summary>
    private sealed class BufferJob(FileState file, XelFrame frame, XEventMetadata metadata)
    {
        public FileState File { get; } = file;

        public XelFrame Frame { get; } = frame;

        public XEventMetadata Metadata { get; } = metadata;

        public long Events;
        public RecordFailure Failure;
        public SequenceSummary Sequence;
        public Exception? ReadError;
    }

    private struct IgnoreEvents : IXEventHandler
    {
        public readonly void OnMetadataChanged(XEventMetadata metadata)
        {
        }

        public readonly void OnEvent(in XEventRecord record)
        {
        }
    }
}
