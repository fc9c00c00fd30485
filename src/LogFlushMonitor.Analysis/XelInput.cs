using LogFlushMonitor.XEvent.Binary;
using LogFlushMonitor.XEvent;

namespace LogFlushMonitor.Analysis;

/// <summary>
/// Reads one set of .xel files (one input: a session's rollover set, its event_sequence numbering continued across
/// the files) into the mappers, one per thread: with one mapper on the calling thread with <see cref="XelReader"/>,
/// with more on <see cref="XelParallelReader"/>'s workers. Both read in the reporting mode: damaged ranges are
/// skipped and reported, and the figures are the same whichever way the set was read.
/// </summary>
internal static class XelInput
{
    private static readonly XelReaderOptions Options = new()
    {
        Damage = XelDamageHandling.SkipAndReport,
        TrackEventSequence = true,
    };

    /// <summary>
    /// Reads <paramref name="paths"/> (numbered from <paramref name="firstOrdinal"/> in the whole run) and returns one
    /// report per file, in order. The mappers keep the databases; their per-file counts are merged here.
    /// </summary>
    public static IReadOnlyList<FileReport> Read(
        IReadOnlyList<string> paths, long firstOrdinal, XelTallyMapper[] mappers, ProgressReporter progress, CancellationToken cancellationToken)
    {
        foreach (var m in mappers)
        {
            m.BeginSet(paths.Count, firstOrdinal);
        }

        var results = mappers.Length == 1
            ? ReadSequentially(paths, mappers[0], progress, cancellationToken)
            : ReadInParallel(paths, mappers, progress, cancellationToken);

        var reports = new FileReport[paths.Count];
        for (var i = 0; i < paths.Count; i++)
        {
            var counts = new FileTally();
            foreach (var m in mappers)
            {
                counts.AddFrom(m.Files[i]);
            }

            reports[i] = Describe(results[i], counts);
        }

        return reports;
    }

    private static IReadOnlyList<XelFileResult> ReadSequentially(IReadOnlyList<string> paths, XelTallyMapper mapper, ProgressReporter progress, CancellationToken cancellationToken)
    {
        using var reader = XelReader.Open(paths, Options);
        long reported = 0;
        void Report()
        {
            var now = reader.TotalBytesRead;
            progress.Advance((int)Math.Min(now - reported, int.MaxValue));
            reported = now;
        }

        var handler = new XelTallyHandler(mapper);
        mapper.OnTick = Report;
        try
        {
            reader.ReadAll(ref handler, cancellationToken);
        }
        finally
        {
            mapper.OnTick = null;
        }

        Report();
        return reader.Files;
    }

    private static IReadOnlyList<XelFileResult> ReadInParallel(IReadOnlyList<string> paths, XelTallyMapper[] mappers, ProgressReporter progress, CancellationToken cancellationToken)
    {
        var handlers = mappers.Select(m => new XelTallyHandler(m)).ToArray();

        // Called per decoded buffer from the workers: one lock per buffer, none per event.
        void Advance(long bytes)
        {
            lock (progress)
            {
                progress.Advance((int)Math.Min(bytes, int.MaxValue));
            }
        }

        return XelParallelReader.Read(paths, handlers, Options, Advance, cancellationToken);
    }

    private static FileReport Describe(XelFileResult r, FileTally counts)
    {
        var status = r.Status switch
        {
            XelFileStatus.Ok when counts.Malformed > 0 => FileStatus.Damaged,
            XelFileStatus.Ok => FileStatus.Ok,
            XelFileStatus.Damaged => FileStatus.Damaged,
            XelFileStatus.UnsupportedVersion => FileStatus.UnsupportedVersion,
            XelFileStatus.Corrupt => FileStatus.Corrupt,
            _ => FileStatus.Unreadable,
        };
        var (error, offset) = r.Error switch
        {
            XelFormatException e => (e.Problem, e.Offset >= 0 ? e.Offset : (long?)null),
            { } e => (e.Message, null),
            null => ((string?)null, (long?)null),
        };
        return new FileReport
        {
            Path = r.Path!,
            Bytes = r.Bytes,
            Status = status,
            Error = error,
            ErrorOffset = offset,
            Events = r.Events,
            FlushStarts = counts.FlushStarts,
            FlushCompletes = counts.FlushCompletes,
            WriteLogWaits = counts.WriteLogWaits,
            EventsLost = r.EventsLost,
            OtherEvents = counts.OtherEvents,
            OtherWaits = counts.OtherWaits,
            Damage = r.Damage,
            Tail = r.Tail,
            TailOffset = r.TailOffset,
            TailBytes = r.TailBytes,
            MalformedEvents = counts.Malformed,
            Malformed = counts.MalformedEvents,
        };
    }
}
