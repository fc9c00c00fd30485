using LogFlushMonitor.Commands;
using LogFlushMonitor.Core.Advice;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.XEvents;
using LogFlushMonitor.XEvent;

namespace LogFlushMonitor.Analyze;

/// <summary>
/// Runs <c>analyze</c>: expands the inputs, streams every file through <see cref="XEventSampleMapper"/> into one
/// <see cref="LogFlushAggregator"/> (synchronously, no channel, no metrics), and builds the report. Memory
/// stays flat: the reader reuses one buffer and the aggregation is fixed-size per database.
/// </summary>
internal static class AnalyzeRunner
{
    /// <summary>The instance name events from .xel files are counted under (a file does not say which server wrote it).</summary>
    public const string InstanceName = "analyze";

    /// <summary>Analyses, writes the report to <paramref name="stdout"/> and problems and progress to <paramref name="stderr"/>; returns the exit code.</summary>
    public static int Run(AnalyzeSettings settings, TextWriter stdout, TextWriter stderr, CancellationToken cancellationToken)
    {
        if (!TryExpand(settings.Inputs, stderr, out var groups))
        {
            return ExitCodes.Configuration;
        }

        var report = Analyze(settings, groups, stderr, cancellationToken);
        foreach (var f in report.Files.Where(f => f.Status != FileStatus.Ok))
        {
            stderr.WriteLine(FormattableString.Invariant(
                $"error: {f.Path}: {f.Error} (byte offset {(f.ErrorOffset is { } o ? o.ToString(System.Globalization.CultureInfo.InvariantCulture) : "unknown")}); {f.Events:N0} events before it were counted, the other files were analysed."));
        }

        if (settings.Format == ReportFormat.Json)
        {
            JsonReportWriter.Write(report, stdout);

            // The document says it too, but a person running a script should see why nothing was found.
            foreach (var f in report.HasRelevantEvents ? [] : report.Files.Where(f => f.Status == FileStatus.Ok))
            {
                stderr.WriteLine(TextReportWriter.Census(f));
            }
        }
        else
        {
            TextReportWriter.Write(report, stdout);
        }

        stdout.Flush();
        return report.ExitCode;
    }

    /// <summary>
    /// Reads the expanded file groups (one group per input; a group's files share event_sequence numbering); with
    /// <paramref name="series"/>, also counts flushes and WRITELOG waits per time bucket (the HTML report).
    /// </summary>
    public static AnalyzeReport Analyze(
        AnalyzeSettings settings, IReadOnlyList<IReadOnlyList<string>> groups, TextWriter? stderr, CancellationToken cancellationToken, TimeSeriesRecorder? series = null)
    {
        var time = settings.Time;
        var started = time.GetTimestamp();
        var sizes = groups.SelectMany(g => g).Distinct(StringComparer.Ordinal).ToDictionary(p => p, SizeOf, StringComparer.Ordinal);
        var total = sizes.Values.Sum();
        var show = settings.Progress switch
        {
            ProgressMode.Always => true,
            ProgressMode.Never => false,
            _ => total > AnalyzeSettings.ProgressThresholdBytes || settings.StdErrIsTerminal,
        };
        var progress = new ProgressReporter(show ? stderr : null, total, time, settings.ProgressLabel);

        var aggregator = new LogFlushAggregator();
        var sink = new AnalyzeSink(aggregator, series);
        var mapper = new XEventSampleMapper(InstanceName, sink);
        var files = new List<FileReport>();
        var read = new HashSet<string>(StringComparer.Ordinal);
        foreach (var group in groups)
        {
            // Files of one input are one session's rollover set: its numbering continues across them.
            mapper.ResetSequence();
            foreach (var path in group)
            {
                // The same file named twice (a folder and a glob) is read once, or it would count twice.
                if (read.Add(Path.GetFullPath(path)))
                {
                    files.Add(settings.AcceptNdjson && NdjsonInput.IsNdjson(path)
                        ? NdjsonInput.Read(path, sizes[path], sink, progress, cancellationToken)
                        : ReadFile(path, sizes[path], mapper, sink, progress, cancellationToken));
                }
            }
        }

        progress.Complete();
        var databases = aggregator.Snapshot().Select(Describe).OfType<DatabaseReport>()
            .OrderByDescending(d => d.Flushes).ThenBy(d => d.Database, StringComparer.Ordinal).ToList();
        var exit = files.Any(f => f.Status != FileStatus.Ok) ? ExitCodes.CorruptInput
            : files.Any(f => f.HasRelevantEvents) ? ExitCodes.Ok
            : ExitCodes.NoRelevantEvents;
        return new AnalyzeReport(files, databases, exit, time.GetElapsedTime(started));
    }

    /// <summary>Expands every input; false (with messages on <paramref name="stderr"/>) when any names nothing.</summary>
    public static bool TryExpand(IReadOnlyList<string> inputs, TextWriter stderr, out IReadOnlyList<IReadOnlyList<string>> groups)
    {
        var list = new List<IReadOnlyList<string>>();
        var ok = true;
        foreach (var input in inputs)
        {
            string? problem = null;
            try
            {
                var files = string.IsNullOrWhiteSpace(input) ? [] : XelFiles.Expand(input);
                list.Add(files);
                if (files.Count == 0)
                {
                    problem = Directory.Exists(input) ? "the folder holds no .xel file" : "no file matches this pattern";
                }
            }
            catch (Exception e) when (e is FileNotFoundException or DirectoryNotFoundException)
            {
                problem = "no such file, folder or pattern";
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException or ArgumentException)
            {
                problem = e.Message;
            }

            if (problem is not null)
            {
                stderr.WriteLine($"error: input '{input}': {problem}. Give .xel files, folders holding them, or a glob such as /path/session*.xel.");
                ok = false;
            }
        }

        groups = list;
        return ok;
    }

    private static FileReport ReadFile(string path, long bytes, XEventSampleMapper mapper, AnalyzeSink sink, ProgressReporter progress, CancellationToken cancellationToken)
    {
        sink.BeginFile();
        var othersBefore = new Dictionary<string, long>(mapper.OtherEvents, StringComparer.Ordinal);
        var lostBefore = mapper.SequenceLost;
        var status = FileStatus.Ok;
        string? error = null;
        long? offset = null;
        long events = 0;
        XelReader? reader = null;
        try
        {
            var file = new FileStream(path, new FileStreamOptions
            {
                Mode = FileMode.Open,
                Access = FileAccess.Read,
                Share = FileShare.ReadWrite | FileShare.Delete,
                BufferSize = 0, // the reader asks for whole XE buffers
                Options = FileOptions.SequentialScan,
            });
            reader = new XelReader(new ProgressStream(file, progress), path);
            reader.ReadAll(ref mapper, cancellationToken);
        }
        catch (XelUnsupportedVersionException e)
        {
            (status, error, offset) = (FileStatus.UnsupportedVersion, e.Problem, e.Offset);
        }
        catch (XelFormatException e)
        {
            (status, error, offset) = (FileStatus.Corrupt, e.Problem, e.Offset >= 0 ? e.Offset : null);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            (status, error) = (FileStatus.Unreadable, e.Message);
        }
        finally
        {
            // What was read before a problem still counts.
            sink.Flush();
            events = reader?.EventCount ?? 0;
            reader?.Dispose();
        }

        return new FileReport
        {
            Path = path,
            Bytes = bytes,
            Status = status,
            Error = error,
            ErrorOffset = offset,
            Events = events,
            FlushStarts = sink.FlushStarts,
            FlushCompletes = sink.FlushCompletes,
            WriteLogWaits = sink.WriteLogWaits,
            // Exact per file: an event that arrived out of order fills its hole instead of counting as lost.
            EventsLost = Math.Max(0, mapper.SequenceLost - lostBefore),
            OtherEvents = Difference(mapper.OtherEvents, othersBefore),
            OtherWaits = new Dictionary<string, long>(sink.OtherWaits, StringComparer.Ordinal),
        };
    }

    private static Dictionary<string, long> Difference(IReadOnlyDictionary<string, long> after, Dictionary<string, long> before)
    {
        var d = new Dictionary<string, long>(StringComparer.Ordinal);
        foreach (var (name, count) in after)
        {
            var n = count - before.GetValueOrDefault(name);
            if (n > 0)
            {
                d[name] = n;
            }
        }

        return d;
    }

    private static long SizeOf(string path)
    {
        try
        {
            return new FileInfo(path).Length;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return 0;
        }
    }

    private static DatabaseReport? Describe(DatabaseSnapshot db)
    {
        var writelog = db.Waits.FirstOrDefault(w => w.WaitType == AnalyzeSink.WriteLog);
        if (db.WriteSizes.Count == 0 && db.FlushDurations.Count == 0 && writelog is null)
        {
            return null;
        }

        var n = db.WriteSizes.Count;
        var d = db.FlushDurations;
        return new DatabaseReport
        {
            Instance = db.Instance,
            Database = db.Database,
            DatabaseId = db.DatabaseId,
            Flushes = n,
            Bytes = db.WriteSizes.TotalBytes,
            Buckets = WriteSizeBuckets.Compute(db.WriteSizes),
            SingleSectorShare = n > 0 ? (double)db.WriteSizes.CountAtMost(512) / n : 0,
            FullBlockShare = n > 0 ? (double)db.WriteSizes[WriteSizeDistribution.SlotOf(WriteSizeDistribution.MaxBlockBytes)] / n : 0,
            FlushDuration = d.Count > 0
                ? new DurationStats(d.Count, d.MeanSeconds * 1000, d.Quantile(0.5) * 1000, d.Quantile(0.95) * 1000, d.Quantile(0.99) * 1000, d.MaxSeconds * 1000)
                : null,
            WriteLog = writelog is { Count: > 0 } w
                ? new DurationStats(w.Count, w.MeanSeconds * 1000, null, w.P95Seconds * 1000, null, w.MaxSeconds * 1000)
                : null,
            FirstEventUtc = db.FirstEventUtc,
            LastEventUtc = db.LastEventUtc,
            Advice = Advisor.Advise(db),
        };
    }
}
